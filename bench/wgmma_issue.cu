// How long a warpgroup takes to issue a batch of WGMMAs, and how long the batch takes to run,
// on the GPU this runs on: N back-to-back 64x128x16 bf16 HGMMAs (one accumulator, the k-loop
// of one S or P V block of the forward kernel), B from smem and A from smem (SS, like S = Q K^T)
// or from registers (RS, like O += P V), issued by one warpgroup alone or by two at once.
// Written to test bench/NOTES.md step 11's reading of the forward kernel's traces: that once a
// few HGMMAs are queued the issuing warp is held by the tensor pipe, so the kernel's "issue"
// phase (800-1150 cycles for 16 HGMMAs) is tensor time rather than descriptor latency. If the
// issue time stays flat as N grows, the pipe queues whole batches; if it grows with N at the
// execution rate, the warp waits for room.
// Usage: wgmma_issue   (one line per mode and N: median over the SMs' warpgroups, in cycles)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include <cute/tensor.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/numeric_types.h>

// A named namespace: an anonymous one clashes with CuTe's in nvcc's generated launch stubs.
namespace wgmma_probe {

using namespace cute;
using Element = cutlass::bfloat16_t;
using BM = _64;
using BN = _128;
using BK = _128;  // the smem tiles' depth: N HGMMAs cycle through its 8 k-blocks
using SmemAtom = GMMA::Layout_K_SW128_Atom<Element>;
using SmemLayoutA = decltype(tile_to_shape(SmemAtom{}, Shape<BM, BK>{}));
using SmemLayoutB = decltype(tile_to_shape(SmemAtom{}, Shape<BN, BK>{}));
using MmaSS = decltype(make_tiled_mma(
    GMMA::ss_op_selector<Element, Element, float, Shape<BM, BN, BK>>()));
using MmaRS = decltype(make_tiled_mma(
    GMMA::rs_op_selector<Element, Element, float, Shape<BM, BN, BK>>()));

constexpr int kSmemBytes = int((cosize_v<SmemLayoutA> + cosize_v<SmemLayoutB>) * sizeof(Element));
constexpr int kKBlocks = BK::value / 16;

template <class Mma, class TA, class TB, class TC>
__device__ __forceinline__ void issue(Mma& mma, TA const& a, TB const& b, TC& c, int n) {
  cute::gemm(mma, a(_, _, n % kKBlocks), b(_, _, n % kKBlocks), c);
  mma.accumulate_ = GMMA::ScaleOut::One;
}

// out[(cta * kWarpgroups + wg) * 2 + {0, 1}]: issue cycles, issue + completion cycles.
template <int kN, bool kRS, int kWarpgroups>
__global__ void __launch_bounds__(128 * kWarpgroups, 1) probe(long long* out, int reps) {
  extern __shared__ __align__(1024) unsigned char smem[];
  Element* a_ptr = reinterpret_cast<Element*>(smem);
  Element* b_ptr = a_ptr + cosize_v<SmemLayoutA>;
  for (int i = threadIdx.x; i < kSmemBytes / 16; i += blockDim.x) {
    reinterpret_cast<uint4*>(smem)[i] = make_uint4(0, 0, 0, 0);
  }
  cutlass::arch::fence_view_async_shared();  // generic-proxy writes, read by the WGMMA
  __syncthreads();
  Tensor sA = make_tensor(make_smem_ptr(a_ptr), SmemLayoutA{});
  Tensor sB = make_tensor(make_smem_ptr(b_ptr), SmemLayoutB{});
  using Mma = std::conditional_t<kRS, MmaRS, MmaSS>;
  Mma mma;
  const int tid = threadIdx.x % 128;
  auto thr = mma.get_thread_slice(tid);
  Tensor tB = thr.partition_fragment_B(sB);
  Tensor acc = partition_fragment_C(mma, Shape<BM, BN>{});
  // The fastest of the repetitions after the first (a warm-up); every repetition's result is
  // used (keep), so ptxas drops none of them.
  long long best_issue = 1ll << 62, best_total = 1ll << 62;
  float keep = 0.f;
  auto run = [&](auto const& tA) {
    for (int r = 0; r < reps; ++r) {
      __syncthreads();  // the warpgroups start together
      mma.accumulate_ = GMMA::ScaleOut::Zero;
      warpgroup_fence_operand(acc);
      warpgroup_arrive();
      const long long t0 = clock64();
      CUTE_UNROLL
      for (int n = 0; n < kN; ++n) issue(mma, tA, tB, acc, n);
      const long long t1 = clock64();
      warpgroup_commit_batch();
      warpgroup_wait<0>();
      warpgroup_fence_operand(acc);
      const long long t2 = clock64();
      keep += acc(r % size(acc));
      if (r > 0) {
        best_issue = t1 - t0 < best_issue ? t1 - t0 : best_issue;
        best_total = t2 - t0 < best_total ? t2 - t0 : best_total;
      }
    }
  };
  if constexpr (kRS) {
    // A's registers loaded from smem (zeros that ptxas cannot fold), before any clock read.
    Tensor tA = make_tensor<Element>(partition_shape_A(mma, Shape<BM, BK>{}));
    for (int i = 0; i < size(tA); ++i) tA(i) = a_ptr[(tid * size(tA) + i) % cosize_v<SmemLayoutA>];
    warpgroup_fence_operand(tA);
    run(tA);
  } else {
    run(thr.partition_fragment_A(sA));
  }
  if (tid == 0) {
    const int slot = blockIdx.x * kWarpgroups + threadIdx.x / 128;
    out[slot * 2] = best_issue + (keep == 1.f ? 1 : 0);  // keep == 1 never: the inputs are 0
    out[slot * 2 + 1] = best_total;
  }
}

long long median(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <int kN, bool kRS, int kWarpgroups>
bool measure(long long* out, int sms) {
  auto kernel = probe<kN, kRS, kWarpgroups>;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) !=
      cudaSuccess) {
    return false;
  }
  kernel<<<sms, 128 * kWarpgroups, kSmemBytes>>>(out, 5);
  if (cudaDeviceSynchronize() != cudaSuccess) return false;
  std::vector<long long> host(size_t(sms) * kWarpgroups * 2);
  if (cudaMemcpy(host.data(), out, host.size() * sizeof(long long), cudaMemcpyDeviceToHost) !=
      cudaSuccess) {
    return false;
  }
  std::vector<long long> issue_cycles, total_cycles;
  for (size_t i = 0; i < host.size(); i += 2) {
    issue_cycles.push_back(host[i]);
    total_cycles.push_back(host[i + 1]);
  }
  const long long total = median(total_cycles);
  std::printf("%s %d warpgroup%s N=%2d: issue %5lld cycles, issue+run %5lld (%5.1f per HGMMA "
              "per warpgroup)\n",
              kRS ? "RS" : "SS", kWarpgroups, kWarpgroups > 1 ? "s" : " ", kN,
              median(issue_cycles), total, double(total) / kN);
  return true;
}

template <bool kRS, int kWarpgroups>
bool sweep(long long* out, int sms) {
  return measure<1, kRS, kWarpgroups>(out, sms) && measure<2, kRS, kWarpgroups>(out, sms) &&
         measure<4, kRS, kWarpgroups>(out, sms) && measure<8, kRS, kWarpgroups>(out, sms) &&
         measure<16, kRS, kWarpgroups>(out, sms) && measure<24, kRS, kWarpgroups>(out, sms) &&
         measure<32, kRS, kWarpgroups>(out, sms);
}

}  // namespace wgmma_probe

int main() {
  using namespace wgmma_probe;
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    std::fprintf(stderr, "wgmma_issue: no CUDA device\n");
    return 1;
  }
  long long* out = nullptr;
  if (cudaMalloc(&out, size_t(sms) * 2 * 2 * sizeof(long long)) != cudaSuccess) {
    std::fprintf(stderr, "wgmma_issue: cudaMalloc failed\n");
    return 1;
  }
  const bool ok = sweep<false, 1>(out, sms) && sweep<true, 1>(out, sms) &&
                  sweep<false, 2>(out, sms) && sweep<true, 2>(out, sms);
  cudaFree(out);
  if (!ok) std::fprintf(stderr, "wgmma_issue: %s\n", cudaGetErrorString(cudaGetLastError()));
  return ok ? 0 : 1;
}
