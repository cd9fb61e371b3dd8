// Activation names and ids (the ids are an ABI: see include/amkl/activation.h).
#include "amkl/activation.h"

#include "amkl/error.h"

namespace amkl {
namespace {
constexpr const char* kNames[kNumActivations] = {
    "raw",       "gelu",    "gelu_approx", "fast_gelu",    "leaky_relu",  "relu",   "fast_gelu_bf16",
    "silu",      "fast_silu", "hardswish", "relu_square", "gelu_taylor", "softmax"};

std::string valid_names() {
  std::string s;
  for (int i = 0; i < kNumActivations; ++i) s += (i ? ", " : "") + std::string(kNames[i]);
  return s;
}
}  // namespace

const char* activation_name(Activation a) {
  const int id = int(a);
  return id >= 0 && id < kNumActivations ? kNames[id] : "invalid";
}

Activation activation_from_name(const std::string& name) {
  for (int i = 0; i < kNumActivations; ++i) {
    if (name == kNames[i]) return Activation(i);
  }
  if (name == "fast_gelu_taylor_approx") return Activation::GeluTaylor;  // the GDPA name
  if (name == "identity") return Activation::Raw;
  throw Error(ErrorKind::InvalidArgument,
              "activation: unknown name '" + name + "'; expected one of " + valid_names());
}

Activation activation_from_id(int id) {
  if (id < 0 || id >= kNumActivations) {
    throw Error(ErrorKind::InvalidArgument, "activation: id must be in [0, " +
                                                std::to_string(kNumActivations - 1) +
                                                "], got " + std::to_string(id));
  }
  return Activation(id);
}

}  // namespace amkl
