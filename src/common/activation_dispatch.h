// Run-time activation to compile-time activation: one switch for every place that compiles
// its code once per activation.
#pragma once

#include <type_traits>

#include "amkl/activation.h"

namespace amkl::detail {

/// Calls fn(std::integral_constant<Activation, a>{}) so that the code fn runs is compiled once
/// per activation (the CPU's per-element loops, the GPU's kernels). Ids outside the enum (the
/// API rejects them) call nothing.
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

}  // namespace amkl::detail
