// The Hopper forward's per-row key bounds (cuda/sm90/fwd_row_keys.h) against the mask's own
// (common/mask.h), host side: every row of a tile, over masks with and without windows, both
// alignments, and lengths up to 2^31 - 1.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "common/mask.h"
#include "cuda/sm90/fwd_row_keys.h"

namespace {

using amkl::cuda::sm90::kRowSpan;
using amkl::cuda::sm90::row_key_bound;
using amkl::cuda::sm90::tile_key_bounds;
using amkl::detail::SeqMask;

int64_t clamp_key(int64_t j, int64_t len_k) { return j < 0 ? 0 : (j > len_k ? len_k : j); }

// Every row m0 + dr, 0 <= dr < kRowSpan (rows past len_q included: the last tile's padding
// rows get bounds too), against SeqMask::key_begin / key_end clamped to [0, len_k].
void expect_rows(const SeqMask& mask, int64_t m0) {
  const auto b = tile_key_bounds(mask, m0);
  for (int dr = 0; dr < kRowSpan; ++dr) {
    const int64_t row = m0 + dr;
    const int len_k = int(mask.len_k);
    ASSERT_EQ(row_key_bound(b.begin0, dr, len_k), clamp_key(mask.key_begin(row), mask.len_k))
        << "begin: len_q " << mask.len_q << " len_k " << len_k << " offset " << mask.offset
        << " window (" << mask.window_left << ", " << mask.window_right << ") row " << row;
    ASSERT_EQ(row_key_bound(b.end0, dr, len_k), clamp_key(mask.key_end(row), mask.len_k))
        << "end: len_q " << mask.len_q << " len_k " << len_k << " offset " << mask.offset
        << " window (" << mask.window_left << ", " << mask.window_right << ") row " << row;
  }
}

TEST(Sm90RowKeys, MatchTheMaskOnEveryRow) {
  std::mt19937_64 rng(20261204);
  const std::vector<int64_t> lens = {0,   1,   63,  64,  65,  127, 128,
                                     129, 192, 255, 256, 257, 1000, 4096};
  const std::vector<int64_t> windows = {-1, 0, 1, 7, 63, 64, 128, 255, 256, 300, 5000,
                                        int64_t(1) << 40};
  for (int64_t lq : lens) {
    for (int64_t lk : lens) {
      for (bool bottom_right : {true, false}) {
        for (int trial = 0; trial < 12; ++trial) {
          const int64_t wl = windows[rng() % windows.size()];
          const int64_t wr = windows[rng() % windows.size()];
          const SeqMask mask(lq, lk, bottom_right, wl, wr);
          for (int64_t m0 = 0; m0 < lq + 64; m0 += 64) expect_rows(mask, m0);
        }
      }
    }
  }
}

// Lengths near 2^31 - 1 (the largest a sequence may have): no overflow in the 32-bit part.
TEST(Sm90RowKeys, LongestSequences) {
  const int64_t big = (int64_t(1) << 31) - 1;
  for (int64_t lq : {int64_t(1), int64_t(4096), big - 5, big}) {
    for (int64_t lk : {int64_t(1), int64_t(300), big - 200, big}) {
      for (int64_t wl : {int64_t(-1), int64_t(0), int64_t(100), big}) {
        for (int64_t wr : {int64_t(-1), int64_t(0), int64_t(100), big}) {
          for (bool bottom_right : {true, false}) {
            const SeqMask mask(lq, lk, bottom_right, wl, wr);
            for (int64_t m0 : {int64_t(0), lq / 2 / 64 * 64, (lq - 1) / 64 * 64}) {
              expect_rows(mask, m0);
            }
          }
        }
      }
    }
  }
}

}  // namespace
