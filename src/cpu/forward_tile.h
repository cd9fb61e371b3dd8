// The forward pass of one query tile (rows [i0, i0 + rows) of one sequence and head):
// FlashAttention's loop over key tiles on the CPU. Per key tile: S = Q K^T (a tile product),
// scores -> P (online softmax, or the pointwise activation with P masked to exactly 0),
// O += P V. Memory is O(tile): nothing of size Lq x Lk is ever formed.
//
// Used by the forward (out and lse) and by the float64 backward (lse only, recomputed in
// float64 instead of read from the float32 lse).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/activation_math.h"
#include "common/attention_params.h"
#include "cpu/gemm_tile.h"
#include "cpu/score_ops.h"
#include "cpu/tile_io.h"
#include "cpu/tiling.h"
#include "cpu/vec_math.h"

namespace amkl::cpu {

template <typename T>
class ForwardTile {
 public:
  explicit ForwardTile(const detail::AttentionParams& p)
      : p_(p),
        d_(p.head_dim),
        dv_(p.head_dim_v),
        d_ld_(round_up(p.head_dim, gemm_col_block<T>())),
        dv_ld_(round_up(p.head_dim_v, gemm_col_block<T>())),
        q_src_{&p.q, &p.q_side, p.in_dtype},
        k_src_{&p.k, &p.kv_side, p.in_dtype},
        v_src_{&p.v, &p.kv_side, p.in_dtype},
        out_dst_{&p.out, &p.q_side, p.out_dtype},
        q_(size_t(kTileQ * d_ld_)),
        kt_(size_t(d_ * kTileK)),
        v_(size_t(kTileK * dv_ld_)),
        s_(size_t(kTileQ * kTileK)),
        o_(size_t(kTileQ * dv_ld_)),
        m_(size_t(kTileQ)),
        l_(size_t(kTileQ)),
        row_buf_(size_t(std::max(d_ld_, dv_ld_))) {}

  /// Computes rows [i0, i0 + rows) of query sequence b, head h: writes their out rows when
  /// `write_out`, and their LSE (natural log, -inf for a row without keys; softmax only)
  /// to lse[0, rows) when lse is non-null.
  void run(int64_t b, int64_t h, int64_t i0, int64_t rows, bool write_out, T* lse) {
    const bool softmax = p_.activation == Activation::Softmax;
    const int64_t bk = p_.kv_batch(b), hk = p_.kv_head(h);
    const detail::SeqMask mask = sequence_mask(p_, b);
    const KeyRange keys = key_range(mask, i0, rows);

    pack_rows(q_src_, b, h, i0, rows, d_, p_.emulate, q_.data(), d_ld_);
    std::fill(o_.begin(), o_.end(), T(0));
    std::fill(m_.begin(), m_.end(), -std::numeric_limits<T>::infinity());
    std::fill(l_.begin(), l_.end(), T(0));

    for (int64_t j0 = keys.begin; j0 < keys.end; j0 += kTileK) {
      const int64_t cols = std::min(kTileK, keys.end - j0);
      prefetch_.clear();
      if (j0 + kTileK < keys.end) {  // the next tile's K and V, fetched during this tile
        const int64_t next = std::min(kTileK, keys.end - j0 - kTileK);
        prefetch_.add(k_src_, bk, hk, j0 + kTileK, next, d_);
        if (write_out) prefetch_.add(v_src_, bk, hk, j0 + kTileK, next, dv_);
      }
      pack_rows_transposed(k_src_, bk, hk, j0, cols, d_, p_.emulate, kt_.data(), kTileK,
                           row_buf_.data());
      // Rows that see no key of this tile are skipped (their P row would be all 0).
      const RowRange rr = rows_seeing(mask, i0, rows, j0, cols);
      const int64_t m = rr.hi - rr.lo;
      if (m <= 0) continue;
      // S = Q K^T over the columns padded to the product's column block.
      gemm_tile<T>({m, round_up(cols, gemm_col_block<T>()), d_, q_.data() + rr.lo * d_ld_, d_ld_,
                    1, kt_.data(), kTileK, s_.data() + rr.lo * kTileK, kTileK, false});
      if (softmax) {
        softmax_update(mask, i0, rr, j0, cols, write_out);
      } else {
        pointwise_scores(mask, i0, rr, j0, cols);
      }
      if (!write_out) continue;
      pack_rows(v_src_, bk, hk, j0, cols, dv_, p_.emulate, v_.data(), dv_ld_);
      gemm_tile<T>({m, dv_ld_, cols, s_.data() + rr.lo * kTileK, kTileK, 1, v_.data(), dv_ld_,
                    o_.data() + rr.lo * dv_ld_, dv_ld_, true});
    }

    if (softmax) {
      for (int64_t r = 0; r < rows; ++r) {
        const bool any = l_[r] > T(0);
        if (lse) lse[r] = any ? m_[r] + std::log(l_[r]) : -std::numeric_limits<T>::infinity();
        l_[r] = any ? T(1) / l_[r] : T(0);  // now the normalizer of row r
      }
    }
    if (write_out) {
      store_rows(o_.data(), dv_ld_, rows, dv_, out_dst_, b, h, i0, row_buf_.data(),
                 softmax ? l_.data() : nullptr);
    }
  }

 private:
  // Online softmax over one key tile: turns the S rows into P = exp(logit - running max),
  // rescales the running sum and (when `rescale_out`) the O rows.
  void softmax_update(const detail::SeqMask& mask, int64_t i0, RowRange rows, int64_t j0,
                      int64_t cols, bool rescale_out) {
    const T scale = T(p_.scale), softcap = T(p_.softcap);
    const int64_t lines_per_row = int64_t(prefetch_.pending()) / (rows.hi - rows.lo) + 1;
    for (int64_t r = rows.lo; r < rows.hi; ++r) {
      prefetch_.step(lines_per_row);
      T* s = s_.data() + r * kTileK;
      const ColRange c = allowed_cols(mask, i0 + r, j0, cols);
      T tile_max;
      if (softcap > T(0)) {
        tile_max = -std::numeric_limits<T>::infinity();
        for (int64_t j = c.lo; j < c.hi; ++j) {
          s[j] = softmax_logit(s[j], scale, softcap);
          tile_max = std::max(tile_max, s[j]);
        }
      } else {
        tile_max = scale_max(s + c.lo, c.hi - c.lo, scale);
      }
      T new_max = std::max(m_[r], tile_max);
      if (p_.emulate != Rounding::None) new_max = integer_log2_max(m_[r], tile_max);
      if (new_max == -std::numeric_limits<T>::infinity()) {  // nothing allowed so far
        zero_outside(s, 0, 0, cols);
        continue;
      }
      const T row_sum = exp_shift_sum(s + c.lo, c.hi - c.lo, new_max);
      zero_outside(s, c.lo, c.hi, cols);
      const T alpha = std::exp(m_[r] - new_max);  // 0 when m_ was -inf
      l_[r] = l_[r] * alpha + row_sum;
      m_[r] = new_max;
      if (rescale_out && alpha != T(1)) {
        T* o = o_.data() + r * dv_ld_;
        for (int64_t k = 0; k < dv_; ++k) o[k] *= alpha;
      }
      // The GPU kernels round the unnormalized P (not the running sum) before P V.
      round_inplace(p_.emulate, s, cols);
    }
  }

  // With emulated roundings, the running max P is taken against is k ln 2 for an integer k
  // (the smallest such max at least the true one), as in the GPU kernels: their P then differs
  // from this P by a power of two, which bf16/fp16 rounding commutes with, so both round P
  // alike (the kernels may keep a smaller k for a while; any integer k gives this).
  static T integer_log2_max(T old_max, T tile_max) {
    constexpr T kLog2e = T(1.4426950408889634), kLn2 = T(0.6931471805599453);
    if (!(tile_max > old_max)) return old_max;  // also both -inf
    // old_max is k ln 2 (or -inf): k is recovered by rounding, never by another ceil.
    const T k_old = old_max == -std::numeric_limits<T>::infinity()
                        ? old_max
                        : std::nearbyint(old_max * kLog2e);
    const T k_new = std::max(k_old, std::ceil(tile_max * kLog2e));
    return k_new * kLn2;
  }

  // P = out_scale * f(scale * S) on the allowed entries, exactly 0 elsewhere.
  void pointwise_scores(const detail::SeqMask& mask, int64_t i0, RowRange rows, int64_t j0,
                        int64_t cols) {
    const T scale = T(p_.scale), out_scale = T(p_.out_scale);
    const int64_t lines_per_row = int64_t(prefetch_.pending()) / (rows.hi - rows.lo) + 1;
    with_activation(p_.activation, [&](auto act) {
      for (int64_t r = rows.lo; r < rows.hi; ++r) {
        prefetch_.step(lines_per_row);
        T* s = s_.data() + r * kTileK;
        const ColRange c = allowed_cols(mask, i0 + r, j0, cols);
        for (int64_t j = c.lo; j < c.hi; ++j) {
          s[j] = out_scale * detail::activation_forward<T>(act.value, scale * s[j]);
        }
        zero_outside(s, c.lo, c.hi, cols);
        round_inplace(p_.emulate, s, cols);
      }
    });
  }

  const detail::AttentionParams& p_;
  const int64_t d_, dv_, d_ld_, dv_ld_;
  const RowSource q_src_, k_src_, v_src_, out_dst_;
  std::vector<T> q_, kt_, v_, s_, o_, m_, l_, row_buf_;
  RowPrefetcher prefetch_;
};

}  // namespace amkl::cpu
