// TensorRef helpers and dtype/device names.
#include "amkl/tensor.h"

#include <sstream>

#include "amkl/error.h"

namespace amkl {

int dtype_size(DType t) {
  switch (t) {
    case DType::Float64: return 8;
    case DType::Float32: return 4;
    case DType::Float16: return 2;
    case DType::BFloat16: return 2;
    case DType::Float8E4M3: return 1;
    case DType::Float8E5M2: return 1;
    case DType::Int32: return 4;
    case DType::Int64: return 8;
  }
  throw Error(ErrorKind::InvalidArgument, "unknown dtype id " + std::to_string(int(t)));
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Float64: return "float64";
    case DType::Float32: return "float32";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float8E4M3: return "float8_e4m3";
    case DType::Float8E5M2: return "float8_e5m2";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
  }
  return "unknown";
}

std::string device_name(const Device& d) {
  return d.type == DeviceType::CPU ? std::string("cpu") : "cuda:" + std::to_string(d.index);
}

int64_t TensorRef::numel() const {
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

std::string TensorRef::shape_str() const {
  std::ostringstream s;
  s << "[";
  for (int i = 0; i < ndim; ++i) s << (i ? ", " : "") << shape[i];
  s << "]";
  return s.str();
}

TensorRef TensorRef::make(void* data, DType dtype, int ndim, const int64_t* shape,
                          const int64_t* strides, Device device) {
  if (ndim < 0 || ndim > kMaxDims) {
    throw Error(ErrorKind::InvalidArgument, "TensorRef: at most " + std::to_string(kMaxDims) +
                                                " dims are supported, got " + std::to_string(ndim));
  }
  TensorRef t;
  t.data = data;
  t.dtype = dtype;
  t.device = device;
  t.ndim = ndim;
  int64_t contiguous = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    t.shape[i] = shape[i];
    t.strides[i] = strides ? strides[i] : contiguous;
    contiguous *= shape[i];
  }
  return t;
}

TensorRef TensorRef::make(void* data, DType dtype, std::initializer_list<int64_t> shape,
                          std::initializer_list<int64_t> strides, Device device) {
  if (strides.size() != 0 && strides.size() != shape.size()) {
    throw Error(ErrorKind::InvalidArgument, "TensorRef: " + std::to_string(strides.size()) +
                                                " strides given for " +
                                                std::to_string(shape.size()) + " dims");
  }
  return make(data, dtype, int(shape.size()), shape.begin(),
              strides.size() ? strides.begin() : nullptr, device);
}

}  // namespace amkl
