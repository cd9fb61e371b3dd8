// What happens to a tile of scores between the two products: scale, softcap, mask, and the
// activation (forward) or its derivative (backward). One definition for forward and
// backward; the formulas are those of common/activation_math.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "amkl/activation.h"
#include "common/activation_math.h"

namespace amkl::cpu {

/// Calls fn(std::integral_constant<Activation, a>{}) so that the per-element code is
/// compiled once per activation, with the switch of activation_forward folded away.
template <typename Fn>
void with_activation(Activation a, Fn&& fn) {
  using A = Activation;
  switch (a) {
    case A::Raw: return fn(std::integral_constant<A, A::Raw>{});
    case A::Gelu: return fn(std::integral_constant<A, A::Gelu>{});
    case A::GeluApprox: return fn(std::integral_constant<A, A::GeluApprox>{});
    case A::FastGelu: return fn(std::integral_constant<A, A::FastGelu>{});
    case A::LeakyRelu: return fn(std::integral_constant<A, A::LeakyRelu>{});
    case A::Relu: return fn(std::integral_constant<A, A::Relu>{});
    case A::FastGeluBf16: return fn(std::integral_constant<A, A::FastGeluBf16>{});
    case A::Silu: return fn(std::integral_constant<A, A::Silu>{});
    case A::FastSilu: return fn(std::integral_constant<A, A::FastSilu>{});
    case A::Hardswish: return fn(std::integral_constant<A, A::Hardswish>{});
    case A::ReluSquare: return fn(std::integral_constant<A, A::ReluSquare>{});
    case A::GeluTaylor: return fn(std::integral_constant<A, A::GeluTaylor>{});
    case A::Softmax: return fn(std::integral_constant<A, A::Softmax>{});
  }
}

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
