// amkl's own stream-ordered memory pool for the small per-call workspaces of its kernels
// (the tile scheduler's counter, the jagged tile list).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace amkl::cuda {

/// Bytes of unused workspace memory the pool keeps across synchronisations. The runtime's
/// default pool keeps none (release threshold 0): every stream or device synchronisation
/// hands its memory back to the driver, and the next cudaMallocAsync maps fresh memory, a
/// cost paid on every call of a loop that synchronises between calls (validate_offsets does,
/// on every jagged call). The workspaces are kilobytes to a few megabytes; memory held above
/// this bound is still returned at synchronisations.
constexpr size_t kWorkspacePoolKeepBytes = size_t(64) << 20;

/// amkl's pool on `device`, created on first use (thread-safe; also during a graph capture)
/// and kept for the process's life. Separate from the device's default pool so that its
/// release threshold does not change the memory behaviour of anything else in the process.
/// Not valid after cudaDeviceReset (the handle is cached; amkl never resets a device).
cudaMemPool_t workspace_pool(int device);

/// Stream-ordered workspace of `bytes` from workspace_pool(device), usable by work queued on
/// `stream` after this call; free it with cudaFreeAsync on the same stream. Under CUDA graph
/// capture the allocation becomes a graph allocation node, as with cudaMallocAsync.
void* workspace_alloc(size_t bytes, int device, cudaStream_t stream);

}  // namespace amkl::cuda
