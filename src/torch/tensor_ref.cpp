#include "tensor_ref.h"

#include <c10/core/Stream.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

namespace amkl::torch_binding {

DType to_dtype(c10::ScalarType t, const char* name) {
  switch (t) {
    case c10::ScalarType::Double: return DType::Float64;
    case c10::ScalarType::Float: return DType::Float32;
    case c10::ScalarType::Half: return DType::Float16;
    case c10::ScalarType::BFloat16: return DType::BFloat16;
    case c10::ScalarType::Float8_e4m3fn: return DType::Float8E4M3;
    case c10::ScalarType::Float8_e5m2: return DType::Float8E5M2;
    case c10::ScalarType::Int: return DType::Int32;
    case c10::ScalarType::Long: return DType::Int64;
    default:
      // amkl's own checks give the precise expectation per argument; here we only say the
      // dtype has no amkl equivalent at all.
      TORCH_CHECK_VALUE(false, "amkl: ", name, " has dtype ", c10::toString(t),
                        ", which amkl does not support (float64, float32, float16, bfloat16, "
                        "float8_e4m3fn, float8_e5m2, int32, int64)");
  }
}

TensorRef to_ref(const at::Tensor& t, const char* name) {
  Device device;
  if (t.device().is_cpu()) {
    device = {DeviceType::CPU, 0};
  } else if (t.device().is_cuda()) {
    device = {DeviceType::CUDA, t.device().index()};
  } else {
    TORCH_CHECK_VALUE(false, "amkl: ", name, " is on device ", t.device().str(),
                      "; expected a CPU or CUDA tensor");
  }
  TORCH_CHECK_VALUE(t.dim() >= 1 && t.dim() <= TensorRef::kMaxDims, "amkl: ", name, " has ",
                    t.dim(), " dims; amkl takes 1 to ", TensorRef::kMaxDims);
  // amkl computes addresses from data + strides; the storage offset is in data_ptr().
  return TensorRef::make(t.data_ptr(), to_dtype(t.scalar_type(), name),
                         static_cast<int>(t.dim()), t.sizes().data(), t.strides().data(),
                         device);
}

TensorRef to_ref(const std::optional<at::Tensor>& t, const char* name) {
  if (!t.has_value() || !t->defined()) return TensorRef{};
  return to_ref(*t, name);
}

void* current_stream(const at::Tensor& t) {
  if (!t.device().is_cuda()) return nullptr;
  // The generic device-guard interface gives the stream without including CUDA headers,
  // so this file (and the extension) compiles on machines without the CUDA toolkit.
  const auto* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA);
  return impl->getStream(t.device()).native_handle();
}

}  // namespace amkl::torch_binding
