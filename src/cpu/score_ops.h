// What happens to a tile of scores between the two products: scale, softcap, mask, and the
// activation (forward) or its derivative (backward). One definition for forward and
// backward; the formulas are those of common/activation_math.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "amkl/activation.h"
#include "common/activation_dispatch.h"
#include "common/activation_math.h"

namespace amkl::cpu {

using detail::with_activation;

/// The softmax logit of a raw product qk: s = scale * qk, then softcap * tanh(s / softcap)
/// when softcap > 0. `dlogit` receives d(logit)/d(s) (1 without softcap).
template <typename T>
inline T softmax_logit(T qk, T scale, T softcap, T* dlogit = nullptr) {
  const T s = scale * qk;
  if (softcap > T(0)) {
    const T t = std::tanh(s / softcap);
    if (dlogit) *dlogit = T(1) - t * t;
    return softcap * t;
  }
  if (dlogit) *dlogit = T(1);
  return s;
}

/// Sets x[j] = 0 for j in [0, lo) and [hi, n): the masked entries of a P or dS row.
template <typename T>
inline void zero_outside(T* x, int64_t lo, int64_t hi, int64_t n) {
  for (int64_t j = 0; j < lo; ++j) x[j] = T(0);
  for (int64_t j = hi; j < n; ++j) x[j] = T(0);
}

}  // namespace amkl::cpu
