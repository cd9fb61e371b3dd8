// One tile of the Hopper forward (kBlockM query rows of one head of one query sequence, or
// with GQA packing kBlockM / G positions of each of a KV head's G query heads), decoded once
// by the scheduler thread and posted to the consumers through the mailbox: which rows, which
// key blocks the mask allows, and where the sequences start.
#pragma once

#include <cstdint>

#include "common/mask.h"
#include "cuda/common/seqlen_info.h"
#include "cuda/common/tile_scheduler.h"
#include "cuda/sm90/fwd_args.h"
#include "cuda/sm90/fwd_pack_gqa.h"
#include "cuda/sm90/fwd_row_keys.h"

namespace amkl::cuda::sm90 {

struct TileInfo {
  int t = 0;  ///< tile index; >= the tile count: no more tiles
  /// h: the scheduler's head (the query head; packed, the KV head); m0: the first query
  /// position (tile row p is position packed_row_position(m0, p, pack_shift)).
  int m_block = 0, h = 0, b = 0, m0 = 0;
  int bk = 0, start_q = 0, len_q = 0, start_k = 0, len_k = 0;
  int n_block_min = 0, n_block_max = 0;  ///< the key blocks any row of the tile may see
  int full_lo = 0, full_hi = 0;          ///< keys in [full_lo, full_hi) are allowed for every row
  int row0_begin = 0, row0_end = 0;      ///< row m0's key bounds (fwd_row_keys.h)
  bool skip = true;                      ///< no query row of this tile exists

  __device__ __forceinline__ int n_blocks() const { return n_block_max - n_block_min; }
  /// The tile loads Q, K and V (some row exists and sees some key block).
  __device__ __forceinline__ bool has_blocks() const { return !skip && n_block_max > n_block_min; }
};

/// The scheduler that numbers this call's tiles (the same on the host and in the kernels).
__host__ __device__ __forceinline__ TileScheduler tile_scheduler(const FwdArgs& a) {
  return TileScheduler{a.num_m_blocks, a.heads_q >> a.pack_shift, int(a.q_side.batch),
                       a.reverse_m, a.pairs_per_section};
}

/// The mask of the tile's (query, key) sequence pair.
__device__ __forceinline__ detail::SeqMask tile_mask(const FwdArgs& a, const TileInfo& w) {
  return detail::SeqMask(w.len_q, w.len_k, a.bottom_right, a.window_left, a.window_right);
}

/// Clamps a key index bound of the mask to [0, len_k] (the mask's bounds may lie outside).
__device__ __forceinline__ int clamp_key(int64_t j, int len_k) {
  return int(j < 0 ? 0 : (j > len_k ? len_k : j));
}

template <int kBlockM, int kBlockN>
__device__ __forceinline__ TileInfo decode_tile(const FwdArgs& a, const TileScheduler& sched,
                                                int t, int num_tiles) {
  TileInfo w;
  w.t = t;
  if (t >= num_tiles) return w;
  sched.decode(t, w.m_block, w.h, w.b);
  const SeqlenInfo seq(a.q_side, a.kv_side, a.q_to_kv, w.b);
  w.bk = seq.bk;
  w.start_q = seq.start_q;
  w.len_q = seq.len_q;
  w.start_k = seq.start_k;
  w.len_k = seq.len_k;
  const int positions = packed_tile_positions(kBlockM, a.pack_shift);
  w.m0 = w.m_block * positions;
  if (w.m0 >= seq.len_q) return w;
  w.skip = false;
  const detail::SeqMask mask = tile_mask(a, w);
  const int m_last = min(w.m0 + positions, seq.len_q) - 1;
  const int key_lo = clamp_key(mask.key_begin(w.m0), seq.len_k);
  const int key_hi = clamp_key(mask.key_end(m_last), seq.len_k);
  w.n_block_min = key_lo / kBlockN;
  w.n_block_max = key_hi > key_lo ? (key_hi + kBlockN - 1) / kBlockN : w.n_block_min;
  w.full_lo = clamp_key(mask.key_begin(m_last), seq.len_k);
  w.full_hi = clamp_key(mask.key_end(w.m0), seq.len_k);
  static_assert(kBlockM <= kRowSpan, "a tile's rows must lie within kRowSpan of its first");
  const TileKeyBounds bounds = tile_key_bounds(mask, w.m0);
  w.row0_begin = bounds.begin0;
  w.row0_end = bounds.end0;
  return w;
}

}  // namespace amkl::cuda::sm90
