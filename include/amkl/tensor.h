// TensorRef: a non-owning view of a strided tensor in host or device memory. amkl never
// allocates user-visible tensors; callers pass TensorRefs for inputs and outputs alike.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

namespace amkl {

/// Element types. The numeric values are part of the ABI (only append).
enum class DType : int32_t {
  Float64 = 0,
  Float32 = 1,
  Float16 = 2,
  BFloat16 = 3,
  Float8E4M3 = 4,
  Float8E5M2 = 5,
  Int32 = 6,
  Int64 = 7,
};

/// Size of one element in bytes.
int dtype_size(DType t);
/// Lower-case name, e.g. "bfloat16".
const char* dtype_name(DType t);

/// Where a tensor's memory lives.
enum class DeviceType : int32_t { CPU = 0, CUDA = 1 };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;  ///< CUDA ordinal; 0 for CPU
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

/// "cpu" or "cuda:N".
std::string device_name(const Device& d);

/// A strided view: `data` points at element [0,...,0]; strides are in elements (not bytes)
/// and may be zero on inputs (broadcast). An empty TensorRef (data == nullptr, ndim == 0)
/// stands for "not given" in optional arguments.
struct TensorRef {
  static constexpr int kMaxDims = 6;

  void* data = nullptr;
  DType dtype = DType::Float32;
  Device device{};
  int ndim = 0;
  int64_t shape[kMaxDims] = {0, 0, 0, 0, 0, 0};
  int64_t strides[kMaxDims] = {0, 0, 0, 0, 0, 0};

  /// True when the argument was given (ndim > 0 or data non-null).
  bool defined() const { return ndim > 0 || data != nullptr; }
  int64_t numel() const;
  /// "[2, 128, 8, 64]".
  std::string shape_str() const;
  /// Builds a TensorRef. `strides` empty means row-major contiguous.
  static TensorRef make(void* data, DType dtype, std::initializer_list<int64_t> shape,
                        std::initializer_list<int64_t> strides = {}, Device device = {});
  /// Same, from arrays (used by bindings).
  static TensorRef make(void* data, DType dtype, int ndim, const int64_t* shape,
                        const int64_t* strides /* nullable: contiguous */, Device device = {});
};

}  // namespace amkl
