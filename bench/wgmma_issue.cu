// How long a warpgroup takes to issue a batch of WGMMAs, and how long the batch takes to run,
// on the GPU this runs on: N back-to-back 64x128x16 bf16 HGMMAs (one accumulator, the k-loop
// of one S or P V block of the forward kernel), B from smem and A from smem (SS, like S = Q K^T)
// or from registers (RS, like O += P V), issued by one warpgroup alone or by two at once.
// Written to test bench/NOTES.md step 11's reading of the forward kernel's traces: that once a
// few HGMMAs are queued the issuing warp is held by the tensor pipe, so the kernel's "issue"
// phase (800-1150 cycles for 16 HGMMAs) is tensor time rather than descriptor latency. If the
// issue time stays flat as N grows, the pipe queues whole batches; if it grows with N at the
// execution rate, the warp waits for room.
// A second part times a softmax-like score policy on one warpgroup while the other idles or
// issues HGMMAs back to back (does the tensor pipe's register traffic slow the policy?).
// Usage: wgmma_issue   (one line per mode and N: median over the SMs' warpgroups, in cycles;
// then one line per load)
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
// The HGMMA's N (its B tile's rows): 128 as the kernel's S and P V; build with
// -DWGMMA_PROBE_N=64 to time the 64x64x16 HGMMAs of an S split in two column halves.
#ifndef WGMMA_PROBE_N
#define WGMMA_PROBE_N 128
#endif
using BN = Int<WGMMA_PROBE_N>;
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

// Calls f with the HGMMAs' A operand: registers (RS; loaded from sA's zeros, which ptxas cannot
// fold, before any clock read) or sA's descriptors (SS).
template <bool kRS, class Mma, class ThrMma, class SA, class F>
__device__ __forceinline__ void with_a_operand(Mma& mma, ThrMma& thr, SA& sA, int tid, F&& f) {
  if constexpr (kRS) {
    Tensor tA = make_tensor<Element>(partition_shape_A(mma, Shape<BM, BK>{}));
    // Through the raw pointer: sA's swizzled indexing here made ptxas serialize the N = 1
    // probe's WGMMA (C7511, insufficient registers) and changed the RS rows.
    const Element* a = raw_pointer_cast(sA.data());
    for (int i = 0; i < size(tA); ++i) tA(i) = a[(tid * size(tA) + i) % cosize_v<SmemLayoutA>];
    warpgroup_fence_operand(tA);
    f(tA);
  } else {
    f(thr.partition_fragment_A(sA));
  }
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
  with_a_operand<kRS>(mma, thr, sA, tid, run);
  if (tid == 0) {
    const int slot = blockIdx.x * kWarpgroups + threadIdx.x / 128;
    out[slot * 2] = best_issue + (keep == 1.f ? 1 : 0);  // keep == 1 never: the inputs are 0
    out[slot * 2 + 1] = best_total;
  }
}

// Launches kernel on one CTA per SM with kSmemBytes of dynamic smem and splits the `slots`
// pairs it wrote to out into first[] and second[].
template <class Kernel, class... Args>
bool run_pairs(Kernel kernel, int sms, int threads, const long long* out, size_t slots,
               std::vector<long long>& first, std::vector<long long>& second, Args... args) {
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) !=
      cudaSuccess) {
    return false;
  }
  kernel<<<sms, threads, kSmemBytes>>>(args...);
  if (cudaDeviceSynchronize() != cudaSuccess) return false;
  std::vector<long long> host(slots * 2);
  if (cudaMemcpy(host.data(), out, host.size() * sizeof(long long), cudaMemcpyDeviceToHost) !=
      cudaSuccess) {
    return false;
  }
  for (size_t i = 0; i < host.size(); i += 2) {
    first.push_back(host[i]);
    second.push_back(host[i + 1]);
  }
  return true;
}

long long median(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <int kN, bool kRS, int kWarpgroups>
bool measure(long long* out, int sms) {
  std::vector<long long> issue_cycles, total_cycles;
  if (!run_pairs(probe<kN, kRS, kWarpgroups>, sms, 128 * kWarpgroups, out,
                 size_t(sms) * kWarpgroups, issue_cycles, total_cycles, out, 5)) {
    return false;
  }
  const long long total = median(total_cycles);
  std::printf("%s 64x%dx16 %d warpgroup%s N=%2d: issue %5lld cycles, issue+run %5lld (%5.1f per "
              "HGMMA per warpgroup)\n",
              kRS ? "RS" : "SS", int(BN::value), kWarpgroups, kWarpgroups > 1 ? "s" : " ", kN,
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


// The second question: does another warpgroup's WGMMA traffic slow a warpgroup's score policy
// (the traces show the policy at 1.5-2.5x its instructions' latency)? Warpgroup 0 runs a
// softmax-like block on 64 registers per thread (the row max as a chain, then per element one
// FFMA, one ex2 and the row sum, like ScorePolicy's softmax) kPolicies times and times each;
// warpgroup 1 meanwhile idles, issues back-to-back batches of 16 HGMMAs (SS or RS), or runs
// the same policies (the two warpgroups' policies sharing each scheduler).
// out[cta * 2 + {0, 1}]: the median policy's cycles, the number of HGMMA batches warpgroup 1 ran.
enum class Load { kIdle, kSS, kRS, kPolicy };  // kPolicy: warpgroup 1 runs the policy too

template <Load kLoad>
__global__ void __launch_bounds__(256, 1) policy_under_load(long long* out, float* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  Element* a_ptr = reinterpret_cast<Element*>(smem);
  Element* b_ptr = a_ptr + cosize_v<SmemLayoutA>;
  for (int i = threadIdx.x; i < kSmemBytes / 16; i += blockDim.x) {
    reinterpret_cast<uint4*>(smem)[i] = make_uint4(0, 0, 0, 0);
  }
  cutlass::arch::fence_view_async_shared();
  __shared__ int policies_done;
  if (threadIdx.x == 0) policies_done = 0;
  __syncthreads();
  constexpr int kPolicies = 32;
  const int tid = threadIdx.x % 128;
  if (threadIdx.x >= 128 && kLoad != Load::kPolicy) {  // warpgroup 1: the load
    long long batches = 0;
    if constexpr (kLoad != Load::kIdle) {
      Tensor sA = make_tensor(make_smem_ptr(a_ptr), SmemLayoutA{});
      Tensor sB = make_tensor(make_smem_ptr(b_ptr), SmemLayoutB{});
      using Mma = std::conditional_t<kLoad == Load::kRS, MmaRS, MmaSS>;
      Mma mma;
      auto thr = mma.get_thread_slice(tid);
      Tensor tB = thr.partition_fragment_B(sB);
      Tensor acc = partition_fragment_C(mma, Shape<BM, BN>{});
      float keep = 0.f;
      auto batch = [&](auto const& tA) {
        mma.accumulate_ = GMMA::ScaleOut::Zero;
        warpgroup_fence_operand(acc);
        warpgroup_arrive();
        CUTE_UNROLL
        for (int n = 0; n < 16; ++n) issue(mma, tA, tB, acc, n);
        warpgroup_commit_batch();
        warpgroup_wait<0>();
        warpgroup_fence_operand(acc);
        keep += acc(int(batches) % size(acc));
        ++batches;
      };
      // The whole warpgroup decides together: WGMMA is warpgroup-wide, and warps that read
      // the flag at different times would split it (an illegal instruction on the H200).
      auto go_on = [&] {
        const int done = *static_cast<volatile int*>(&policies_done);
        int any_done;
        asm volatile(
            "{ .reg .pred p, q;\n"
            "  setp.ne.s32 p, %1, 0;\n"
            "  bar.red.or.pred q, 2, 128, p;\n"
            "  selp.s32 %0, 1, 0, q; }\n"
            : "=r"(any_done)
            : "r"(done));
        return any_done == 0;
      };
      auto loop = [&](auto const& tA) {
        while (go_on()) batch(tA);
      };
      with_a_operand<kLoad == Load::kRS>(mma, thr, sA, tid, loop);
      sink[blockIdx.x * 256 + threadIdx.x] = keep;
    }
    if (tid == 0) out[blockIdx.x * 2 + 1] = batches;
    return;
  }
  // warpgroup 0 (and 1 for kPolicy): the policies, on scores that stay in a useful range
  // from one to the next.
  float sc[64];
  for (int i = 0; i < 64; ++i) sc[i] = 0.01f * float((tid * 7 + i * 13) % 97);
  long long cycles[kPolicies];
  const float scale_log2 = 0.127f;
  for (int k = 0; k < kPolicies; ++k) {
    const long long t0 = clock64();
    float mx[2] = {sc[0], sc[2]}, sum[2] = {0.f, 0.f};
    CUTE_UNROLL
    for (int i = 0; i < 64; ++i) mx[(i >> 1) & 1] = fmaxf(mx[(i >> 1) & 1], sc[i]);
    CUTE_UNROLL
    for (int i = 0; i < 64; ++i) {
      float p;
      const float x = fmaf(sc[i], scale_log2, -mx[(i >> 1) & 1] * scale_log2);
      asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(p) : "f"(x));
      sum[(i >> 1) & 1] += p;
      sc[i] = p + 0.5f * sc[i];  // the next policy's scores depend on this one's
    }
    sc[0] += sum[0] * 1e-3f;
    sc[2] += sum[1] * 1e-3f;
    cycles[k] = clock64() - t0;
  }
  float keep = 0.f;
  for (int i = 0; i < 64; ++i) keep += sc[i];
  sink[blockIdx.x * 256 + threadIdx.x] = keep;
  if (threadIdx.x >= 128) return;  // kPolicy: warpgroup 1 ran the same policies
  asm volatile("bar.sync 1, 128;");  // warpgroup 0 only: all its warps are done
  if (tid == 0) atomicExch(&policies_done, 1);
  if (tid == 0) {
    if constexpr (kLoad == Load::kPolicy) out[blockIdx.x * 2 + 1] = 0;
    // the median of the policies after the first
    for (int i = 1; i < kPolicies; ++i) {
      for (int j = i + 1; j < kPolicies; ++j) {
        if (cycles[j] < cycles[i]) {
          const long long t = cycles[i];
          cycles[i] = cycles[j];
          cycles[j] = t;
        }
      }
    }
    out[blockIdx.x * 2] = cycles[1 + (kPolicies - 1) / 2];
  }
}

template <Load kLoad>
bool measure_policy(const char* name, long long* out, float* sink, int sms) {
  std::vector<long long> policy, batches;
  if (!run_pairs(policy_under_load<kLoad>, sms, 256, out, size_t(sms), policy, batches, out,
                 sink)) {
    return false;
  }
  std::printf("policy (64 scores/thread, one warpgroup) with the other warpgroup %s: %5lld "
              "cycles (its HGMMA batches meanwhile: %lld)\n",
              name, median(policy), median(batches));
  return true;
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
  float* sink = nullptr;
  if (cudaMalloc(&sink, size_t(sms) * 256 * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "wgmma_issue: cudaMalloc failed\n");
    return 1;
  }
  const bool ok = sweep<false, 1>(out, sms) && sweep<true, 1>(out, sms) &&
                  sweep<false, 2>(out, sms) && sweep<true, 2>(out, sms) &&
                  measure_policy<Load::kIdle>("idle", out, sink, sms) &&
                  measure_policy<Load::kSS>("issuing SS HGMMAs", out, sink, sms) &&
                  measure_policy<Load::kRS>("issuing RS HGMMAs", out, sink, sms) &&
                  measure_policy<Load::kPolicy>("running the same policies", out, sink, sms);
  cudaFree(sink);
  cudaFree(out);
  if (!ok) std::fprintf(stderr, "wgmma_issue: %s\n", cudaGetErrorString(cudaGetLastError()));
  return ok ? 0 : 1;
}
