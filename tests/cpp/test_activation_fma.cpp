// The MUFU-free arithmetic forms of activation_math.h (exp2_fma, exp2_fma_ftz, rcp_fma,
// fast_gelu_fma) against double-precision references over dense ranges.
#include <gtest/gtest.h>

#include <cmath>

#include "common/activation_math.h"

namespace {

using amkl::detail::exp2_fma;
using amkl::detail::fast_gelu_fma;
using amkl::detail::rcp_fma;

TEST(ActivationFma, Exp2RelativeError) {
  double worst = 0;
  for (int i = -1260000; i <= 1260000; ++i) {
    const float z = float(i) * 1e-4f;
    const double ref = std::exp2(double(z));
    worst = std::max(worst, std::fabs(double(exp2_fma(z)) / ref - 1.0));
  }
  EXPECT_LT(worst, 4e-6);
}

TEST(ActivationFma, Exp2FlushesLikeTheMufu) {
  using amkl::detail::exp2_fma_ftz;
  EXPECT_EQ(exp2_fma_ftz(-INFINITY), 0.f);
  EXPECT_EQ(exp2_fma_ftz(-126.5f), 0.f);
  EXPECT_EQ(exp2_fma_ftz(0.f), 1.f);
  EXPECT_NEAR(exp2_fma_ftz(-126.f), std::ldexp(1.0, -126), std::ldexp(1.0, -126) * 4e-6);
  EXPECT_NEAR(exp2_fma_ftz(-20.25f), std::exp2(-20.25), std::exp2(-20.25) * 4e-6);
}

TEST(ActivationFma, RcpRelativeError) {
  double worst = 0;
  for (int e = -60; e <= 60; e += 7) {
    for (int i = 0; i < 100000; ++i) {
      const float d = std::ldexp(1.f + float(i) / 100000.f, e);
      worst = std::max(worst, std::fabs(double(rcp_fma(d)) * double(d) - 1.0));
    }
  }
  EXPECT_LT(worst, 1e-5);
}

// fast_gelu(y) = 0.5 y (1 + tanh(sqrt(2/pi) y (1 + 0.044715 y^2))), in double.
double fast_gelu_ref(double y) {
  using namespace amkl::detail::act_const;
  return 0.5 * y * (1.0 + std::tanh(kSqrt2OverPi * y * (1.0 + kGeluCubic * y * y)));
}

TEST(ActivationFma, FastGeluMatchesFormula) {
  using namespace amkl::detail::act_const;
  for (float scale : {1.f, 0.088388f, 3.f}) {
    const double k0d = -2.0 * 1.4426950408889634 * kSqrt2OverPi * scale;
    const float k0 = float(k0d), k1 = float(k0d * kGeluCubic * scale * scale);
    double worst = 0;
    for (int i = -400000; i <= 400000; ++i) {
      const float x = float(i) * 1e-4f / scale;  // y = scale * x in [-40, 40]
      const double y = double(scale) * x;
      const double err = std::fabs(double(fast_gelu_fma(x, scale, k0, k1)) - fast_gelu_ref(y));
      // tanh.approx.f32 (the MUFU form) is good to ~5e-4 relative; this form must do better,
      // measured against the size of the result (and 1e-6 near 0).
      worst = std::max(worst, err / std::max(std::fabs(fast_gelu_ref(y)), 1e-3));
    }
    EXPECT_LT(worst, 5e-5) << "scale " << scale;
  }
  // The limits: large positive -> y, large negative -> 0, 0 -> 0.
  const float k0 = -2.3022f, k1 = -0.1029f;  // scale 1
  EXPECT_NEAR(fast_gelu_fma(1e6f, 1.f, k0, k1), 1e6f, 1e6f * 1e-5f);
  EXPECT_LT(std::fabs(fast_gelu_fma(-1e6f, 1.f, k0, k1)), 1e-12f);
  EXPECT_EQ(fast_gelu_fma(0.f, 1.f, k0, k1), 0.f);
}

}  // namespace
