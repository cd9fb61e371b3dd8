// A scope in which the calling thread may make calls that CUDA stream capture otherwise
// refuses as "potentially unsafe" (creating a memory pool, setting its attributes, pinned
// host allocations): amkl makes such calls once, lazily, and the first call of a process may
// come while this thread, or another thread in the default global mode, is capturing a graph.
// Those calls are not stream work, so they need not (and cannot) be recorded; without the
// scope they fail with cudaErrorStreamCaptureUnsupported and invalidate the capture.
#pragma once

#include <cuda_runtime.h>

namespace amkl::cuda {

class RelaxedCaptureScope {
 public:
  RelaxedCaptureScope() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCaptureScope() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCaptureScope(const RelaxedCaptureScope&) = delete;
  RelaxedCaptureScope& operator=(const RelaxedCaptureScope&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;  // swapped in, then back out
};

}  // namespace amkl::cuda
