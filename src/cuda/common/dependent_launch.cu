#include "cuda/common/dependent_launch.h"

namespace amkl::cuda {
namespace {

__global__ void zero_ints_kernel(int* ints, int count) {
  allow_dependent_launch();  // the dependent's blocks may start; it waits for these stores
  for (int i = int(threadIdx.x); i < count; i += int(blockDim.x)) ints[i] = 0;
}

}  // namespace

cudaError_t zero_ints_before_dependent(int* ints, int count, cudaStream_t stream) {
  zero_ints_kernel<<<1, 256, 0, stream>>>(ints, count);
  return cudaGetLastError();
}

}  // namespace amkl::cuda
