// Properties of the current CUDA device that launch code sizes its grids by.
#pragma once

#include <cuda_runtime.h>

#include "cuda/common/cuda_check.h"

namespace amkl::cuda {

/// Multiprocessors of the current device (the caller has set it: cudaSetDevice).
inline int current_device_sms() {
  int device = 0, sms = 0;
  AMKL_CUDA_CHECK(cudaGetDevice(&device));
  AMKL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

}  // namespace amkl::cuda
