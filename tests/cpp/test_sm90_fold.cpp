// The plain Hopper forward's folded causal order (fwd_fold.h; host side, runs on any machine):
// the units cover every tile exactly once, pair query block j with M - 1 - j of the same
// (sequence, head) and cost alike, and the choice is taken only where the kernel supports it
// and it was measured to pay.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "cuda/sm90/fwd_fold.h"
#include "scoped_env.h"

namespace {

using namespace amkl::cuda::sm90;

TEST(Fold, UnitsCoverEveryTileOnceLightFirst) {
  for (int m_blocks : {2, 3, 4, 5, 8, 16, 17}) {
    const int pairs = 7;
    const int tiles = m_blocks * pairs;
    const int units = int(fold_units(m_blocks, pairs));
    EXPECT_EQ(units, (m_blocks + 1) / 2 * pairs);
    std::vector<int> seen(size_t(tiles), 0);
    for (int u = 0; u < units; ++u) {
      const FoldUnit fu = fold_unit(u, m_blocks);
      ASSERT_GE(fu.light, 0);
      ASSERT_LT(fu.light, tiles);
      ++seen[size_t(fu.light)];
      const int pair = fu.light / m_blocks, j = fu.light % m_blocks;
      EXPECT_EQ(pair, u / ((m_blocks + 1) / 2)) << "units of one pair are neighbours";
      if (fu.heavy < 0) {
        // Only the middle block of an odd count stands alone.
        EXPECT_EQ(m_blocks % 2, 1);
        EXPECT_EQ(j, m_blocks / 2);
        continue;
      }
      ASSERT_LT(fu.heavy, tiles);
      ++seen[size_t(fu.heavy)];
      EXPECT_EQ(fu.heavy / m_blocks, pair) << "both tiles of one (sequence, head)";
      EXPECT_EQ(fu.heavy % m_blocks, m_blocks - 1 - j) << "block j with M - 1 - j";
      EXPECT_LT(j, m_blocks - 1 - j) << "the light tile first";
      // Under a causal mask with L_q = L_k tile m sees m + 1 key blocks: every unit M + 1.
      EXPECT_EQ((j + 1) + (m_blocks - j), m_blocks + 1);
    }
    for (int t = 0; t < tiles; ++t) EXPECT_EQ(seen[size_t(t)], 1) << "tile " << t;
  }
}

constexpr char kFoldVar[] = "AMKL_SM90_FOLD";
class FoldEnv : public amkl::test::UnsetEnvTest<kFoldVar> {
 protected:
  // A plain causal call with 8 query blocks per pair, two consumer warpgroups, no GQA, d 128.
  static FoldCall causal() { return FoldCall{true, true, false, 8, 2, false, 128, 128}; }
};

TEST_F(FoldEnv, TakenForPlainCausalCallsOfEightBlocksOrMore) {
  EXPECT_TRUE(runs_fold(causal()));
  FoldCall c = causal();
  c.num_m_blocks = 9;  // odd: the middle block alone
  EXPECT_TRUE(runs_fold(c));
  c.num_m_blocks = kFoldMinBlocks - 1;  // short rows lost with it
  EXPECT_FALSE(runs_fold(c));
  c = causal();
  c.gqa = true;  // and so did GQA
  EXPECT_FALSE(runs_fold(c));
  c = causal();
  c.head_dim = c.head_dim_v = 64;  // not measured
  EXPECT_FALSE(runs_fold(c));
  c.head_dim = 192;
  EXPECT_FALSE(runs_fold(c));
}

TEST_F(FoldEnv, NotWhereItCannotRunOrGainsNothing) {
  FoldCall c = causal();
  c.plain = false;  // the full kernel keeps the longest-first order
  EXPECT_FALSE(runs_fold(c));
  c = causal();
  c.reverse_m = false;  // no causal mask or right window: the tiles cost alike
  EXPECT_FALSE(runs_fold(c));
  c = causal();
  c.tile_list = true;  // variable lengths: the heaviest-first list
  EXPECT_FALSE(runs_fold(c));
  c = causal();
  c.num_m_blocks = 1;  // nothing to pair
  EXPECT_FALSE(runs_fold(c));
  c = causal();
  c.warpgroups = 3;  // V's ring position derived from K's
  EXPECT_FALSE(runs_fold(c));
}

TEST_F(FoldEnv, EnvironmentTurnsItOff) {
  setenv(kVar, "0", 1);
  EXPECT_FALSE(runs_fold(causal()));
  setenv(kVar, "1", 1);
  EXPECT_TRUE(runs_fold(causal()));
  FoldCall c = causal();
  c.num_m_blocks = 2;  // forced on: wherever the kernel can fold
  c.gqa = true;
  c.head_dim = c.head_dim_v = 64;
  EXPECT_TRUE(runs_fold(c));
  c.num_m_blocks = 1;
  EXPECT_FALSE(runs_fold(c));
  c = causal();
  c.plain = false;  // forcing it on does not make a call foldable
  EXPECT_FALSE(runs_fold(c));
  setenv(kVar, "yes", 1);
  EXPECT_THROW(runs_fold(causal()), amkl::Error);
}

}  // namespace
