// The CUDA backend's entry points, called by src/api with validated parameters only. In a
// build without CUDA, src/cuda/cuda_unavailable.cpp defines them to throw NotSupported.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/attention_params.h"

namespace amkl::cuda {

/// True when device `index` exists and is a Hopper GPU (compute capability 9.0).
bool device_supported(int index);
/// "NVIDIA H200, sm_90, 132 SMs", or why there is no usable device.
std::string device_description(int index);
/// Throws amkl::Error(NotSupported) naming the first thing the GPU kernels do not cover
/// (head dims, dtype, GPU), or returns when attention_forward(p) can run.
void check_forward_supported(const detail::AttentionParams& p);
void attention_forward(const detail::AttentionParams& p);
void check_backward_supported(const detail::AttentionParams& p);
void attention_backward(const detail::AttentionParams& p);
void attention_combine(const detail::CombineParams& p);
/// One device-to-host copy of copy_to_host.
struct HostCopy {
  void* dst;        ///< host memory
  const void* src;  ///< device memory
  size_t bytes;
};
/// Copies each buffer from device memory to host memory, ordered on `stream`, and waits once
/// for all of them. The copies go through a pinned staging buffer of the calling thread:
/// into pageable memory each copy would be a round trip of its own.
void copy_to_host(const std::vector<HostCopy>& copies, void* stream);

}  // namespace amkl::cuda
