// GQA packing for the Hopper forward: the query heads of one KV head share a tile. A tile then
// holds kBlockM / G query positions of each of the G = H / H_kv heads, interleaved: tile row p
// is position m0 + (p >> s) of query head h_kv * G + (p & (G - 1)), with s = log2 G (the
// pack shift; 0: unpacked, a tile is kBlockM positions of one query head). Q reaches smem in
// that order through one 4-D TMA box per 64 columns, (64 columns, G heads, kBlockM / G
// positions, 1 batch): the box's rows land in smem in the order (position, head), which is
// the row order above, and the 128-byte swizzle is a function of the smem address only, so
// the WGMMA reads the same layout as from the unpacked 2-D box.
//
// Where it pays: calls whose query sequences are shorter than a tile. Unpacked, each of the G
// heads takes its own tile, mostly rows past the sequence's end, and streams the same K and V
// again; packed, one tile serves G heads. Longer sequences leave only their last tile partly
// empty, and packing them saves a few percent of the tiles at most while it turns off O's TMA
// stores (+1-4%, bench/NOTES.md step 13): not packed until measured.
// Host and device, no CUDA dependencies (the CPU tests cover the choice and the row map).
#pragma once

#include <cstdint>

#include "common/hd.h"
#include "cuda/sm90/fwd_env.h"

namespace amkl::cuda::sm90 {

/// Query position (within its sequence) of tile row `row`, for a tile whose first position is
/// m0.
AMKL_HD int packed_row_position(int m0, int row, int pack_shift) {
  return m0 + (row >> pack_shift);
}

/// Query head of tile row `row`, for a tile of scheduler head `h` (the query head unpacked,
/// the KV head packed).
AMKL_HD int packed_row_head(int h, int row, int pack_shift) {
  return (h << pack_shift) + (row & ((1 << pack_shift) - 1));
}

/// The KV head of a tile of scheduler head `h` (group = H / H_kv).
AMKL_HD int packed_tile_kv_head(int h, int group, int pack_shift) {
  return pack_shift > 0 ? h : h / group;
}

/// Query positions per tile.
AMKL_HD int packed_tile_positions(int block_m, int pack_shift) {
  return block_m >> pack_shift;
}

/// log2 of a power of two x (x >= 1), else -1.
inline int exact_log2(int64_t x) {
  if (x < 1 || (x & (x - 1)) != 0) return -1;
  int s = 0;
  while ((int64_t(1) << s) < x) ++s;
  return s;
}

/// The pack shift for a forward call: log2 G where packing is possible and pays, else 0.
///   possible: G = H / H_kv a power of two from 2 to block_m (a tile holds whole groups), and
///     q's heads TMA-addressable as a box of G (q_heads_tma: a nonzero head stride, heads not
///     collapsed);
///   pays: query sequences shorter than a tile (max_len_q < block_m), where packed a (sequence,
///     KV head) takes fewer tiles, ceil(L_q G / block_m), than the G unpacked ones (L_q = 100,
///     G = 4: 4 and 4, not packed).
/// AMKL_SM90_PACK_GQA=1 packs wherever possible, =0 never (the GPU tests run every case with
/// each; measurements); other values of the variable are an error for every call. Only the
/// two-warpgroup kernels pack (FwdConfig::kPacksGqa); the launch asks only for those.
inline int pack_shift_for(int64_t heads_q, int64_t heads_kv, int64_t max_len_q, int block_m,
                          bool q_heads_tma) {
  const int force = forced_switch("AMKL_SM90_PACK_GQA");
  if (heads_kv < 1 || heads_q % heads_kv != 0) return 0;
  const int64_t group = heads_q / heads_kv;
  const int shift = exact_log2(group);
  if (shift < 1 || group > block_m || block_m % group != 0 || !q_heads_tma || force == 0) {
    return 0;
  }
  if (force == 1) return shift;
  if (max_len_q >= block_m) return 0;
  const int64_t packed = (max_len_q * group + block_m - 1) / block_m;
  return packed < group ? shift : 0;
}

}  // namespace amkl::cuda::sm90
