// The heavy-first tile list of the Hopper forward for variable-length batches (specs/gdpa.md
// 5.3), built on the device in two small kernels so that the whole call stays inside one
// stream (CUDA-graph capturable, no host sync), each launched as a dependent of the one before
// (dependent_launch.h: it starts early and waits where it reads its predecessor's writes):
//   tile_list_costs:   each tile's cost (the key blocks its mask lets it see) as a bucket, a
//                      histogram of the buckets; the last block to finish turns the histogram
//                      into bucket offsets (heaviest bucket first) and writes the list length.
//   tile_list_scatter: each block takes 1024 consecutive tiles, ranks them within their bucket
//                      in smem and reserves one range per bucket with a single global atomic,
//                      so tiles of one (sequence, head) stay near each other in the list.
// Tiles without query rows are left out. The forward kernel's CTAs then take list entries
// through the dynamic counter (largest remaining tile to the first free CTA: the LPT rule that
// the zigzag deal of specs/gdpa.md approximates statically).
#pragma once

#include <cstdint>

#include "cuda/common/dependent_launch.h"
#include "cuda/common/tile_scheduler.h"
#include "cuda/sm90/fwd_args.h"
#include "cuda/sm90/fwd_tile.h"

namespace amkl::cuda::sm90 {

/// The device workspace of one forward call, in ints: the scheduler's counter, the list
/// length, the finished-blocks count, the bucket histogram / offsets, then per tile its
/// bucket and the list itself.
struct TileListWorkspace {
  static constexpr int kBuckets = 1024;  // costs above 1023 key blocks share the top bucket
  static constexpr int kHeaderInts = 3 + kBuckets;  // zeroed before the kernels run
  static constexpr int kScatterTiles = 1024;         // tiles per tile_list_scatter block
  static constexpr int kThreads = 256;

  int* base = nullptr;
  __host__ __device__ int* counter() const { return base; }
  __host__ __device__ int* length() const { return base + 1; }
  __host__ __device__ int* blocks_done() const { return base + 2; }
  __host__ __device__ int* offsets() const { return base + 3; }
  __host__ __device__ int* buckets() const { return base + kHeaderInts; }
  __host__ __device__ int* list(int64_t tiles) const { return base + kHeaderInts + tiles; }
  static int64_t ints(int64_t tiles) { return kHeaderInts + 2 * tiles; }
};

/// Bucket of a tile: the heaviest first; -1 for a tile without query rows.
__device__ __forceinline__ int tile_bucket(const TileInfo& w) {
  if (w.skip) return -1;
  const int cost = min(w.n_blocks() + 1, TileListWorkspace::kBuckets - 1);
  return TileListWorkspace::kBuckets - 1 - cost;
}

template <int kBlockM, int kBlockN>
__global__ void __launch_bounds__(TileListWorkspace::kThreads)
    tile_list_costs(const FwdArgs a, int num_tiles, TileListWorkspace ws) {
  constexpr int kB = TileListWorkspace::kBuckets;
  __shared__ int hist[kB];
  __shared__ bool last;
  allow_dependent_launch();  // tile_list_scatter may start; it waits for this kernel
  for (int b = threadIdx.x; b < kB; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  const TileScheduler sched = tile_scheduler(a);
  int* buckets = ws.buckets();
  // 64-bit index: num_tiles may sit just below 2^31, where t + stride would wrap.
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < num_tiles; t += stride) {
    const int b = tile_bucket(decode_tile<kBlockM, kBlockN>(a, sched, int(t), num_tiles));
    buckets[t] = b;
    if (b >= 0) atomicAdd(&hist[b], 1);
  }
  __syncthreads();
  wait_for_prerequisite_grids();  // the header zeroed (zero_ints_before_dependent)
  for (int b = threadIdx.x; b < kB; b += blockDim.x) {
    if (hist[b] != 0) atomicAdd(&ws.offsets()[b], hist[b]);
  }
  __threadfence();  // this block's counts are visible before it reports done
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(ws.blocks_done(), 1) == int(gridDim.x) - 1;
  __syncthreads();
  if (!last) return;
  // The last block: exclusive scan of the histogram, in place (counts -> first positions).
  constexpr int kPer = kB / TileListWorkspace::kThreads;
  int local[kPer], sum = 0;
  for (int j = 0; j < kPer; ++j) {
    local[j] = __ldcg(&ws.offsets()[threadIdx.x * kPer + j]);
    sum += local[j];
  }
  __shared__ int partial[TileListWorkspace::kThreads];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int step = 1; step < TileListWorkspace::kThreads; step *= 2) {  // inclusive scan
    const int v = threadIdx.x >= step ? partial[threadIdx.x - step] : 0;
    __syncthreads();
    partial[threadIdx.x] += v;
    __syncthreads();
  }
  int run = partial[threadIdx.x] - sum;
  for (int j = 0; j < kPer; ++j) {
    ws.offsets()[threadIdx.x * kPer + j] = run;
    run += local[j];
  }
  if (threadIdx.x == TileListWorkspace::kThreads - 1) *ws.length() = partial[threadIdx.x];
}

// static: this header is compiled into every per-instantiation .cu file (one private copy
// each; tile_list_costs is a template and needs no such care).
static __global__ void __launch_bounds__(TileListWorkspace::kThreads)
    tile_list_scatter(int num_tiles, TileListWorkspace ws) {
  constexpr int kB = TileListWorkspace::kBuckets;
  constexpr int kPer = TileListWorkspace::kScatterTiles / TileListWorkspace::kThreads;
  __shared__ int count[kB];
  allow_dependent_launch();  // the attention kernel may start; it waits for this kernel
  for (int b = threadIdx.x; b < kB; b += blockDim.x) count[b] = 0;
  wait_for_prerequisite_grids();  // tile_list_costs's buckets and offsets
  __syncthreads();
  const int* buckets = ws.buckets();
  const int64_t first = int64_t(blockIdx.x) * TileListWorkspace::kScatterTiles;
  int bucket[kPer], rank[kPer];
  for (int j = 0; j < kPer; ++j) {
    const int64_t t = first + j * TileListWorkspace::kThreads + threadIdx.x;
    bucket[j] = t < num_tiles ? buckets[t] : -1;
    rank[j] = bucket[j] >= 0 ? atomicAdd(&count[bucket[j]], 1) : 0;
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kB; b += blockDim.x) {  // one reservation per bucket
    if (count[b] != 0) count[b] = atomicAdd(&ws.offsets()[b], count[b]);
  }
  __syncthreads();
  int* list = ws.list(num_tiles);
  for (int j = 0; j < kPer; ++j) {
    if (bucket[j] >= 0) {
      list[count[bucket[j]] + rank[j]] = int(first + j * TileListWorkspace::kThreads + threadIdx.x);
    }
  }
}

}  // namespace amkl::cuda::sm90
