// The shared math of the backward pass for one (query tile, key tile) block, given the
// query tile's Q, dO, LSE and D = rowsum(dO * O) and the key tile's K, V:
//   S = Q K^T, dP = dO V^T,
//   softmax:   P = exp(logit(S) - LSE), dS = P * (dP - D) * dlogit/ds
//   pointwise: P = out_scale * f(scale S), dS = out_scale * f'(scale S) * dP
// with P and dS exactly 0 on masked entries, and dS pre-multiplied by `scale` so that
// dQ = dS K and dK = dS^T Q need no further scaling. The two backward passes (dK/dV
// key-stationary, dQ query-stationary) both call compute(), then run their own products.
#pragma once

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
class BackwardBlock {
 public:
  explicit BackwardBlock(const detail::AttentionParams& p)
      : p_(p),
        d_(p.head_dim),
        dv_(p.head_dim_v),
        d_ld_(round_up(p.head_dim, gemm_col_block<T>())),
        dv_ld_(round_up(p.head_dim_v, gemm_col_block<T>())),
        q_src_{&p.q, &p.q_side, p.in_dtype},
        k_src_{&p.k, &p.kv_side, p.in_dtype},
        v_src_{&p.v, &p.kv_side, p.in_dtype},
        dout_src_{&p.dout, &p.q_side, p.out_dtype},
        q_(size_t(kTileQ * d_ld_)),
        do_(size_t(kTileQ * dv_ld_)),
        lse_(size_t(kTileQ)),
        delta_(size_t(kTileQ)),
        kt_(size_t(d_ * kTileK)),
        vt_(size_t(dv_ * kTileK)),
        k_(size_t(kTileK * d_ld_)),
        p_tile_(size_t(kTileQ * kTileK)),
        ds_tile_(size_t(kTileQ * kTileK)),
        dlogit_(p.softcap > 0.0f ? size_t(kTileK) : 0),
        row_buf_(size_t(std::max(d_ld_, dv_ld_))) {}

  int64_t d_ld() const { return d_ld_; }
  int64_t dv_ld() const { return dv_ld_; }
  /// Packed operands of the loaded tiles, for the passes' own products.
  const T* q() const { return q_.data(); }      ///< [rows x d_ld]
  const T* dout() const { return do_.data(); }  ///< [rows x dv_ld]
  const T* k() const { return k_.data(); }      ///< [cols x d_ld] (when loaded with k)
  const T* p() const { return p_tile_.data(); }    ///< P  [rows x kTileK] after compute()
  const T* ds() const { return ds_tile_.data(); }  ///< scale * dS, same shape

  /// Loads query rows [i0, i0 + rows) of sequence b, head h. lse and delta (softmax only,
  /// indexed by row) come from the pre-pass.
  void load_query_tile(int64_t b, int64_t h, int64_t i0, int64_t rows, const T* lse,
                       const T* delta) {
    qi0_ = i0;
    qrows_ = rows;
    pack_rows(q_src_, b, h, i0, rows, d_, p_.emulate, q_.data(), d_ld_);
    pack_rows(dout_src_, b, h, i0, rows, dv_, p_.emulate, do_.data(), dv_ld_);
    if (lse) std::copy(lse, lse + rows, lse_.begin());
    if (delta) std::copy(delta, delta + rows, delta_.begin());
  }

  /// Loads keys [j0, j0 + cols) of kv sequence bk, kv head hk (transposed for S and dP;
  /// also row-major K when `with_k`, for dQ = dS K).
  void load_key_tile(int64_t bk, int64_t hk, int64_t j0, int64_t cols, bool with_k) {
    kj0_ = j0;
    kcols_ = cols;
    pack_rows_transposed(k_src_, bk, hk, j0, cols, d_, p_.emulate, kt_.data(), kTileK,
                         row_buf_.data());
    pack_rows_transposed(v_src_, bk, hk, j0, cols, dv_, p_.emulate, vt_.data(), kTileK,
                         row_buf_.data());
    if (with_k) pack_rows(k_src_, bk, hk, j0, cols, d_, p_.emulate, k_.data(), d_ld_);
  }

  /// P and scale * dS of the loaded tiles, under the mask of the query tile's sequence.
  void compute(const detail::SeqMask& mask) {
    // S and dP only on the rows that see a key of the tile; the other rows of P and dS are
    // zeroed by the score loops (they see no allowed column).
    const RowRange rr = rows_seeing(mask, qi0_, qrows_, kj0_, kcols_);
    const int64_t n = round_up(kcols_, gemm_col_block<T>());
    gemm_tile<T>({rr.hi - rr.lo, n, d_, q_.data() + rr.lo * d_ld_, d_ld_, 1, kt_.data(), kTileK,
                  p_tile_.data() + rr.lo * kTileK, kTileK, false});
    gemm_tile<T>({rr.hi - rr.lo, n, dv_, do_.data() + rr.lo * dv_ld_, dv_ld_, 1, vt_.data(),
                  kTileK, ds_tile_.data() + rr.lo * kTileK, kTileK, false});
    if (p_.activation == Activation::Softmax) {
      softmax_scores(mask);
    } else {
      pointwise_scores(mask);
    }
  }

 private:
  void softmax_scores(const detail::SeqMask& mask) {
    const T scale = T(p_.scale), softcap = T(p_.softcap);
    for (int64_t r = 0; r < qrows_; ++r) {
      T* pr = p_tile_.data() + r * kTileK;
      T* dsr = ds_tile_.data() + r * kTileK;
      ColRange c = allowed_cols(mask, qi0_ + r, kj0_, kcols_);
      if (lse_[r] == -std::numeric_limits<T>::infinity()) c.hi = c.lo;  // row without keys
      for (int64_t j = c.lo; j < c.hi; ++j) {
        T* dl = softcap > T(0) ? &dlogit_[size_t(j)] : nullptr;
        pr[j] = softmax_logit(pr[j], scale, softcap, dl) - lse_[r];
      }
      exp_shift_sum(pr + c.lo, c.hi - c.lo, T(0));
      for (int64_t j = c.lo; j < c.hi; ++j) {
        const T dl = softcap > T(0) ? dlogit_[size_t(j)] : T(1);
        dsr[j] = pr[j] * (dsr[j] - delta_[r]) * dl * scale;
      }
      finish_row(pr, dsr, c);
    }
  }

  void pointwise_scores(const detail::SeqMask& mask) {
    const T scale = T(p_.scale), out_scale = T(p_.out_scale);
    with_activation(p_.activation, [&](auto act) {
      for (int64_t r = 0; r < qrows_; ++r) {
        T* pr = p_tile_.data() + r * kTileK;
        T* dsr = ds_tile_.data() + r * kTileK;
        const ColRange c = allowed_cols(mask, qi0_ + r, kj0_, kcols_);
        for (int64_t j = c.lo; j < c.hi; ++j) {
          const T x = scale * pr[j];
          pr[j] = out_scale * detail::activation_forward<T>(act.value, x);
          dsr[j] = out_scale * detail::activation_derivative<T>(act.value, x) * dsr[j] * scale;
        }
        finish_row(pr, dsr, c);
      }
    });
  }

  // Masked entries to exactly 0; the roundings a bf16/fp16 kernel applies before its
  // products with P and dS.
  void finish_row(T* pr, T* dsr, ColRange c) {
    zero_outside(pr, c.lo, c.hi, kcols_);
    zero_outside(dsr, c.lo, c.hi, kcols_);
    round_inplace(p_.emulate, pr, kcols_);
    round_inplace(p_.emulate, dsr, kcols_);
  }

  const detail::AttentionParams& p_;
  const int64_t d_, dv_, d_ld_, dv_ld_;
  const RowSource q_src_, k_src_, v_src_, dout_src_;
  std::vector<T> q_, do_, lse_, delta_, kt_, vt_, k_, p_tile_, ds_tile_, dlogit_, row_buf_;
  int64_t qi0_ = 0, qrows_ = 0, kj0_ = 0, kcols_ = 0;
};

}  // namespace amkl::cpu
