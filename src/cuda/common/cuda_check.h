// Error checking of CUDA runtime calls: every failure becomes amkl::Error(Runtime) naming the
// call, the file and line, and the runtime's message.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "amkl/error.h"

namespace amkl::cuda {

inline void check_cuda(cudaError_t err, const char* what, const char* file, int line) {
  if (err != cudaSuccess) {
    throw Error(ErrorKind::Runtime, std::string("CUDA call ") + what + " failed at " + file + ":" +
                                        std::to_string(line) + ": " + cudaGetErrorName(err) +
                                        " (" + cudaGetErrorString(err) + ")");
  }
}

}  // namespace amkl::cuda

#define AMKL_CUDA_CHECK(call) ::amkl::cuda::check_cuda((call), #call, __FILE__, __LINE__)
