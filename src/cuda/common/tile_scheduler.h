// Persistent tile scheduler. A grid of G CTAs (at most one per SM) takes tiles dynamically:
// CTA i starts with tile i, then each next tile is G + a ticket (draw_ticket: an atomic
// increment of one counter), drawn by a scheduler thread once the smem mailbox (TileMailbox)
// that hands the decoded tiles to the loads and the consumers has a free slot for it, so the
// slots bound how many tiles a CTA holds ahead. Dynamic assignment keeps the tail at most a
// few tiles long when tiles differ in cost (causal masks, jagged lengths); a static stride
// left a 20-35% imbalance (bench/NOTES.md).
//
// Tile order: tile t is query block m of head h of query sequence b with m fastest (CTAs
// running side by side share K/V in L2), then heads (the query heads of one KV head are
// neighbours), then sequences. With reverse_m the last query blocks (the heaviest under a
// causal mask) of each (sequence, head) come first; with sections as well, the (sequence,
// head) pairs are taken in sections of `section` pairs whose K and V fit in L2 together, and
// within a section the query blocks go heaviest first across all its pairs (the last block
// of every pair, then the one before, ...), so the tiles left at the end of the call are the
// lightest ones (longest-first). For variable-length batches the CTAs walk a heaviest-first
// list of these tile indices instead (cuda/sm90/fwd_tile_list.h).
#pragma once

#include <cstdint>

#include "common/hd.h"

namespace amkl::cuda {

#if defined(__CUDACC__)
/// The next ticket from the scheduler's counter (returns the old value; the counter goes up
/// by one). An atomic increment (wrapping only past 2^31 - 1, never reached) rather than an
/// add: ptxas aggregates an add over the warp, one lane's atomic and a shuffle of its result
/// right behind it, so the thread waited for the atomic's round trip there even where the
/// ticket is read only at the next tile (bench/NOTES.md step 57). Here the wait falls at the
/// ticket's first use.
__device__ __forceinline__ int draw_ticket(int* counter) {
  unsigned ticket;
  asm volatile("atom.relaxed.gpu.global.inc.u32 %0, [%1], %2;"
               : "=r"(ticket)
               : "l"(counter), "r"(0x7fffffffu)
               : "memory");
  return int(ticket);
}
#endif

/// Tile indices are 32-bit (the launch checks that the tile count fits): the decode's
/// divisions stay cheap on the producer's path.
struct TileScheduler {
  int num_m_blocks = 0, heads = 0, batches = 0;
  bool reverse_m = false;
  int section = 0;  ///< (sequence, head) pairs per section (reverse_m only); 0: no sections

  AMKL_HD int64_t total() const {
    return int64_t(num_m_blocks) * heads * batches;
  }
  AMKL_HD void decode(int t, int& m, int& h, int& b) const {
    int hb;
    if (section > 0) {
      const int per_section = section * num_m_blocks;  // <= the tile count: 32 bits
      const int s = t / per_section;
      const int r = t - s * per_section;
      const int left = heads * batches - s * section;
      const int pairs = left < section ? left : section;  // the last section may be short
      const int level = r / pairs;  // 0: every pair's last query block
      hb = s * section + (r - level * pairs);
      m = num_m_blocks - 1 - level;
    } else {
      m = t % num_m_blocks;
      hb = t / num_m_blocks;
      if (reverse_m) m = num_m_blocks - 1 - m;
    }
    h = hb % heads;
    b = hb / heads;
  }
};

}  // namespace amkl::cuda
