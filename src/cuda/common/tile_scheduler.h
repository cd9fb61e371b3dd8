// Persistent tile scheduler. A grid of G CTAs (at most one per SM) takes tiles dynamically:
// CTA i starts with tile i, then each next tile is G + atomicAdd(counter, 1), fetched by the
// producer thread when it has issued every load of its current tile and handed to the
// consumers through a 2-slot smem mailbox (TileMailbox). Dynamic assignment keeps the tail
// at most about one tile long when tiles differ in cost (causal masks, jagged lengths); a
// static stride left a 20-35% imbalance (bench/NOTES.md).
//
// Tile order: tile t is query block m of head h of query sequence b with m fastest (CTAs
// running side by side share K/V in L2), then heads (the query heads of one KV head are
// neighbours), then sequences. With reverse_m the last query blocks (the heaviest under a
// causal mask) of each (sequence, head) come first.
#pragma once

#include <cstdint>

#include <cutlass/arch/barrier.h>

namespace amkl::cuda {

struct TileScheduler {
  int num_m_blocks = 0, heads = 0, batches = 0;
  bool reverse_m = false;

  __host__ __device__ __forceinline__ int64_t total() const {
    return int64_t(num_m_blocks) * heads * batches;
  }
  __device__ __forceinline__ void decode(int64_t t, int& m, int& h, int& b) const {
    m = int(t % num_m_blocks);
    const int64_t hb = t / num_m_blocks;
    h = int(hb % heads);
    b = int(hb / heads);
    if (reverse_m) m = num_m_blocks - 1 - m;
  }
};

/// The producer's hand-off of tile indices to the consumer warpgroups (two slots).
struct TileMailbox {
  int64_t tile[2];
  cutlass::arch::ClusterBarrier full[2];
  cutlass::arch::ClusterBarrier empty[2];

  __device__ __forceinline__ void init(uint32_t consumers) {
    for (int i = 0; i < 2; ++i) {
      full[i].init(1);
      empty[i].init(consumers);
    }
  }
};

}  // namespace amkl::cuda
