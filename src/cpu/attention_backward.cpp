// CPU attention backward, deterministic by construction: every output row has exactly one
// owner, and each owner accumulates in a fixed order.
//   pre-pass  (softmax): per query row, D = rowsum(dO * O) and the LSE (read from the
//             forward's float32 lse, or recomputed in float64 for float64 inputs, whose
//             gradients the float32 LSE would limit to ~1e-7 relative accuracy)
//   pass dK/dV: items (kv sequence, kv head, key tile); each loops over every query
//             sequence mapped to it (q_to_kv), every query head of its GQA group and every
//             query tile that sees the key tile: dV += P^T dO, dK += dS^T Q
//   pass dQ:  items (query sequence, head, query tile); loops over its key tiles: dQ += dS K
// Both passes recompute S, P and dS (BackwardBlock); that costs two extra tile products
// per block but needs no atomics, no locks and no L x L memory.
#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "cpu/backward_block.h"
#include "cpu/cpu_backend.h"
#include "cpu/forward_tile.h"
#include "cpu/parallel.h"
#include "cpu/tile_io.h"
#include "cpu/tiling.h"

namespace amkl::cpu {
namespace {

using detail::AttentionParams;
using detail::SeqSide;

/// Softmax statistics of every (head, query row): LSE and D, in the compute type.
template <typename T>
struct RowStats {
  std::vector<T> lse, delta;
  int64_t rows = 0;  ///< rows per head: T (jagged) or B * L (dense)

  /// Row index of in-sequence row i of query sequence b.
  static int64_t row_index(const SeqSide& s, int64_t b, int64_t i) {
    return s.jagged ? s.start(b) + i : b * s.dense_len + i;
  }
  const T* lse_at(const SeqSide& s, int64_t h, int64_t b, int64_t i) const {
    return lse.data() + h * rows + row_index(s, b, i);
  }
  const T* delta_at(const SeqSide& s, int64_t h, int64_t b, int64_t i) const {
    return delta.data() + h * rows + row_index(s, b, i);
  }
};

template <typename T>
RowStats<T> softmax_row_stats(const AttentionParams& p) {
  RowStats<T> st;
  st.rows = p.q_side.total_rows;
  st.lse.assign(size_t(p.heads_q * st.rows), T(0));
  st.delta.assign(size_t(p.heads_q * st.rows), T(0));
  const std::vector<QTile> tiles = query_tiles(p.q_side);
  const int64_t heads = p.heads_q;
  const RowSource out_src{&p.out, &p.q_side, p.out_dtype};
  const RowSource dout_src{&p.dout, &p.q_side, p.out_dtype};
  parallel_workers(int64_t(tiles.size()) * heads, [&](WorkQueue& queue) {
    constexpr bool recompute_lse = std::is_same_v<T, double>;
    std::unique_ptr<ForwardTile<T>> fwd;
    if (recompute_lse) fwd = std::make_unique<ForwardTile<T>>(p);
    std::vector<T> o(size_t(p.head_dim_v)), d_o(size_t(p.head_dim_v));
    for (int64_t item = queue.next(); item >= 0; item = queue.next()) {
      const QTile& t = tiles[size_t(item / heads)];
      const int64_t h = item % heads;
      T* lse = st.lse.data() + h * st.rows + RowStats<T>::row_index(p.q_side, t.b, t.i0);
      T* delta = st.delta.data() + h * st.rows + RowStats<T>::row_index(p.q_side, t.b, t.i0);
      if (recompute_lse) {
        fwd->run(t.b, h, t.i0, t.rows, /*write_out=*/false, lse);
      } else {
        for (int64_t r = 0; r < t.rows; ++r) lse[r] = T(*lse_entry(p, t.b, h, t.i0 + r));
      }
      for (int64_t r = 0; r < t.rows; ++r) {
        load_row(out_src.row(t.b, t.i0 + r, h), p.out_dtype, p.head_dim_v, o.data());
        load_row(dout_src.row(t.b, t.i0 + r, h), p.out_dtype, p.head_dim_v, d_o.data());
        round_inplace(p.emulate, d_o.data(), p.head_dim_v);  // as BackwardBlock loads dO
        T sum = T(0);
        for (int64_t c = 0; c < p.head_dim_v; ++c) sum += d_o[size_t(c)] * o[size_t(c)];
        delta[r] = sum;
      }
    }
  });
  return st;
}

/// A run of keys [j0, j0 + cols) of kv sequence bk.
struct KTile {
  int64_t bk = 0, j0 = 0, cols = 0;
};

template <typename T>
void backward_dk_dv(const AttentionParams& p, const RowStats<T>* stats) {
  std::vector<KTile> ktiles;
  for (int64_t bk = 0; bk < p.kv_side.batch; ++bk) {
    const int64_t len = p.kv_side.len(bk);
    for (int64_t j0 = 0; j0 < len; j0 += kTileK) ktiles.push_back({bk, j0, std::min(kTileK, len - j0)});
  }
  // The query sequences that attend each kv sequence, in increasing order.
  std::vector<std::vector<int64_t>> readers(size_t(p.kv_side.batch));
  for (int64_t b = 0; b < p.q_side.batch; ++b) readers[size_t(p.kv_batch(b))].push_back(b);

  const int64_t kv_heads = p.heads_kv, group = p.heads_q / p.heads_kv;
  const RowSource dk_dst{&p.dk, &p.kv_side, p.in_dtype};
  const RowSource dv_dst{&p.dv, &p.kv_side, p.in_dtype};
  parallel_workers(int64_t(ktiles.size()) * kv_heads, [&](WorkQueue& queue) {
    BackwardBlock<T> blk(p);
    const int64_t d_ld = blk.d_ld(), dv_ld = blk.dv_ld();
    std::vector<T> dk(size_t(kTileK * d_ld)), dv(size_t(kTileK * dv_ld));
    std::vector<T> row_buf(size_t(std::max(d_ld, dv_ld)));
    for (int64_t item = queue.next(); item >= 0; item = queue.next()) {
      const KTile& kt = ktiles[size_t(item / kv_heads)];
      const int64_t hk = item % kv_heads;
      std::fill(dk.begin(), dk.end(), T(0));
      std::fill(dv.begin(), dv.end(), T(0));
      blk.load_key_tile(kt.bk, hk, kt.j0, kt.cols, /*with_k=*/false);
      for (int64_t b : readers[size_t(kt.bk)]) {
        const detail::SeqMask mask = sequence_mask(p, b);
        const int64_t len_q = p.q_side.len(b);
        for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
          for (int64_t i0 = 0; i0 < len_q; i0 += kTileQ) {
            const int64_t rows = std::min(kTileQ, len_q - i0);
            const KeyRange keys = key_range(mask, i0, rows);
            if (keys.begin >= std::min(keys.end, kt.j0 + kt.cols) || keys.end <= kt.j0) continue;
            blk.load_query_tile(b, h, i0, rows, stats ? stats->lse_at(p.q_side, h, b, i0) : nullptr,
                                stats ? stats->delta_at(p.q_side, h, b, i0) : nullptr);
            blk.compute(mask);
            // dV += P^T dO and dK += dS^T Q: the transposes are A's strides (1, kTileK).
            gemm_tile<T>({kt.cols, dv_ld, rows, blk.p(), 1, kTileK, blk.dout(), dv_ld, dv.data(),
                          dv_ld, true});
            gemm_tile<T>({kt.cols, d_ld, rows, blk.ds(), 1, kTileK, blk.q(), d_ld, dk.data(),
                          d_ld, true});
          }
        }
      }
      store_rows(dk.data(), d_ld, kt.cols, p.head_dim, dk_dst, kt.bk, hk, kt.j0, row_buf.data());
      store_rows(dv.data(), dv_ld, kt.cols, p.head_dim_v, dv_dst, kt.bk, hk, kt.j0,
                 row_buf.data());
    }
  });
}

template <typename T>
void backward_dq(const AttentionParams& p, const RowStats<T>* stats) {
  const std::vector<QTile> tiles = query_tiles_heaviest_first(p);
  const int64_t heads = p.heads_q;
  const RowSource dq_dst{&p.dq, &p.q_side, p.in_dtype};
  parallel_workers(int64_t(tiles.size()) * heads, [&](WorkQueue& queue) {
    BackwardBlock<T> blk(p);
    const int64_t d_ld = blk.d_ld();
    std::vector<T> dq(size_t(kTileQ * d_ld)), row_buf(d_ld);
    for (int64_t item = queue.next(); item >= 0; item = queue.next()) {
      const QTile& t = tiles[size_t(item / heads)];
      const int64_t h = item % heads;
      const int64_t bk = p.kv_batch(t.b), hk = p.kv_head(h);
      const detail::SeqMask mask = sequence_mask(p, t.b);
      const KeyRange keys = key_range(mask, t.i0, t.rows);
      std::fill(dq.begin(), dq.end(), T(0));
      blk.load_query_tile(t.b, h, t.i0, t.rows,
                          stats ? stats->lse_at(p.q_side, h, t.b, t.i0) : nullptr,
                          stats ? stats->delta_at(p.q_side, h, t.b, t.i0) : nullptr);
      for (int64_t j0 = keys.begin; j0 < keys.end; j0 += kTileK) {
        const int64_t cols = std::min(kTileK, keys.end - j0);
        blk.load_key_tile(bk, hk, j0, cols, /*with_k=*/true);
        blk.compute(mask);
        gemm_tile<T>({t.rows, d_ld, cols, blk.ds(), kTileK, 1, blk.k(), d_ld, dq.data(), d_ld,
                      true});
      }
      store_rows(dq.data(), d_ld, t.rows, p.head_dim, dq_dst, t.b, h, t.i0, row_buf.data());
    }
  });
}

template <typename T>
void backward(const AttentionParams& p) {
  RowStats<T> stats;
  const bool softmax = p.activation == Activation::Softmax;
  if (softmax) stats = softmax_row_stats<T>(p);
  backward_dk_dv<T>(p, softmax ? &stats : nullptr);
  backward_dq<T>(p, softmax ? &stats : nullptr);
  // Rows in no sequence get zeros (rows in a sequence that no query sees got zeros above).
  zero_rows(rows_outside_sequences(p.q_side), p.dq, p.q_side, p.in_dtype, p.heads_q,
            p.head_dim);
  const std::vector<int64_t> kv_rows = rows_outside_sequences(p.kv_side);
  zero_rows(kv_rows, p.dk, p.kv_side, p.in_dtype, p.heads_kv, p.head_dim);
  zero_rows(kv_rows, p.dv, p.kv_side, p.in_dtype, p.heads_kv, p.head_dim_v);
}

}  // namespace

void attention_backward(const AttentionParams& p) {
  if (p.in_dtype == DType::Float64) {
    backward<double>(p);
  } else {
    backward<float>(p);
  }
}

}  // namespace amkl::cpu
