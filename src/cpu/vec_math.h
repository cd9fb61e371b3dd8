// Row-wise math of the score tiles that must be vectorized to keep up with the tile
// products: the scale-and-max and the exp of the online softmax. float uses a polynomial exp with
// ~1 ulp error (AVX2 when available); double uses std::exp (f64 is the oracle path, where
// accuracy matters more than speed).
#pragma once

#include <cstdint>

namespace amkl::cpu {

/// x[i] = exp(x[i] - shift) for i < n, and returns the sum of the results. x[i] = -inf
/// gives exactly 0; shift must be finite.
float exp_shift_sum(float* x, int64_t n, float shift);
double exp_shift_sum(double* x, int64_t n, double shift);

/// x[i] *= scale for i < n, and returns the largest result (-inf when n == 0).
float scale_max(float* x, int64_t n, float scale);
double scale_max(double* x, int64_t n, double scale);

}  // namespace amkl::cpu
