// The Q stage's smem layout as GQA packing's 4-D TMA boxes write it (host side: CuTe layouts
// only, no GPU). A box of (64 columns, G heads, kBlockM / G positions) fills a stage's 64-column
// block row after row, tile row p = position * G + head, with the 128-byte swizzle applied to
// the smem address (fwd_pack_gqa.h); the WGMMA reads the stage through SmemLayoutQStage =
// SmemTile<Element, kBlockM, d>. So that layout, before its address swizzle, must be block j at
// j * kBlockM * 64 elements with row p of it at p * 64, and its swizzle the TMA's 128-byte one
// (16-byte chunks XOR the row within 8).
#if defined(AMKL_WITH_CUDA)
#include <gtest/gtest.h>

#include <cutlass/numeric_types.h>

#include <type_traits>

#include "cuda/sm90/fwd_smem_tile.h"

namespace {

using namespace amkl::cuda::sm90;

template <class Element, int kBlockM, int kHeadDim>
void expect_row_major_blocks() {
  using Layout = SmemTile<Element, cute::Int<kBlockM>, cute::Int<kHeadDim>>;
  const auto linear = Layout{}.layout_b();  // the layout before the address swizzle
  int bad = 0;
  for (int p = 0; p < kBlockM; ++p) {
    for (int c = 0; c < kHeadDim; ++c) {
      const int want = (c / 64) * kBlockM * 64 + p * 64 + c % 64;
      if (int(linear(p, c)) != want && bad++ < 3) {
        ADD_FAILURE() << "kBlockM " << kBlockM << " d " << kHeadDim << " (" << p << ", " << c
                      << "): " << int(linear(p, c)) << ", expected " << want;
      }
    }
  }
  EXPECT_EQ(bad, 0);
  // The swizzle on byte addresses: bits [4, 7) (the 16-byte chunk) XOR bits [7, 10) (the
  // 128-byte row within 8), i.e. CU_TENSOR_MAP_SWIZZLE_128B.
  using Sw = decltype(Layout{}.layout_a());
  static_assert(std::is_same_v<Sw, cute::Swizzle<3, 4, 3>>, "the Q stage is 128-byte swizzled");
}

TEST(Sm90QStageLayout, IsWhatThePackedTmaBoxesWrite) {
  // (kBlockM, d) of every forward configuration: two or three consumer warpgroups.
  expect_row_major_blocks<cutlass::bfloat16_t, 128, 128>();
  expect_row_major_blocks<cutlass::half_t, 128, 64>();
  expect_row_major_blocks<cutlass::bfloat16_t, 192, 64>();
  expect_row_major_blocks<cutlass::bfloat16_t, 128, 256>();
  expect_row_major_blocks<cutlass::half_t, 128, 192>();
}

}  // namespace
#endif
