// GQA packing of the Hopper forward (host side: runs on any machine): when it is chosen, and
// that the packed tiles' rows cover every (query head, position) exactly once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cuda/sm90/fwd_pack_gqa.h"
#include "scoped_env.h"

namespace {

using namespace amkl::cuda::sm90;

// AMKL_SM90_PACK_GQA unset for each test (set inside one) and restored after.
constexpr char kPackGqaVar[] = "AMKL_SM90_PACK_GQA";
using PackGqaEnv = amkl::test::UnsetEnvTest<kPackGqaVar>;

TEST_F(PackGqaEnv, PacksShortQueriesWhereItTakesFewerTiles) {
  // (H, H_kv, max L_q, kBlockM) -> pack shift
  EXPECT_EQ(pack_shift_for(8, 1, 1, 128, true), 3);     // decode-like: one tile, not eight
  EXPECT_EQ(pack_shift_for(32, 8, 16, 128, true), 2);   // 4 heads x 16 rows in one tile
  EXPECT_EQ(pack_shift_for(4, 2, 64, 128, true), 1);    // 2 x 64 rows: one tile, not two
  EXPECT_EQ(pack_shift_for(4, 2, 65, 128, true), 0);    // two tiles either way
  EXPECT_EQ(pack_shift_for(8, 2, 100, 128, true), 0);   // 4 x 100 rows: four tiles either way
  EXPECT_EQ(pack_shift_for(8, 2, 127, 128, true), 0);
  EXPECT_EQ(pack_shift_for(4, 1, 20, 192, true), 2);    // three warpgroups: 48 positions a tile
  // A tile or longer: not packed, even where it would take a few tiles fewer (L_q = 4000,
  // G = 8: 250 against 256), since packing turns off O's TMA stores (unmeasured trade).
  EXPECT_EQ(pack_shift_for(8, 1, 128, 128, true), 0);
  EXPECT_EQ(pack_shift_for(8, 1, 4000, 128, true), 0);
  EXPECT_EQ(pack_shift_for(8, 2, 4096, 128, true), 0);
}

TEST_F(PackGqaEnv, OnlyWherePossible) {
  EXPECT_EQ(pack_shift_for(8, 8, 1, 128, true), 0);     // no groups
  EXPECT_EQ(pack_shift_for(6, 2, 1, 128, true), 0);     // G = 3: not a power of two
  EXPECT_EQ(pack_shift_for(256, 1, 1, 128, true), 0);   // G above the tile
  EXPECT_EQ(pack_shift_for(128, 1, 1, 128, true), 7);   // G = the tile: one position a tile
  EXPECT_EQ(pack_shift_for(8, 1, 1, 128, false), 0);    // q's heads not a TMA dimension
  EXPECT_EQ(pack_shift_for(8, 3, 1, 128, true), 0);     // H % H_kv != 0 (rejected earlier)
}

TEST_F(PackGqaEnv, VariableForcesEitherChoice) {
  setenv(kVar, "1", 1);
  EXPECT_EQ(pack_shift_for(8, 2, 4096, 128, true), 2);  // possible: packed even where no gain
  EXPECT_EQ(pack_shift_for(8, 8, 1, 128, true), 0);     // impossible stays unpacked
  EXPECT_EQ(pack_shift_for(8, 1, 1, 128, false), 0);
  setenv(kVar, "0", 1);
  EXPECT_EQ(pack_shift_for(8, 1, 1, 128, true), 0);
  setenv(kVar, "", 1);  // empty: as if unset
  EXPECT_EQ(pack_shift_for(8, 1, 1, 128, true), 3);
}

TEST_F(PackGqaEnv, OtherValuesAreRejected) {
  for (const char* bad : {"2", "yes", " 1"}) {
    setenv(kVar, bad, 1);
    try {
      pack_shift_for(8, 1, 1, 128, true);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const amkl::Error& e) {
      EXPECT_EQ(e.kind(), amkl::ErrorKind::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("AMKL_SM90_PACK_GQA"), std::string::npos);
    }
  }
}

// Every (query head, position) of a sequence is the row of exactly one tile, with the KV head
// of its group, for every group size a tile allows and lengths around the tile boundaries;
// unpacked (shift 0) the map is the identity of the unpacked kernel. And the row map is the
// order in which the Q load's 4-D box (64 columns, G heads, kBlockM / G positions) fills the
// tile: its element (position r, head g) lands in row r * G + g.
TEST(PackGqaRows, CoverEveryHeadAndPositionOnce) {
  for (int block_m : {128, 192}) {
    for (int shift = 0; (1 << shift) <= block_m; ++shift) {
      const int group = 1 << shift;
      if (block_m % group != 0) continue;
      const int heads_kv = 3, heads_q = heads_kv * group;
      const int positions = packed_tile_positions(block_m, shift);
      ASSERT_EQ(positions * group, block_m);
      for (int r = 0; r < positions; ++r) {  // the box's order: heads fastest, then positions
        for (int g = 0; g < group; ++g) {
          const int row = r * group + g, m0 = 5 * positions, hk = 2;
          ASSERT_EQ(packed_row_position(m0, row, shift), m0 + r);
          ASSERT_EQ(packed_row_head(shift > 0 ? hk : hk * group + g, row, shift),
                    hk * group + g);
        }
      }
      for (int len_q : {1, positions - 1, positions, positions + 1, 3 * positions + 5}) {
        if (len_q < 1) continue;
        const int m_blocks = (len_q + positions - 1) / positions;
        std::vector<int> seen(size_t(heads_q) * len_q, 0);
        // The scheduler's heads: the query heads unpacked, the KV heads packed.
        const int sched_heads = heads_q >> shift;
        for (int h = 0; h < sched_heads; ++h) {
          for (int m = 0; m < m_blocks; ++m) {
            const int m0 = m * positions;
            for (int row = 0; row < block_m; ++row) {
              const int pos = packed_row_position(m0, row, shift);
              const int head = packed_row_head(h, row, shift);
              ASSERT_LT(head, heads_q);
              EXPECT_EQ(head / group, packed_tile_kv_head(h, group, shift));
              if (shift == 0) {
                EXPECT_EQ(pos, m0 + row);
                EXPECT_EQ(head, h);
              }
              if (pos < len_q) ++seen[size_t(head) * len_q + pos];
            }
          }
        }
        for (size_t i = 0; i < seen.size(); ++i) {
          ASSERT_EQ(seen[i], 1) << "block_m " << block_m << " G " << group << " len_q " << len_q
                                << " (head, position) " << i / len_q << ", " << i % len_q;
        }
      }
    }
  }
}

}  // namespace
