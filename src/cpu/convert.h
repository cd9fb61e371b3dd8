// Element conversions of the CPU backend: the storage dtypes (f64, f32, f16, bf16) to and
// from the compute type (double for f64 inputs, float otherwise), and the rounding
// emulation of amkl::Rounding. Conversions happen only when tiles are packed or stored, so
// plain scalar code is fast enough; the tile math never sees a storage dtype.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "amkl/attention.h"
#include "amkl/tensor.h"
#include "common/activation_math.h"

namespace amkl::cpu {

inline float bf16_bits_to_float(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Round-to-nearest-even (the rounding of detail::round_to_bf16).
inline uint16_t float_to_bf16_bits(float x) {
  const float r = detail::round_to_bf16(x);
  uint32_t u;
  std::memcpy(&u, &r, 4);
  return uint16_t(u >> 16);
}

inline float f16_bits_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  uint32_t u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);  // inf / nan
  } else if (exp == 0) {
    const float f = float(mant) * 5.9604644775390625e-8f;  // subnormal: mant * 2^-24
    return sign ? -f : f;
  } else {
    u = sign | ((exp + 112u) << 23) | (mant << 13);  // rebias 15 -> 127
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Round-to-nearest-even to IEEE half, overflow to inf.
inline uint16_t float_to_f16_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u);
  if (a >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds past 65504: inf
  if (a < 0x38800000u) {                        // below 2^-14: a multiple of 2^-24
    float v;
    std::memcpy(&v, &a, 4);
    return sign | uint16_t(std::nearbyint(v * 16777216.0f));  // exact scaling, RNE
  }
  uint32_t r = a - 0x38000000u;  // rebias 127 -> 15 in place
  r += 0xfffu + ((r >> 13) & 1u);
  return sign | uint16_t(r >> 13);
}

inline float round_to_f16(float x) { return f16_bits_to_float(float_to_f16_bits(x)); }

/// x rounded to the emulated type (unchanged for Rounding::None).
template <typename T>
inline T round_to(Rounding r, T x) {
  switch (r) {
    case Rounding::None: return x;
    case Rounding::BFloat16: return T(detail::round_to_bf16(float(x)));
    case Rounding::Float16: return T(round_to_f16(float(x)));
  }
  return x;
}

template <typename T>
inline void round_inplace(Rounding r, T* x, int64_t n) {
  if (r == Rounding::None) return;
  for (int64_t i = 0; i < n; ++i) x[i] = round_to(r, x[i]);
}

inline int storage_size(DType dt) {
  return dt == DType::Float64 ? 8 : (dt == DType::Float32 ? 4 : 2);
}

/// dst[i] = src[i] for i < n, converting from the storage dtype `dt`.
template <typename T>
inline void load_row(const void* src, DType dt, int64_t n, T* dst) {
  switch (dt) {
    case DType::Float64: {
      if constexpr (std::is_same_v<T, double>) {
        std::memcpy(dst, src, size_t(n) * sizeof(T));
      } else {
        const double* s = static_cast<const double*>(src);
        for (int64_t i = 0; i < n; ++i) dst[i] = T(s[i]);
      }
      return;
    }
    case DType::Float32: {
      if constexpr (std::is_same_v<T, float>) {
        std::memcpy(dst, src, size_t(n) * sizeof(T));
      } else {
        const float* s = static_cast<const float*>(src);
        for (int64_t i = 0; i < n; ++i) dst[i] = T(s[i]);
      }
      return;
    }
    case DType::Float16: {
      const uint16_t* s = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = T(f16_bits_to_float(s[i]));
      return;
    }
    case DType::BFloat16: {
      const uint16_t* s = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = T(bf16_bits_to_float(s[i]));
      return;
    }
    default: return;  // src/api admits no other dtype
  }
}

/// dst[i] = src[i] for i < n, converting (rounding to nearest even) to the storage dtype.
template <typename T>
inline void store_row(const T* src, int64_t n, void* dst, DType dt) {
  switch (dt) {
    case DType::Float64: {
      double* d = static_cast<double*>(dst);
      for (int64_t i = 0; i < n; ++i) d[i] = double(src[i]);
      return;
    }
    case DType::Float32: {
      float* d = static_cast<float*>(dst);
      for (int64_t i = 0; i < n; ++i) d[i] = float(src[i]);
      return;
    }
    case DType::Float16: {
      uint16_t* d = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) d[i] = float_to_f16_bits(float(src[i]));
      return;
    }
    case DType::BFloat16: {
      uint16_t* d = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) d[i] = float_to_bf16_bits(float(src[i]));
      return;
    }
    default: return;
  }
}

/// Writes n zeros in the storage dtype `dt` (all four have +0 as all-zero bits).
inline void store_zeros(int64_t n, void* dst, DType dt) {
  std::memset(dst, 0, size_t(n) * size_t(storage_size(dt)));
}

}  // namespace amkl::cpu
