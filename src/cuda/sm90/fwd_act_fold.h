// The logit scale folded into an activation's constants, computed once on the host for the
// Hopper forward (FwdArgs::scale_fold): the kernel then evaluates f(scale * s) on the raw score s
// with one or two instructions fewer per element (the scores loop is bound by its own instruction
// stream, bench/NOTES.md steps 7 and 26). Computed in the kernel instead, ptxas recomputed
// the constants at every key block (step 27).
#pragma once

#include <cmath>

#include "amkl/activation.h"
#include "common/activation_math.h"

namespace amkl::cuda::sm90 {

/// The folded constants of one activation; `folds` false where it has none or they would
/// leave float's normal range. What c0, c1, c2 mean, with s the raw score:
///   fast_gelu:         c2 s (1 + tanh(s (c0 + c1 s^2)))        c2 = scale / 2
///   gelu_approx:       s / ((1 + 2^(s (c0 + c1 s^2))) c2)      c2 = 1 / scale
///   silu, fast_silu:   s / ((1 + 2^(c0 s)) c2)                 c2 = 1 / scale
///   gelu:              h + |h| (1 - q(t) 2^(c1 s^2)), h = c2 s, t = 1 / (1 + c0 |s|),
///                      c2 = scale / 2 (erf by Abramowitz & Stegun 7.1.26, q: erf_as_q)
/// gelu_approx and silu are x / (1 + exp(-2u)) and x / (1 + exp(-x)) at x = scale * s: the
/// scale moves from x into the denominator, where the 1 + e it divides costs one FFMA either
/// way. gelu never forms erf's argument |x| / sqrt(2), and its h + |h| erf needs no copysign.
/// c1 (~0.1 scale^3, gelu ~0.7 scale^2), c2 and 1 / scale must stay normal floats: for |scale|
/// outside [1e-12, 1e13] they would underflow (losing the cubic term, or 0 * inf = NaN for
/// large s) or overflow, so the kernel takes the plain formula on x = scale * s instead.
struct ActFold {
  float c0 = 0.f, c1 = 0.f, c2 = 0.f;
  bool folds = false;
};

/// Whether act_fold folds anything for this activation (at some scale).
constexpr bool act_folds(Activation act) {
  return act == Activation::FastGelu || act == Activation::GeluApprox ||
         act == Activation::Silu || act == Activation::FastSilu || act == Activation::Gelu;
}

/// act's constants at this logit scale (folds false where act_folds(act) is false or |scale|
/// is outside [1e-12, 1e13]), computed in double and rounded once to float.
inline ActFold act_fold(Activation act, float scale) {
  using namespace detail::act_const;
  ActFold f;
  const float abs_scale = std::fabs(scale);
  f.folds = act_folds(act) && abs_scale >= 1e-12f && abs_scale <= 1e13f;
  if (!f.folds) return f;
  const double s = scale;
  switch (act) {
    case Activation::FastGelu:
      f.c0 = float(kSqrt2OverPi * s);
      f.c1 = float(kSqrt2OverPi * kGeluCubic * s * s * s);
      f.c2 = float(0.5 * s);
      break;
    case Activation::GeluApprox:
      f.c0 = float(-2.0 * kLog2e * kSqrt2OverPi * s);
      f.c1 = float(-2.0 * kLog2e * kSqrt2OverPi * kGeluCubic * s * s * s);
      f.c2 = float(1.0 / s);
      break;
    case Activation::Gelu:
      f.c0 = float(kErfAsP * kInvSqrt2 * std::fabs(s));
      f.c1 = float(-kLog2e * 0.5 * s * s);
      f.c2 = float(0.5 * s);
      break;
    default:  // Silu, FastSilu
      f.c0 = float(-kLog2e * s);
      f.c2 = float(1.0 / s);
      break;
  }
  return f;
}

}  // namespace amkl::cuda::sm90
