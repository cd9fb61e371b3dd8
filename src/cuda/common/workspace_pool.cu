#include "cuda/common/workspace_pool.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "amkl/error.h"
#include "cuda/common/capture_mode.h"
#include "cuda/common/cuda_check.h"

namespace amkl::cuda {

cudaMemPool_t workspace_pool(int device) {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;  // by device index; never destroyed (process life)
  std::lock_guard<std::mutex> lock(mutex);
  if (device < 0) {
    throw Error(ErrorKind::InvalidArgument,
                "workspace_pool: device index must be >= 0, got " + std::to_string(device));
  }
  if (pools.size() <= size_t(device)) pools.resize(size_t(device) + 1, nullptr);
  if (pools[size_t(device)] == nullptr) {
    const RelaxedCaptureScope relaxed;  // the first call may come during a graph capture
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    AMKL_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    uint64_t keep = kWorkspacePoolKeepBytes;  // the attribute's value type is a 64-bit count
    const cudaError_t set = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    if (set != cudaSuccess) {
      cudaMemPoolDestroy(pool);
      check_cuda(set, "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)", __FILE__,
                 __LINE__);
    }
    pools[size_t(device)] = pool;
  }
  return pools[size_t(device)];
}

void* workspace_alloc(size_t bytes, int device, cudaStream_t stream) {
  void* p = nullptr;
  AMKL_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, workspace_pool(device), stream));
  return p;
}

}  // namespace amkl::cuda
