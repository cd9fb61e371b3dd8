// The smem ring between the producer warp (TMA loads) and the consumer warpgroups (WGMMA).
// Each stage has a "full" barrier (the producer arms it with the bytes it expects; TMA's
// completion flips it) and an "empty" barrier (the consumers arrive when they are done reading
// the stage: every consumer thread, or one per warpgroup, as the ring's init says). Phases
// follow the mbarrier parity rule: a fresh barrier's "previous" phase (parity 1) counts as
// completed, so the producer's first pass over the ring never waits.
#pragma once

#include <cstdint>

#include <cutlass/arch/barrier.h>

#include "cuda/common/ring_state.h"

namespace amkl::cuda {

/// Full/empty barrier pairs for one ring of smem stages.
template <int kStages>
struct RingBarriers {
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  Barrier full[kStages];
  Barrier empty[kStages];

  /// Called by one thread before the CTA-wide sync that publishes the barriers.
  __device__ __forceinline__ void init(uint32_t consumer_arrivals) {
    for (int s = 0; s < kStages; ++s) {
      full[s].init(1);
      empty[s].init(consumer_arrivals);
    }
  }
  // Producer side.
  __device__ __forceinline__ void producer_acquire(RingState<kStages> st) {
    empty[st.index()].wait(st.phase() ^ 1u);
  }
  /// Arms the full barrier for `bytes`; returns the barrier the TMA copy must signal.
  __device__ __forceinline__ uint64_t& producer_expect(RingState<kStages> st, uint32_t bytes) {
    full[st.index()].arrive_and_expect_tx(bytes);
    return reinterpret_cast<uint64_t&>(full[st.index()]);
  }
  // Consumer side.
  __device__ __forceinline__ void consumer_wait(RingState<kStages> st) {
    full[st.index()].wait(st.phase());
  }
  __device__ __forceinline__ void consumer_release(RingState<kStages> st) {
    consumer_release_stage(st.index());
  }
  __device__ __forceinline__ void consumer_release_stage(int index) { empty[index].arrive(); }
};

}  // namespace amkl::cuda
