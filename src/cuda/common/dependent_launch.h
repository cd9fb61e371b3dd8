// Programmatic dependent launch (PDL, sm_90): a kernel launched by launch_dependent may start
// while the kernel before it in the stream is still running, as soon as every block of that
// kernel has called allow_dependent_launch() (or exited). Before it reads anything that kernel
// writes it calls wait_for_prerequisite_grids(), which returns once that kernel has completed
// and its writes are visible (and, as each kernel of such a chain waits before it completes,
// those of every kernel of the chain before it). The chain's first kernel is launched the
// ordinary way, so all work queued before it is complete when any kernel of the chain starts:
// only the chain's own writes need the wait.
// Used for the forward's small set-up kernels: the scheduler's counter zeroed and the tile list
// built while the attention kernel's CTAs already start their first tiles, instead of a launch
// gap after each (bench/NOTES.md step 58).
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace amkl::cuda {

#if defined(__CUDACC__)
/// Lets the next kernel in the stream, if launched by launch_dependent, start its blocks.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Waits until the kernel before this one in the stream has completed and its writes are
/// visible (returns at once for a kernel launched the ordinary way).
__device__ __forceinline__ void wait_for_prerequisite_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// kernel<<<grid, block, smem_bytes, stream>>>(args...), allowed to start before the stream's
/// previous kernel has completed (see above; the kernel must call wait_for_prerequisite_grids
/// before it reads that kernel's writes). Returns the launch's error code. Captured into a CUDA
/// graph, the dependency becomes a programmatic edge.
template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem_bytes,
                             cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}
#endif

/// Zeroes `count` ints at `ints` (device memory) on `stream` with a one-block kernel that lets
/// the next kernel launch at once (a kernel launched by launch_dependent, which must call
/// wait_for_prerequisite_grids before it reads them). A memset cannot do this: only a kernel
/// releases its dependents early. Returns the launch's error code.
cudaError_t zero_ints_before_dependent(int* ints, int count, cudaStream_t stream);

}  // namespace amkl::cuda
