// Build and device queries.
#include "amkl/runtime.h"

#include "cuda/cuda_backend.h"

#ifndef AMKL_VERSION
#define AMKL_VERSION "0.0.0"
#endif

namespace amkl {

const char* version() { return AMKL_VERSION; }

bool built_with_cuda() {
#if defined(AMKL_WITH_CUDA)
  return true;
#else
  return false;
#endif
}

bool gpu_supported(int device_index) {
  try {
    return cuda::device_supported(device_index);
  } catch (...) {
    return false;
  }
}

std::string gpu_description(int device_index) {
  try {
    return cuda::device_description(device_index);
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace amkl
