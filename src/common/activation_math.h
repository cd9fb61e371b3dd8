// The pointwise activations f and their derivatives f', exactly as shared/specs/gdpa.md
// section 2 defines them. One definition for every backend: the CPU evaluates it in float or
// double, CUDA kernels in float (fast_* variants then use the hardware tanh / exp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "amkl/activation.h"
#include "common/hd.h"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#endif

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
constexpr double kLog2e = 1.4426950408889634;  // log2(e): exp(x) = 2^(x log2(e))
// Abramowitz & Stegun 7.1.26's p: erf(z) ~ 1 - q(t) exp(-z^2) with t = 1 / (1 + p z) (the
// GPU's exact gelu, activation_forward_fast and its scale fold).
constexpr double kErfAsP = 0.3275911;
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

/// Abramowitz & Stegun 7.1.26's q(t): erf(z) ~ 1 - q(t) exp(-z^2) with t = 1 / (1 + p z),
/// p = kErfAsP, |error| <= 1.5e-7 (the GPU's exact gelu; on the host only in its tests).
AMKL_HD float erf_as_q(float t) {
  return t * fmaf(t, fmaf(t, fmaf(t, fmaf(t, 1.061405429f, -1.453152027f), 1.421413741f),
                      -0.284496736f),
                  0.254829592f);
}

#if defined(__CUDACC__)
/// 2^x with one MUFU.EX2 (ex2.approx.ftz: results below 2^-126 flush to 0). The plain exp2f
/// of a build without fast math adds a compare and two predicated multiplies per call to
/// keep denormal results, which costs about 3 instructions per attention score.
__device__ __forceinline__ float fast_exp2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
/// log2(x) with one MUFU.LG2 (lg2.approx.ftz: absolute error below 2^-22 for normal x).
__device__ __forceinline__ float fast_log2(float x) {
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
/// x / y as x * rcp.approx.ftz(y); y = inf gives 0 (the limit every use here wants).
__device__ __forceinline__ float fast_div(float x, float y) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y));
  return x * r;
}

/// f(x) in the GPU's fast forms: the same functions as activation_forward up to a few f32 ulp
/// (far below the bf16/fp16 rounding of P), written with the hardware's ex2/rcp/tanh so that the
/// per-element cost stays near fast_gelu's. The kernels evaluate these; the CPU oracle evaluates
/// activation_forward.
template <Activation kAct>
__device__ __forceinline__ float activation_forward_fast(float x) {
  using namespace act_const;
  constexpr float kLog2e = float(act_const::kLog2e);
  if constexpr (kAct == Activation::Gelu) {
    // erf by Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7): erf(z) = 1 - q(t) exp(-z^2),
    // t = 1 / (1 + p z), z = |x| / sqrt(2) >= 0; one rcp and one ex2 instead of erff's
    // longer polynomial pair.
    const float z = fabsf(x) * float(kInvSqrt2);
    const float t = fast_div(1.f, fmaf(float(kErfAsP), z, 1.f));
    const float e = fast_exp2(-kLog2e * z * z);
    const float erf_abs = fmaf(-erf_as_q(t), e, 1.f);
    const float h = 0.5f * x;
    return fmaf(h, copysignf(erf_abs, x), h);
  } else if constexpr (kAct == Activation::GeluApprox) {
    // 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) x (1 + 0.044715 x^2); for very
    // negative x the denominator is inf and the quotient its limit 0.
    constexpr float k1 = float(-2.0 * 1.4426950408889634 * kSqrt2OverPi);
    constexpr float k3 = float(-2.0 * 1.4426950408889634 * kSqrt2OverPi * kGeluCubic);
    const float e = fast_exp2(x * fmaf(k3, x * x, k1));
    return fast_div(x, 1.f + e);
  } else if constexpr (kAct == Activation::Silu || kAct == Activation::FastSilu) {
    // x sigmoid(x) = x / (1 + exp(-x)); an inf denominator gives the limit 0.
    return fast_div(x, 1.f + fast_exp2(-kLog2e * x));
  } else if constexpr (kAct == Activation::Hardswish) {
    const float c = fminf(fmaxf(x + 3.f, 0.f), 6.f);
    return x * c * (1.f / 6.f);
  } else {
    return activation_forward<float>(kAct, x);
  }
}

/// lo and hi rounded to bf16 in one 32-bit word (lo in the low half): one cvt.rn.bf16x2.f32.
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  uint32_t w;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  return w;
}
/// The bf16 in the low / high half of a 32-bit word, as a float (exact).
__device__ __forceinline__ float bf16_low_as_float(uint32_t w) { return __uint_as_float(w << 16); }
__device__ __forceinline__ float bf16_high_as_float(uint32_t w) {
  return __uint_as_float(w & 0xffff0000u);
}

/// fast_gelu_bf16 on two values at once: the bf16 roundings of its definition done as packed
/// conversions (cvt.rn.bf16x2.f32), the tanh as one tanh.approx.bf16x2 for both.
/// kDoubled: the results are 2 f(x), for a caller that multiplies by 0.5 later (exact: a
/// power of two, and bf16 has float's exponent range): 2 f(x) = a + a t is then one
/// fma.rn.bf16x2 for the pair, rounded once to bf16, where f(x) itself takes two unpacks, two
/// FMUL, two FFMA and a conversion (the scores loop of this activation is bound by its
/// instruction stream, bench/NOTES.md step 29).
template <bool kDoubled = false>
__device__ __forceinline__ void fast_gelu_bf16_pair(float& x0, float& x1) {
  using namespace act_const;
  // u = c a (1 + g a^2) as a (c + c g a^2): the float values rounded to bf16 differ from the
  // reference order's by float rounding only.
  const float c = float(kBf16SqrtTwoOverPi), cg = float(kBf16SqrtTwoOverPi * kGeluCubic);
  if constexpr (kDoubled) {
    // The packed values stay 32-bit words, their halves read with a shift and a mask: through
    // __nv_bfloat162 and __low2float, ptxas kept the halves as 16-bit registers and joined
    // them again (two PRMT per pair) for the bf16x2 FMA.
    const uint32_t xw = pack_bf16x2(x0, x1);
    const float a0 = bf16_low_as_float(xw), a1 = bf16_high_as_float(xw);
    const uint32_t uw = pack_bf16x2(a0 * fmaf(cg, a0 * a0, c), a1 * fmaf(cg, a1 * a1, c));
    uint32_t tw, rw;
    asm("tanh.approx.bf16x2 %0, %1;" : "=r"(tw) : "r"(uw));
    asm("fma.rn.bf16x2 %0, %1, %2, %1;" : "=r"(rw) : "r"(xw), "r"(tw));
    x0 = bf16_low_as_float(rw);
    x1 = bf16_high_as_float(rw);
  } else {
    // Here the 32-bit words cost registers: the fp16 kernel (d 128) spilled 154 B with them,
    // none with these forms.
    const __nv_bfloat162 xb = __floats2bfloat162_rn(x0, x1);
    const float a0 = __low2float(xb), a1 = __high2float(xb);
    const __nv_bfloat162 u =
        __floats2bfloat162_rn(a0 * fmaf(cg, a0 * a0, c), a1 * fmaf(cg, a1 * a1, c));
    uint32_t ub = *reinterpret_cast<const uint32_t*>(&u), tb;
    asm("tanh.approx.bf16x2 %0, %1;" : "=r"(tb) : "r"(ub));
    const __nv_bfloat162 t = *reinterpret_cast<const __nv_bfloat162*>(&tb);
    // 0.5 a (1 + t) as h + h t with h = a / 2 (exact).
    const float h0 = 0.5f * a0, h1 = 0.5f * a1;
    const __nv_bfloat162 r =
        __floats2bfloat162_rn(fmaf(h0, __low2float(t), h0), fmaf(h1, __high2float(t), h1));
    x0 = __low2float(r);
    x1 = __high2float(r);
  }
}
#endif

}  // namespace amkl::detail
