// The pointwise activations f and their derivatives f', exactly as shared/specs/gdpa.md
// section 2 defines them. One definition for every backend: the CPU evaluates it in float or
// double, CUDA kernels in float (fast_* variants then use the hardware tanh / exp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "amkl/activation.h"
#include "common/hd.h"

namespace amkl::detail {

namespace act_const {
constexpr double kSqrt2OverPi = 0.7978845608;  // the GDPA reference's literal
constexpr double kGeluCubic = 0.044715;
constexpr double kInvSqrt2 = 0.7071067811865476;
constexpr double kInvSqrt2Pi = 0.3989422804014327;
constexpr double kBf16SqrtTwoOverPi = 0.796875;  // sqrt(2/pi) rounded to bf16
constexpr double kTaylorC2 = 0.3989422804014327;
constexpr double kTaylorC4 = -0.06649038006690543;
constexpr double kTaylorC6 = 0.00997355701003582;
constexpr double kLeakySlope = 0.01;
}  // namespace act_const

/// Round-to-nearest-even to bfloat16, returned as float.
AMKL_HD float round_to_bf16(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) == 0x7f800000u) {  // inf / nan: keep (quiet nan)
    if (u & 0x007fffffu) u |= 0x00400000u;
    u &= 0xffff0000u;
  } else {
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
  }
  float r;
  memcpy(&r, &u, 4);
  return r;
}

// Math wrappers: std:: overloads on the host, CUDA's float/double overloads on the device.
#if defined(__CUDA_ARCH__)
#define AMKL_MATH(fn) ::fn
#else
#define AMKL_MATH(fn) std::fn
#endif

template <typename T>
AMKL_HD T act_tanh(T y) {
  return AMKL_MATH(tanh)(y);
}
template <typename T>
AMKL_HD T act_erf(T y) {
  return AMKL_MATH(erf)(y);
}
template <typename T>
AMKL_HD T act_exp(T y) {
  return AMKL_MATH(exp)(y);
}
template <typename T>
AMKL_HD T act_fast_tanh(T y) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) {
    float r;
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(y));
    return r;
  }
#endif
  return act_tanh(y);
}
template <typename T>
AMKL_HD T act_sigmoid(T x) {
  return T(1) / (T(1) + act_exp(-x));
}

/// f(x) for a pointwise activation (Softmax is not pointwise: returns x).
template <typename T>
AMKL_HD T activation_forward(Activation a, T x) {
  using namespace act_const;
  switch (a) {
    case Activation::Raw: return x;
    case Activation::Gelu: return T(0.5) * x * (T(1) + act_erf(x * T(kInvSqrt2)));
    case Activation::GeluApprox: {
      const T t = act_tanh(T(kSqrt2OverPi) * x * (T(1) + T(kGeluCubic) * x * x));
      return T(0.5) * x * (T(1) + t);
    }
    case Activation::FastGelu: {
      const T t = act_fast_tanh(x * (T(kSqrt2OverPi) + T(kSqrt2OverPi * kGeluCubic) * x * x));
      return T(0.5) * x * (T(1) + t);
    }
    case Activation::LeakyRelu: return x >= T(0) ? x : T(kLeakySlope) * x;
    case Activation::Relu: return x >= T(0) ? x : T(0);
    case Activation::FastGeluBf16: {
      // Computed in bf16 on the GPU: x, the tanh argument, tanh and the result are bf16.
      const float xb = round_to_bf16(float(x));
      const float u = round_to_bf16(float(kBf16SqrtTwoOverPi) * xb *
                                    (1.0f + float(kGeluCubic) * xb * xb));
      const float t = round_to_bf16(act_fast_tanh(u));
      return T(round_to_bf16(xb * 0.5f * (1.0f + t)));
    }
    case Activation::Silu: return x * act_sigmoid(x);
    case Activation::FastSilu: return x * act_sigmoid(x);
    case Activation::Hardswish: {
      T c = x + T(3);
      c = c < T(0) ? T(0) : (c > T(6) ? T(6) : c);
      return x * c / T(6);
    }
    case Activation::ReluSquare: return x >= T(0) ? x * x : T(0);
    case Activation::GeluTaylor: {
      const T x2 = x * x;
      return T(0.5) * x + x2 * (T(kTaylorC2) + x2 * (T(kTaylorC4) + x2 * T(kTaylorC6)));
    }
    case Activation::Softmax: return x;
  }
  return x;
}

/// f'(x) as the GDPA reference's backward uses it (relu'(0) = 1).
template <typename T>
AMKL_HD T activation_derivative(Activation a, T x) {
  using namespace act_const;
  switch (a) {
    case Activation::Raw: return T(1);
    case Activation::Gelu: {
      const T cdf = T(0.5) * (T(1) + act_erf(x * T(kInvSqrt2)));
      const T pdf = act_exp(T(-0.5) * x * x) * T(kInvSqrt2Pi);
      return cdf + x * pdf;
    }
    case Activation::GeluApprox:
    case Activation::FastGelu:
    case Activation::FastGeluBf16: {
      const T xx = a == Activation::FastGeluBf16 ? T(round_to_bf16(float(x))) : x;
      const T u = T(kSqrt2OverPi) * xx * (T(1) + T(kGeluCubic) * xx * xx);
      const T t = a == Activation::GeluApprox ? act_tanh(u) : act_fast_tanh(u);
      return T(0.5) * xx * (T(1) - t * t) *
                 (T(kSqrt2OverPi) + T(3 * kGeluCubic * kSqrt2OverPi) * xx * xx) +
             T(0.5) * (T(1) + t);
    }
    case Activation::LeakyRelu: return x >= T(0) ? T(1) : T(kLeakySlope);
    case Activation::Relu: return x >= T(0) ? T(1) : T(0);
    case Activation::Silu:
    case Activation::FastSilu: {
      const T s = act_sigmoid(x);
      return s * (T(1) + x * (T(1) - s));
    }
    case Activation::Hardswish:
      if (x <= T(-3)) return T(0);
      if (x >= T(3)) return T(1);
      return x / T(3) + T(0.5);
    case Activation::ReluSquare: return x >= T(0) ? T(2) * x : T(0);
    case Activation::GeluTaylor: {
      const T x2 = x * x;
      return T(0.5) + x * (T(2 * kTaylorC2) + x2 * (T(4 * kTaylorC4) + x2 * T(6 * kTaylorC6)));
    }
    case Activation::Softmax: return T(1);
  }
  return T(1);
}

}  // namespace amkl::detail
