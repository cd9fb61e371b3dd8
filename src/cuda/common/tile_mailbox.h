// The hand-off of decoded tiles from the Hopper forward's scheduler thread to its loading
// threads and consumer warpgroups (cuda/sm90/fwd_kernel_sm90.h).
#pragma once

#include <cstdint>

#include <cutlass/arch/barrier.h>

namespace amkl::cuda {

/// The scheduler's hand-off of decoded tiles to the loading threads and the consumer
/// warpgroups: a ring of kSlots entries of type Info. The scheduler fills a slot and arrives on
/// `full`; each loading thread and every consumer thread arrive on `empty` when done with the
/// tile (the consumers after their epilogue), so both can peek at the next tile while they
/// finish the current one.
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
