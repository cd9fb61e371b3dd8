// amkl's workspace pool (cuda/common/workspace_pool.h): it keeps its memory across stream
// synchronisations (the runtime's default pool hands it back at each one, and a loop that
// synchronises between calls then maps fresh memory on every call), and it leaves the
// device's default pool as it was. Skips without a Hopper GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>

#include "amkl/amkl.h"
#include "cuda/common/workspace_pool.h"
#include "cuda_assert.h"

namespace {

uint64_t pool_attr(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  uint64_t v = 0;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, attr, &v), cudaSuccess);
  return v;
}

TEST(GpuWorkspacePool, KeepsItsMemoryAcrossSynchronisation) {
  if (!amkl::gpu_supported(0)) GTEST_SKIP() << "no Hopper GPU";
  CK(cudaSetDevice(0));
  cudaMemPool_t pool = amkl::cuda::workspace_pool(0);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(amkl::cuda::workspace_pool(0), pool) << "one pool per device";
  cudaMemPool_t default_pool = nullptr;
  CK(cudaDeviceGetDefaultMemPool(&default_pool, 0));
  EXPECT_NE(pool, default_pool);
  EXPECT_EQ(pool_attr(pool, cudaMemPoolAttrReleaseThreshold),
            uint64_t(amkl::cuda::kWorkspacePoolKeepBytes));
  EXPECT_EQ(pool_attr(default_pool, cudaMemPoolAttrReleaseThreshold), 0u)
      << "the device's default pool keeps the runtime's setting";

  cudaStream_t stream = nullptr;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const size_t bytes = size_t(3) << 20;
  void* a = amkl::cuda::workspace_alloc(bytes, 0, stream);
  ASSERT_NE(a, nullptr);
  CK(cudaMemsetAsync(a, 0x5a, bytes, stream));
  CK(cudaFreeAsync(a, stream));
  CK(cudaStreamSynchronize(stream));
  EXPECT_EQ(pool_attr(pool, cudaMemPoolAttrUsedMemCurrent), 0u);
  const uint64_t kept = pool_attr(pool, cudaMemPoolAttrReservedMemCurrent);
  EXPECT_GE(kept, uint64_t(bytes)) << "the freed workspace stays reserved after a sync";

  // The next workspace reuses the kept memory: the pool does not grow.
  void* b = amkl::cuda::workspace_alloc(bytes, 0, stream);
  ASSERT_NE(b, nullptr);
  CK(cudaFreeAsync(b, stream));
  CK(cudaStreamSynchronize(stream));
  EXPECT_EQ(pool_attr(pool, cudaMemPoolAttrReservedMemCurrent), kept);
  CK(cudaStreamDestroy(stream));
}

}  // namespace
