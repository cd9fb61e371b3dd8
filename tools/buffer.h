// Buffer: a tensor's storage for the command-line tools, in host or CUDA memory, with
// conversions from double. Tools only: the library itself never allocates user tensors.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "amkl/tensor.h"

#if defined(AMKL_WITH_CUDA)
#include <cuda_runtime.h>
#endif

namespace amkl::tools {

inline uint16_t to_bf16_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
inline float from_bf16_bits(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

/// Host values (as double) plus, optionally, a device copy in a given dtype.
class Buffer {
 public:
  Buffer(DType dtype, std::vector<int64_t> shape, Device device)
      : dtype_(dtype), shape_(std::move(shape)), device_(device) {
    n_ = 1;
    for (int64_t s : shape_) n_ *= s;
    host_.assign(size_t(n_) * dtype_size(dtype_), 0);
#if defined(AMKL_WITH_CUDA)
    if (device_.type == DeviceType::CUDA) check(cudaMalloc(&dev_, host_.size() + 16), "cudaMalloc");
#endif
  }
  ~Buffer() {
#if defined(AMKL_WITH_CUDA)
    if (dev_) cudaFree(dev_);
#endif
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  int64_t numel() const { return n_; }
  const std::vector<int64_t>& shape() const { return shape_; }

  void set(int64_t i, double v) {
    uint8_t* p = host_.data() + size_t(i) * dtype_size(dtype_);
    switch (dtype_) {
      case DType::Float64: std::memcpy(p, &v, 8); break;
      case DType::Float32: { float f = float(v); std::memcpy(p, &f, 4); break; }
      case DType::BFloat16: { uint16_t b = to_bf16_bits(float(v)); std::memcpy(p, &b, 2); break; }
      case DType::Int32: { int32_t k = int32_t(v); std::memcpy(p, &k, 4); break; }
      default: throw std::runtime_error("Buffer::set: unsupported dtype");
    }
  }
  double get(int64_t i) const {
    const uint8_t* p = host_.data() + size_t(i) * dtype_size(dtype_);
    switch (dtype_) {
      case DType::Float64: { double v; std::memcpy(&v, p, 8); return v; }
      case DType::Float32: { float f; std::memcpy(&f, p, 4); return f; }
      case DType::BFloat16: { uint16_t b; std::memcpy(&b, p, 2); return from_bf16_bits(b); }
      case DType::Int32: { int32_t k; std::memcpy(&k, p, 4); return k; }
      default: throw std::runtime_error("Buffer::get: unsupported dtype");
    }
  }
  void fill(double v) {
    for (int64_t i = 0; i < n_; ++i) set(i, v);
  }

  /// Copies host values to the device (no-op for CPU buffers).
  void upload() {
#if defined(AMKL_WITH_CUDA)
    if (dev_) check(cudaMemcpy(dev_, host_.data(), host_.size(), cudaMemcpyHostToDevice), "upload");
#endif
  }
  /// Copies device values back to the host (no-op for CPU buffers).
  void download() {
#if defined(AMKL_WITH_CUDA)
    if (dev_) check(cudaMemcpy(host_.data(), dev_, host_.size(), cudaMemcpyDeviceToHost), "download");
#endif
  }

  TensorRef ref() {
    void* data = device_.type == DeviceType::CUDA ? dev_ : static_cast<void*>(host_.data());
    return TensorRef::make(data, dtype_, int(shape_.size()), shape_.data(), nullptr, device_);
  }

 private:
#if defined(AMKL_WITH_CUDA)
  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
#endif
  DType dtype_;
  std::vector<int64_t> shape_;
  Device device_;
  int64_t n_ = 0;
  std::vector<uint8_t> host_;
  void* dev_ = nullptr;
};

}  // namespace amkl::tools
