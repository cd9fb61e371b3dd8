// The folded tile order of the plain Hopper forward under a causal mask (or a right window):
// query blocks j and M - 1 - j of one (sequence, head) form a unit that one CTA takes, the
// light block first, then the heavy one. Every unit costs about M + 1 key blocks, so the
// units need no longest-first order, and the units of one (sequence, head) are neighbours
// (their K and V shared in L2 by the CTAs running them). Measured against the longest-first
// sections (H100, bench/NOTES.md step 40): +4..+11% at causal (8,16,2048), +3.5% at
// (2,16,8192), +3% at (16,16,1024), but -1.5..-2% at (32,16,512) and -1.6% with GQA (32 / 8
// heads, L = 4096), all bf16 with d = 128; so it runs by default where it was measured to
// gain: d = 128, from 8 query blocks up, without GQA. (Until step 40 the light tile also
// walked its keys downwards and left block 0's K and V stages to the heavy tile: a fifth
// fewer K / V loads at M = 4, yet 1.3-2% slower than this order alone at 512 and 1024 keys
// and no faster at 2048.)
// Host and device (the CPU tests cover the numbering and the choice).
#pragma once

#include <atomic>
#include <cstdint>

#include "common/hd.h"
#include "cuda/sm90/fwd_env.h"

namespace amkl::cuda::sm90 {

/// The two tiles of unit `u` as TileScheduler's unsectioned, forward indices (m fastest, then
/// (sequence, head) pairs): `light` = query block j, `heavy` = block M - 1 - j, or -1 where
/// the unit is the middle block of an odd M (one tile).
struct FoldUnit {
  int light = 0, heavy = -1;
};

/// Units per (sequence, head) pair: ceil(M / 2).
AMKL_HD int fold_units_per_pair(int num_m_blocks) { return (num_m_blocks + 1) / 2; }

/// Units in a call of `pairs` (sequence, head) pairs. Units of one pair are neighbours (they
/// share K and V in L2 while CTAs run them side by side).
AMKL_HD int64_t fold_units(int num_m_blocks, int64_t pairs) {
  return int64_t(fold_units_per_pair(num_m_blocks)) * pairs;
}

AMKL_HD FoldUnit fold_unit(int u, int num_m_blocks) {
  const int per_pair = fold_units_per_pair(num_m_blocks);
  const int pair = u / per_pair, j = u - pair * per_pair;
  const int base = pair * num_m_blocks;
  const int heavy = num_m_blocks - 1 - j;
  return FoldUnit{base + j, heavy != j ? base + heavy : -1};
}

/// The call's properties the choice reads (host).
struct FoldCall {
  bool plain = false;      ///< runs the plain kernel (fwd_plain.h)
  bool reverse_m = false;  ///< tiles differ in cost along m (causal or a right window)
  bool tile_list = false;  ///< variable lengths: the CTAs walk a tile list instead
  int num_m_blocks = 0;    ///< query blocks per (sequence, head)
  int warpgroups = 0;      ///< consumer warpgroups of the kernel
  bool gqa = false;        ///< fewer KV heads than query heads
  int head_dim = 0, head_dim_v = 0;
};

/// The fewest query blocks per (sequence, head) that fold by default (at 4 the folded order
/// lost 1.5-2%, at 8 it gained 3%).
constexpr int kFoldMinBlocks = 8;
/// The head dims (d = d_v) it was measured on; other head dims fold only when forced.
constexpr int kFoldHeadDim = 128;

/// True where the folded order runs: the plain kernel with two consumer warpgroups (the only
/// kernels whose scheduler thread has the folded loop), tiles that differ along m without a
/// tile list, and by default d = d_v = kFoldHeadDim, at least
/// kFoldMinBlocks query blocks and no GQA. The environment variable AMKL_SM90_FOLD=0 turns it
/// off; 1 folds wherever the kernel can (two query blocks or more, any head dims, GQA too: the
/// GPU tests fold small problems so); other values are an error.
inline bool runs_fold(const FoldCall& c) {
  const int force = forced_switch("AMKL_SM90_FOLD");
  const bool can = c.plain && c.reverse_m && !c.tile_list && c.num_m_blocks >= 2 &&
                   c.warpgroups == 2;
  if (force == 1) return can;
  return force != 0 && can && c.num_m_blocks >= kFoldMinBlocks && !c.gqa &&
         c.head_dim == kFoldHeadDim && c.head_dim_v == kFoldHeadDim;
}

/// Launches of this process that ran the folded order: the GPU tests check with it that the
/// cases meant to fold did.
inline std::atomic<int64_t>& fold_launches() {
  static std::atomic<int64_t> count{0};
  return count;
}

}  // namespace amkl::cuda::sm90
