// fast_gelu's constants with the logit scale folded in (FwdArgs::gelu, built on the host for the
// Hopper forward): where they fold, the kernel's formula on the raw score s gives fast_gelu at
// scale * s; where they would leave float's normal range, they do not fold.
#include <gtest/gtest.h>

#include <cmath>

#include "common/activation_math.h"
#include "cuda/sm90/fwd_args.h"

namespace {

using amkl::Activation;
using amkl::cuda::sm90::fast_gelu_fold;

// The kernel's folded formula (apply_act, without kUnscaledHalf), with the host's tanh.
float folded(const amkl::cuda::sm90::FastGeluFold& f, float s) {
  const float t = std::tanh(s * std::fma(f.c1, s * s, f.c0));
  const float hs = f.half * s;
  return std::fma(hs, t, hs);
}

TEST(Sm90FastGeluFold, FoldsOnlyWhereTheCubicConstantStaysNormal) {
  for (float scale : {1e-12f, -1e-12f, 0.0883883f, 1.f, -3.f, 1e13f, -1e13f}) {
    const auto f = fast_gelu_fold(scale);
    EXPECT_TRUE(f.folds) << scale;
    EXPECT_TRUE(std::isnormal(f.c1)) << scale;
  }
  for (float scale : {0.f, 9e-13f, -9e-13f, 1.1e13f, -2e13f, INFINITY, NAN}) {
    EXPECT_FALSE(fast_gelu_fold(scale).folds) << scale;
  }
}

TEST(Sm90FastGeluFold, FoldedFormulaIsFastGeluOfTheScaledScore) {
  for (float scale : {1e-12f, 0.0883883f, 0.125f, 1.f, -0.5f, 7.f, 1e13f}) {
    const auto f = fast_gelu_fold(scale);
    ASSERT_TRUE(f.folds);
    for (float x : {-6.f, -2.5f, -1.f, -0.3f, 0.f, 1e-3f, 0.7f, 1.f, 2.f, 5.f, 30.f}) {
      const float s = x / scale;  // the raw score whose scaled value is x
      const double want =
          amkl::detail::activation_forward<double>(Activation::FastGelu, double(scale) * s);
      const double got = folded(f, s);
      // A few float roundings of the constants and of s: relative 1e-5 of |x| is ample and
      // still fails on a wrong constant (the cubic term alone is ~4% of the argument at x = 1).
      EXPECT_NEAR(got, want, 1e-5 * std::fabs(x) + 1e-30) << "scale " << scale << " x " << x;
    }
  }
}

}  // namespace
