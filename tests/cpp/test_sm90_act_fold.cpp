// The logit scale folded into an activation's constants (ActFold, built on the host for the
// Hopper forward): where they fold, the kernel's formula on the raw score s gives the
// activation at scale * s; where they would leave float's normal range, or the activation has
// no folded form, they do not fold.
#include <gtest/gtest.h>

#include <cmath>

#include "common/activation_math.h"
#include "cuda/sm90/fwd_act_fold.h"

namespace {

using amkl::Activation;
using amkl::cuda::sm90::act_fold;
using amkl::cuda::sm90::ActFold;

// The kernel's folded formulas (apply_act, fast_gelu without kUnscaledHalf), with the host's
// tanh and exp2 and a true division where the kernel uses the MUFU's.
float folded(Activation act, const ActFold& f, float s) {
  switch (act) {
    case Activation::FastGelu: {
      const float t = std::tanh(s * std::fma(f.c1, s * s, f.c0));
      const float hs = f.c2 * s;
      return std::fma(hs, t, hs);
    }
    case Activation::Gelu: {
      const float t = 1.f / std::fma(f.c0, std::fabs(s), 1.f);
      const float erf_abs = 1.f - amkl::detail::erf_as_q(t) * std::exp2(f.c1 * (s * s));
      const float h = f.c2 * s;
      return std::fma(std::fabs(h), erf_abs, h);
    }
    case Activation::GeluApprox:
      return s / std::fma(std::exp2(s * std::fma(f.c1, s * s, f.c0)), f.c2, f.c2);
    default:  // Silu, FastSilu
      return s / std::fma(std::exp2(f.c0 * s), f.c2, f.c2);
  }
}

constexpr Activation kFolding[] = {Activation::FastGelu, Activation::GeluApprox, Activation::Silu,
                                   Activation::FastSilu, Activation::Gelu};

TEST(Sm90ActFold, FoldsOnlyWhereTheConstantsStayNormal) {
  for (Activation act : kFolding) {
    for (float scale : {1e-12f, -1e-12f, 0.0883883f, 1.f, -3.f, 1e13f, -1e13f}) {
      const auto f = act_fold(act, scale);
      EXPECT_TRUE(f.folds) << int(act) << " " << scale;
      EXPECT_TRUE(std::isnormal(f.c0)) << int(act) << " " << scale;
      EXPECT_TRUE(std::isnormal(f.c2)) << int(act) << " " << scale;
      if (act != Activation::Silu && act != Activation::FastSilu) {
        EXPECT_TRUE(std::isnormal(f.c1)) << int(act) << " " << scale;
      }
    }
    for (float scale : {0.f, 9e-13f, -9e-13f, 1.1e13f, -2e13f, INFINITY, NAN}) {
      EXPECT_FALSE(act_fold(act, scale).folds) << int(act) << " " << scale;
    }
  }
  for (Activation act : {Activation::Softmax, Activation::Raw, Activation::FastGeluBf16,
                         Activation::Relu, Activation::Hardswish}) {
    EXPECT_FALSE(act_fold(act, 0.125f).folds) << int(act);
  }
}

TEST(Sm90ActFold, FoldedFormulaIsTheActivationOfTheScaledScore) {
  for (Activation act : kFolding) {
    for (float scale : {1e-12f, 0.0883883f, 0.125f, 1.f, -0.5f, 7.f, 1e13f}) {
      const auto f = act_fold(act, scale);
      ASSERT_TRUE(f.folds);
      for (float x : {-90.f, -6.f, -2.5f, -1.f, -0.3f, 0.f, 1e-3f, 0.7f, 1.f, 2.f, 5.f, 30.f}) {
        const float s = x / scale;  // the raw score whose scaled value is x
        const double want = amkl::detail::activation_forward<double>(act, double(scale) * s);
        const double got = folded(act, f, s);
        // A few float roundings of the constants and of s: relative 1e-5 of |x| is ample and
        // still fails on a wrong constant (the cubic term alone is ~4% of the argument at
        // x = 1) or a wrong power of the scale.
        EXPECT_NEAR(got, want, 1e-5 * std::fabs(x) + 1e-30)
            << "act " << int(act) << " scale " << scale << " x " << x;
      }
    }
  }
}

}  // namespace
