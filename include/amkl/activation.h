// The score activations of attention: softmax, or an element-wise function (GDPA).
#pragma once

#include <cstdint>
#include <string>

namespace amkl {

/// Stable integer ids: an ABI shared with the GDPA reference (only append).
/// Formulas and derivatives: shared/specs/gdpa.md section 2 and DESIGN.md section 2.
enum class Activation : int32_t {
  Raw = 0,           ///< identity
  Gelu = 1,          ///< exact erf GELU
  GeluApprox = 2,    ///< tanh GELU, tanh computed accurately
  FastGelu = 3,      ///< tanh GELU with the hardware tanh (agrees with GeluApprox to bf16)
  LeakyRelu = 4,     ///< slope 0.01
  Relu = 5,          ///< derivative 1 at x = 0 (the GDPA convention)
  FastGeluBf16 = 6,  ///< x rounded to bf16, constant 0.796875, bf16 tanh
  Silu = 7,
  FastSilu = 8,
  Hardswish = 9,
  ReluSquare = 10,
  GeluTaylor = 11,   ///< 0.5x + x^2 (c2 + x^2 (c4 + x^2 c6)): the degree-6 Maclaurin series
  Softmax = 12,      ///< online softmax over allowed keys, with LSE
};

constexpr int kNumActivations = 13;

/// True for every activation except Softmax.
inline bool is_pointwise(Activation a) { return a != Activation::Softmax; }

/// "fast_gelu", "softmax", ...
const char* activation_name(Activation a);

/// Parses a name ("gelu", "fast_gelu", "softmax", ...; also the GDPA alias
/// "fast_gelu_taylor_approx" for gelu_taylor). Throws amkl::Error naming the valid names.
Activation activation_from_name(const std::string& name);

/// Converts an integer id; throws amkl::Error if it is out of range.
Activation activation_from_id(int id);

}  // namespace amkl
