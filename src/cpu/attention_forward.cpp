// CPU attention forward: (query tile, head) items, heaviest first, on the worker threads;
// each item owns its out rows and LSE entries, so the result does not depend on the schedule.
#include <algorithm>
#include <limits>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/forward_tile.h"
#include "cpu/parallel.h"
#include "cpu/tile_io.h"
#include "cpu/tiling.h"

namespace amkl::cpu {
namespace {

using detail::AttentionParams;

/// Rows outside every query sequence: out = 0, lse = -inf (as for a row without keys).
void write_rows_outside_sequences(const AttentionParams& p) {
  const std::vector<int64_t> rows = rows_outside_sequences(p.q_side);
  if (rows.empty()) return;
  zero_rows(rows, p.out, p.q_side, p.out_dtype, p.heads_q, p.head_dim_v);
  if (!p.lse) return;
  for (int64_t r : rows) {
    // r is b * L + i (dense) or the absolute row (jagged: lse_batch_stride is 0).
    const int64_t b = p.q_side.jagged ? 0 : r / p.q_side.dense_len;
    const int64_t row = p.q_side.jagged ? r : r % p.q_side.dense_len;
    for (int64_t h = 0; h < p.heads_q; ++h) {
      p.lse[b * p.lse_batch_stride + h * p.lse_head_stride + row * p.lse_row_stride] =
          -std::numeric_limits<float>::infinity();
    }
  }
}

template <typename T>
void forward(const AttentionParams& p) {
  const std::vector<QTile> tiles = query_tiles_heaviest_first(p);
  const int64_t heads = p.heads_q;
  parallel_workers(int64_t(tiles.size()) * heads, [&](WorkQueue& queue) {
    ForwardTile<T> tile(p);
    std::vector<T> lse(kTileQ);
    for (int64_t item = queue.next(); item >= 0; item = queue.next()) {
      const QTile& t = tiles[size_t(item / heads)];
      const int64_t h = item % heads;
      tile.run(t.b, h, t.i0, t.rows, /*write_out=*/true, p.lse ? lse.data() : nullptr);
      if (!p.lse) continue;
      for (int64_t r = 0; r < t.rows; ++r) *lse_entry(p, t.b, h, t.i0 + r) = float(lse[r]);
    }
  });
  write_rows_outside_sequences(p);
}

}  // namespace

void attention_forward(const AttentionParams& p) {
  if (p.in_dtype == DType::Float64) {
    forward<double>(p);
  } else {
    forward<float>(p);
  }
}

}  // namespace amkl::cpu
