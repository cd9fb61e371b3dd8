// A position in a ring of smem stages (cuda/common/pipeline.h): the stage index and the parity
// of the round, as the stage's mbarriers count phases. Host-callable so that its arithmetic is
// tested on any machine (tests/cpp/test_ring_state.cpp).
#pragma once

#include <cstdint>

#include "common/hd.h"

namespace amkl::cuda {

/// Position in a ring of kStages stages: the stage index and the parity of the round.
template <int kStages>
struct RingState {
  static_assert(kStages >= 1, "a ring has at least one stage");
  int index_ = 0;
  uint32_t phase_ = 0;
  AMKL_HD int index() const { return index_; }
  AMKL_HD uint32_t phase() const { return phase_; }
  AMKL_HD void advance() {
    if (++index_ == kStages) {
      index_ = 0;
      phase_ ^= 1u;
    }
  }
  /// The position one advance earlier (the previous stage; across the ring's start, the
  /// previous round's parity). Lets a ring whose position trails another's by one be derived
  /// from it instead of kept in registers of its own.
  AMKL_HD RingState prev() const {
    RingState r;
    r.index_ = index_ == 0 ? kStages - 1 : index_ - 1;
    r.phase_ = index_ == 0 ? phase_ ^ 1u : phase_;
    return r;
  }
  AMKL_HD bool operator==(const RingState& o) const {
    return index_ == o.index_ && phase_ == o.phase_;
  }
};

}  // namespace amkl::cuda
