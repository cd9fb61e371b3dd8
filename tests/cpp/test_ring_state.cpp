// RingState (cuda/common/ring_state.h): the ring positions of the Hopper forward's smem stages,
// and the trailing V position the kernel derives from the K position (host side).
#include <gtest/gtest.h>

#include <vector>

#include "cuda/common/ring_state.h"

namespace {

using amkl::cuda::RingState;

template <int kStages>
void expect_prev_undoes_advance() {
  RingState<kStages> s;
  for (int step = 0; step < 5 * kStages; ++step) {
    RingState<kStages> next = s;
    next.advance();
    EXPECT_EQ(next.prev(), s) << "stages " << kStages << ", step " << step;
    EXPECT_EQ(next.index(), (step + 1) % kStages);
    EXPECT_EQ(next.phase(), uint32_t((step + 1) / kStages % 2));
    s = next;
  }
}

TEST(RingState, PrevUndoesAdvance) {
  expect_prev_undoes_advance<1>();
  expect_prev_undoes_advance<2>();
  expect_prev_undoes_advance<3>();
  expect_prev_undoes_advance<4>();
}

// The consumers' order (fwd_kernel_sm90.h): per tile with n key blocks, S(first) then, for each
// further block, S(n) before P V(n - 1), and the tile's last P V at its end; K advances after
// each S's block is done with, V after each P V. Where the two rings have as many stages, the
// kernel takes V's position as K's prev() instead of keeping its own: check that they agree at
// every P V, over tiles of 0, 1 and several blocks in a row.
template <int kStages>
void expect_v_trails_k(const std::vector<int>& tile_blocks) {
  RingState<kStages> k, v;
  for (int blocks : tile_blocks) {
    if (blocks == 0) continue;  // a tile without keys loads and issues nothing
    k.advance();                // the first block: S only
    for (int n = 1; n < blocks; ++n) {
      EXPECT_EQ(k.prev(), v) << "P V inside a tile of " << blocks << " blocks";
      v.advance();
      k.advance();
    }
    EXPECT_EQ(k.prev(), v) << "the last P V of a tile of " << blocks << " blocks";
    v.advance();
    EXPECT_EQ(k, v) << "between tiles";
  }
}

// The producer's order: K(n), then V(n), for every key block (the Q ring's loads may come in
// between, never another K or V load). With as many stages, one position serves both rings:
// V(n) uses K(n)'s position, and only V's load advances it. Check it against separate
// positions at every load.
template <int kStages>
void expect_shared_position(const std::vector<int>& tile_blocks) {
  RingState<kStages> k, v, shared;
  for (int blocks : tile_blocks) {
    for (int n = 0; n < blocks; ++n) {
      EXPECT_EQ(shared, k) << "K load of a tile of " << blocks << " blocks";
      k.advance();  // load_k: its own position advances
      EXPECT_EQ(shared, v) << "V load of a tile of " << blocks << " blocks";
      v.advance();
      shared.advance();  // load_v: the shared position advances only here
    }
  }
}

TEST(RingState, ProducerSharesOnePosition) {
  const std::vector<int> tiles = {1, 2, 0, 3, 1, 7, 0, 16, 5};
  expect_shared_position<2>(tiles);
  expect_shared_position<3>(tiles);
}

TEST(RingState, ConsumerVTrailsK) {
  const std::vector<int> tiles = {1, 2, 0, 3, 1, 1, 7, 0, 0, 2, 16, 5, 1};
  expect_v_trails_k<2>(tiles);
  expect_v_trails_k<3>(tiles);
  expect_v_trails_k<4>(tiles);
}

}  // namespace
