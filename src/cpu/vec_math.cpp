#include "cpu/vec_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu/simd.h"

namespace amkl::cpu {
namespace {

using VF = simd::Vec<float>;
using VI = simd::VecOf<int32_t>::type;
constexpr int kW = simd::kLanes<float>;

// exp(x) = 2^n * exp(r), n = round(x / ln 2), r = x - n ln 2 in [-ln2/2, ln2/2] (ln 2 split
// in two parts so n ln 2 is exact enough), exp(r) by a degree-7 polynomial (Cephes'
// coefficients). Inputs below -87.3 (where 2^n would leave the normal range) give 0.
__attribute__((always_inline)) inline VF exp_vec(const VF& x) {
  const VF lo = VF{} - 87.3f;
  const VF xc = x < lo ? lo : (x > 88.3f ? VF{} + 88.3f : x);
  const VF round_magic = VF{} + 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const VF n = (xc * 1.44269504088896341f + round_magic) - round_magic;
  const VF r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
  VF p = 1.9875691500e-4f * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const VI bits = (__builtin_convertvector(n, VI) + 127) << 23;
  VF scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return x < lo ? VF{} : p * scale;
}

__attribute__((always_inline)) inline float exp_shift_sum_body(float* x, int64_t n,
                                                               float shift) {
  VF sum{};
  int64_t i = 0;
  for (; i + kW <= n; i += kW) {
    const VF e = exp_vec(simd::load(x + i) - shift);
    simd::store(x + i, e);
    sum += e;
  }
  if (i < n) {  // the tail through a padded vector (-inf lanes give 0)
    float tail[kW];
    for (int t = 0; t < kW; ++t) tail[t] = i + t < n ? x[i + t] : -INFINITY;
    const VF e = exp_vec(simd::load(tail) - shift);
    simd::store(tail, e);
    for (int t = 0; i + t < n; ++t) x[i + t] = tail[t];
    sum += e;
  }
  float s = 0.0f;
  for (int t = 0; t < kW; ++t) s += sum[t];
  return s;
}

__attribute__((always_inline)) inline float scale_max_body(float* x, int64_t n, float scale) {
  VF m = VF{} - INFINITY;
  int64_t i = 0;
  for (; i + kW <= n; i += kW) {
    const VF v = simd::load(x + i) * scale;
    simd::store(x + i, v);
    m = v > m ? v : m;
  }
  float r = -INFINITY;
  for (int t = 0; t < kW; ++t) r = std::max(r, m[t]);
  for (; i < n; ++i) {
    x[i] *= scale;
    r = std::max(r, x[i]);
  }
  return r;
}

float scale_max_baseline(float* x, int64_t n, float scale) { return scale_max_body(x, n, scale); }
AMKL_CPU_AVX2 float scale_max_avx2(float* x, int64_t n, float scale) {
  return scale_max_body(x, n, scale);
}

float exp_shift_sum_baseline(float* x, int64_t n, float shift) {
  return exp_shift_sum_body(x, n, shift);
}
AMKL_CPU_AVX2 float exp_shift_sum_avx2(float* x, int64_t n, float shift) {
  return exp_shift_sum_body(x, n, shift);
}

}  // namespace

float exp_shift_sum(float* x, int64_t n, float shift) {
  static const auto fn =
      simd::cpu_has_avx2_fma() ? &exp_shift_sum_avx2 : &exp_shift_sum_baseline;
  return fn(x, n, shift);
}

float scale_max(float* x, int64_t n, float scale) {
  static const auto fn = simd::cpu_has_avx2_fma() ? &scale_max_avx2 : &scale_max_baseline;
  return fn(x, n, scale);
}

double scale_max(double* x, int64_t n, double scale) {
  double r = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    x[i] *= scale;
    r = std::max(r, x[i]);
  }
  return r;
}

double exp_shift_sum(double* x, int64_t n, double shift) {
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - shift);
    s += x[i];
  }
  return s;
}

}  // namespace amkl::cpu
