// Persistent tile scheduler. A grid of G CTAs (at most one per SM) takes tiles dynamically:
// CTA i starts with tile i, then each next tile is G + atomicAdd(counter, 1), fetched by the
// producer thread one tile ahead (the atomic's round trip overlaps the current tile's loads)
// and handed, decoded, to the consumers through a smem mailbox (TileMailbox). Dynamic assignment keeps the tail
// at most about one tile long when tiles differ in cost (causal masks, jagged lengths); a
// static stride left a 20-35% imbalance (bench/NOTES.md).
//
// Tile order: tile t is query block m of head h of query sequence b with m fastest (CTAs
// running side by side share K/V in L2), then heads (the query heads of one KV head are
// neighbours), then sequences. With reverse_m the last query blocks (the heaviest under a
// causal mask) of each (sequence, head) come first. For variable-length batches the CTAs walk
// a heaviest-first list of these tile indices instead (cuda/sm90/fwd_tile_list.h).
#pragma once

#include <cstdint>

#include <cutlass/arch/barrier.h>

namespace amkl::cuda {

/// Tile indices are 32-bit (the launch checks that the tile count fits): the decode's
/// divisions stay cheap on the producer's path.
struct TileScheduler {
  int num_m_blocks = 0, heads = 0, batches = 0;
  bool reverse_m = false;

  __host__ __device__ __forceinline__ int64_t total() const {
    return int64_t(num_m_blocks) * heads * batches;
  }
  __device__ __forceinline__ void decode(int t, int& m, int& h, int& b) const {
    m = t % num_m_blocks;
    const int hb = t / num_m_blocks;
    h = hb % heads;
    b = hb / heads;
    if (reverse_m) m = num_m_blocks - 1 - m;
  }
};

/// The producer's hand-off of decoded tiles to the consumer warpgroups: a ring of kSlots
/// entries of type Info. The producer fills a slot and arrives on `full`; every consumer thread
/// arrives on `empty` when it is done with the tile (after its epilogue), so the consumers can
/// peek at the next tile while they finish the current one.
template <class Info, int kSlots>
struct TileMailbox {
  static constexpr int kNumSlots = kSlots;
  Info info[kSlots];
  cutlass::arch::ClusterBarrier full[kSlots];
  cutlass::arch::ClusterBarrier empty[kSlots];

  __device__ __forceinline__ void init(uint32_t consumers) {
    for (int i = 0; i < kSlots; ++i) {
      full[i].init(1);
      empty[i].init(consumers);
    }
  }
};

}  // namespace amkl::cuda
