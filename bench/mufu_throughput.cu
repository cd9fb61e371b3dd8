// Issue rate of the special-function unit (MUFU) and the FMA pipe on the GPU this runs on:
// cycles per warp instruction per scheduler for tanh.approx.f32, ex2.approx.ftz.f32,
// tanh.approx.bf16x2 and fma.rn.f32, with 1, 2 and 4 warps per scheduler (4, 8, 16 per SM)
// and 8 independent chains per thread, so the pipe, not the latency, is what is timed.
// Written to settle what bounds the forward kernel's score policy (bench/NOTES.md, step 7).
// Usage: mufu_throughput   (prints one line per instruction and warp count)
#include <cuda_runtime.h>

#include <cstdio>

namespace {

enum Op { kTanh, kExp2, kFma, kTanhBf16x2 };

template <Op kOp>
__global__ void chains(float* sink, long long* cycles, int iters) {
  constexpr int kChains = 8;
  float v[kChains];
  for (int j = 0; j < kChains; ++j) v[j] = 0.001f * float(threadIdx.x + j);
  __syncthreads();
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < kChains; ++j) {
      float r;
      if constexpr (kOp == kTanh) {
        asm volatile("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(v[j]));
      } else if constexpr (kOp == kExp2) {
        asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v[j]));
      } else if constexpr (kOp == kFma) {
        asm volatile("fma.rn.f32 %0, %1, %1, %1;" : "=f"(r) : "f"(v[j]));
      } else {
        unsigned out;
        asm volatile("tanh.approx.bf16x2 %0, %1;" : "=r"(out) : "r"(__float_as_uint(v[j])));
        r = __uint_as_float(out);
      }
      v[j] = r;
    }
  }
  const long long t1 = clock64();
  __syncthreads();
  float s = 0.f;
  for (int j = 0; j < kChains; ++j) s += v[j];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // keeps the chains alive
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <Op kOp>
bool measure(const char* name, float* sink, long long* cycles, int sms) {
  constexpr int kIters = 2000;
  for (int warps : {4, 8, 16}) {
    chains<kOp><<<sms, warps * 32>>>(sink, cycles, 10);  // warm-up
    chains<kOp><<<sms, warps * 32>>>(sink, cycles, kIters);
    long long c = 0;
    if (cudaMemcpy(&c, cycles, sizeof(c), cudaMemcpyDeviceToHost) != cudaSuccess) return false;
    const double per_scheduler = double(warps / 4) * kIters * 8;  // warp instructions
    std::printf("%-18s %2d warps/SM: %5.2f cycles per warp instruction per scheduler\n", name,
                warps, double(c) / per_scheduler);
  }
  return true;
}

}  // namespace

int main() {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    std::fprintf(stderr, "mufu_throughput: no CUDA device\n");
    return 1;
  }
  float* sink = nullptr;
  long long* cycles = nullptr;
  if (cudaMalloc(&sink, size_t(sms) * 512 * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&cycles, size_t(sms) * sizeof(long long)) != cudaSuccess) {
    std::fprintf(stderr, "mufu_throughput: cudaMalloc failed\n");
    return 1;
  }
  const bool ok = measure<kTanh>("tanh.approx.f32", sink, cycles, sms) &&
                  measure<kExp2>("ex2.approx.f32", sink, cycles, sms) &&
                  measure<kTanhBf16x2>("tanh.approx.bf16x2", sink, cycles, sms) &&
                  measure<kFma>("fma.rn.f32", sink, cycles, sms);
  cudaFree(sink);
  cudaFree(cycles);
  if (!ok) std::fprintf(stderr, "mufu_throughput: %s\n", cudaGetErrorString(cudaGetLastError()));
  return ok ? 0 : 1;
}
