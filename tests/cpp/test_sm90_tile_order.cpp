// The Hopper forward's tile order (TileScheduler::decode; host side: runs on any machine).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>

#include "amkl/error.h"
#include "cuda/common/tile_scheduler.h"
#include "cuda/sm90/fwd_sections.h"
#include "scoped_env.h"

namespace {

using amkl::cuda::TileScheduler;
using amkl::cuda::sm90::kL2SectionBytes;
using amkl::cuda::sm90::kMinSectionPairs;
using amkl::cuda::sm90::l2_section_pairs;

struct Order {
  int m_blocks, heads, batches;
  bool reverse_m;
  int section;
};

// Every tile index decodes to a distinct (m, h, b) in range: the order is a permutation.
void expect_permutation(const TileScheduler& s) {
  std::set<std::tuple<int, int, int>> seen;
  for (int t = 0; t < int(s.total()); ++t) {
    int m = -1, h = -1, b = -1;
    s.decode(t, m, h, b);
    ASSERT_GE(m, 0);
    ASSERT_LT(m, s.num_m_blocks);
    ASSERT_GE(h, 0);
    ASSERT_LT(h, s.heads);
    ASSERT_GE(b, 0);
    ASSERT_LT(b, s.batches);
    ASSERT_TRUE(seen.emplace(m, h, b).second) << "tile " << t << " repeats (" << m << ", " << h
                                              << ", " << b << ")";
  }
  EXPECT_EQ(int64_t(seen.size()), s.total());
}

TEST(Sm90TileOrder, EveryOrderIsAPermutation) {
  const Order orders[] = {
      {5, 3, 2, false, 0}, {5, 3, 2, true, 0}, {4, 16, 8, true, 16}, {7, 3, 5, true, 4},
      {7, 3, 5, true, 1},  {1, 2, 3, true, 2}, {3, 2, 2, true, 100},  {16, 1, 1, true, 1}};
  for (const Order& o : orders) {
    SCOPED_TRACE(testing::Message() << o.m_blocks << " x " << o.heads << " x " << o.batches
                                    << " reverse " << o.reverse_m << " section " << o.section);
    expect_permutation(TileScheduler{o.m_blocks, o.heads, o.batches, o.reverse_m, o.section});
  }
}

TEST(Sm90TileOrder, WithoutSectionsBlocksOfAPairAreNeighbours) {
  const TileScheduler s{4, 3, 2, true, 0};
  for (int t = 0; t < int(s.total()); ++t) {
    int m, h, b;
    s.decode(t, m, h, b);
    EXPECT_EQ(m, 3 - t % 4);  // reverse_m: the last query block first
    EXPECT_EQ(b * 3 + h, t / 4);
  }
}

// Sections of `section` (sequence, head) pairs follow each other; inside one, every pair's
// last query block comes first, then every pair's block before it, and so on (the heaviest
// causal tiles first); the last section holds the pairs left over.
TEST(Sm90TileOrder, SectionsGoHeaviestFirstAcrossTheirPairs) {
  const int M = 5, H = 3, B = 7, G = 4;  // 21 pairs: five sections of 4, one of 1
  const TileScheduler s{M, H, B, true, G};
  int t = 0;
  for (int first = 0; first < H * B; first += G) {
    const int pairs = std::min(G, H * B - first);
    for (int level = 0; level < M; ++level) {
      for (int i = 0; i < pairs; ++i, ++t) {
        int m, h, b;
        s.decode(t, m, h, b);
        EXPECT_EQ(m, M - 1 - level) << "tile " << t;
        EXPECT_EQ(b * H + h, first + i) << "tile " << t;
      }
    }
  }
  EXPECT_EQ(t, int(s.total()));
}

// AMKL_SM90_SECTION_PAIRS unset for each test (set inside one) and restored after.
constexpr char kSectionPairsVar[] = "AMKL_SM90_SECTION_PAIRS";
using SectionEnv = amkl::test::UnsetEnvTest<kSectionPairsVar>;

TEST_F(SectionEnv, PairsThatFitTheL2Share) {
  const int64_t mb = int64_t(1) << 20;
  EXPECT_EQ(l2_section_pairs(128, mb), int(kL2SectionBytes / mb));  // (8,16,2048), d 128
  EXPECT_EQ(l2_section_pairs(64, 2 * mb), int(kL2SectionBytes / (2 * mb)));  // L 4096
  EXPECT_EQ(l2_section_pairs(5, mb), 5);                  // never more than all pairs
  EXPECT_EQ(l2_section_pairs(100, 0), 100);
}

TEST_F(SectionEnv, LongPairsTakeTheMinimumCount) {
  const int64_t mb = int64_t(1) << 20;
  EXPECT_EQ(l2_section_pairs(32, 4 * mb), int(kMinSectionPairs));  // (2,16,8192): 4 would fit
  EXPECT_EQ(l2_section_pairs(16, 8 * mb), int(kMinSectionPairs));  // (1,16,16384): 2 would fit
  EXPECT_EQ(l2_section_pairs(100, 2 * kL2SectionBytes), int(kMinSectionPairs));
  EXPECT_EQ(l2_section_pairs(5, 8 * mb), 5);  // and still never more than all pairs
}

TEST_F(SectionEnv, VariableForcesTheCount) {
  setenv(kVar, "3", 1);
  EXPECT_EQ(l2_section_pairs(128, 1 << 20), 3);
  EXPECT_EQ(l2_section_pairs(2, 1 << 20), 2);
  for (const char* bad : {"0", "-2", "x", "4x", ""}) {
    setenv(kVar, bad, 1);
    EXPECT_THROW(l2_section_pairs(128, 1 << 20), amkl::Error) << "'" << bad << "'";
  }
}

}  // namespace
