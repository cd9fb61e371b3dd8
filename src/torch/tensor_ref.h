// Conversion between PyTorch tensors and amkl's framework-free TensorRef, and the device
// context (current stream, device guard) an amkl call runs in.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <optional>

#include "amkl/tensor.h"

namespace amkl::torch_binding {

/// A view of `t` for amkl: same pointer, dtype, device, shape and strides (in elements).
/// `name` appears in the error for an unsupported dtype, device or rank.
TensorRef to_ref(const at::Tensor& t, const char* name);

/// Same, for an optional argument: an empty TensorRef stands for "not given".
TensorRef to_ref(const std::optional<at::Tensor>& t, const char* name);

/// The amkl dtype of a torch dtype (the errors name `name`).
DType to_dtype(c10::ScalarType t, const char* name);

/// The cudaStream_t (as void*) PyTorch currently uses on t's device, or nullptr for CPU
/// tensors: amkl then orders its work after whatever PyTorch has queued.
void* current_stream(const at::Tensor& t);

}  // namespace amkl::torch_binding
