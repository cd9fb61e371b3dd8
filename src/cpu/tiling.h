// How the CPU backend cuts attention into tiles: tile sizes, the list of query tiles of a
// call, and the mask restricted to one (query tile, key tile) block.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/attention_params.h"
#include "common/mask.h"

namespace amkl::cpu {

/// Query rows per tile (a multiple of the 6-row micro-kernel) and keys per tile (a multiple
/// of the 16-float column block). Query tiles are tall because K and V are re-read once per
/// query tile, and strided rows stream from beyond L2 at only a few GB/s here (measured:
/// 384 rows beat 96, 192 and 768 on a 2-core EPYC; the working set then just exceeds L2).
constexpr int64_t kTileQ = 384;
constexpr int64_t kTileK = 64;

/// A run of query rows [i0, i0 + rows) of query sequence b.
struct QTile {
  int64_t b = 0, i0 = 0, rows = 0;
};

/// Every query tile of the call, sequence by sequence (empty sequences have none).
inline std::vector<QTile> query_tiles(const detail::SeqSide& q) {
  std::vector<QTile> tiles;
  for (int64_t b = 0; b < q.batch; ++b) {
    const int64_t len = q.len(b);
    for (int64_t i0 = 0; i0 < len; i0 += kTileQ) tiles.push_back({b, i0, std::min(kTileQ, len - i0)});
  }
  return tiles;
}

/// The mask of query sequence b against its key sequence.
inline detail::SeqMask sequence_mask(const detail::AttentionParams& p, int64_t b) {
  return detail::SeqMask(p.q_side.len(b), p.kv_side.len(p.kv_batch(b)),
                         p.mask_align == MaskAlign::BottomRight, p.window_left, p.window_right);
}

/// Keys [begin, end) that any row of [i0, i0 + rows) may see (begin >= end: none). Exact,
/// because key_begin and key_end are non-decreasing in the row.
struct KeyRange {
  int64_t begin = 0, end = 0;
};
inline KeyRange key_range(const detail::SeqMask& m, int64_t i0, int64_t rows) {
  return {m.key_begin(i0), m.key_end(i0 + rows - 1)};
}

/// Rows [lo, hi) of the query tile [i0, i0 + rows) (tile-relative) that see any key of
/// [j0, j0 + cols): a contiguous run, since key_begin and key_end are non-decreasing. Causal
/// and window tiles run their products on these rows only.
struct RowRange {
  int64_t lo = 0, hi = 0;
};
inline RowRange rows_seeing(const detail::SeqMask& m, int64_t i0, int64_t rows, int64_t j0,
                            int64_t cols) {
  RowRange r{0, rows};
  while (r.lo < r.hi && m.key_end(i0 + r.lo) <= j0) ++r.lo;
  while (r.hi > r.lo && m.key_begin(i0 + r.hi - 1) >= j0 + cols) --r.hi;
  return r;
}

/// Allowed columns [lo, hi) of query row i within the key tile [j0, j0 + cols).
struct ColRange {
  int64_t lo = 0, hi = 0;
};
inline ColRange allowed_cols(const detail::SeqMask& m, int64_t i, int64_t j0, int64_t cols) {
  const int64_t lo = std::clamp<int64_t>(m.key_begin(i) - j0, 0, cols);
  const int64_t hi = std::clamp<int64_t>(m.key_end(i) - j0, lo, cols);
  return {lo, hi};
}

/// query_tiles sorted by the number of keys they may see, largest first, so that the long
/// items of causal or ragged problems start early and the threads finish together.
inline std::vector<QTile> query_tiles_heaviest_first(const detail::AttentionParams& p) {
  std::vector<QTile> tiles = query_tiles(p.q_side);
  auto keys = [&](const QTile& t) {
    const KeyRange r = key_range(sequence_mask(p, t.b), t.i0, t.rows);
    return std::max<int64_t>(r.end - r.begin, 0);
  };
  std::stable_sort(tiles.begin(), tiles.end(),
                   [&](const QTile& a, const QTile& b) { return keys(a) > keys(b); });
  return tiles;
}

}  // namespace amkl::cpu
