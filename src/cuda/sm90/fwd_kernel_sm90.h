// The Hopper attention forward kernel: softmax attention and GDPA in one mainloop.
//
// Persistent: each CTA walks tiles of the TileScheduler (one tile = kBlockM query rows of
// one head of one query sequence).
//   warpgroup 0, one thread: the producer. Per tile it TMA-loads Q (once the consumers have
//     released the previous tile's Q) and the K and V tiles of every key block the mask
//     allows into kStages rings (RingBarriers); the ring runs on across tiles, so short-KV
//     tiles do not drain the pipeline.
//   warpgroups 1..2: the consumers, 64 query rows each, taking turns on the tensor cores
//     (ping-pong through two named barriers). Per key block n: issue S(n) = Q K(n)^T
//     (SS-WGMMA) and, right behind it, O += P(n-1) V(n-1) (RS-WGMMA, P from registers); wait for
//     S(n) only; the score policy (softmax: online max/sum; pointwise: out_scale * f(scale*S),
//     masked entries exactly 0) runs while the PV WGMMA is in flight; then wait for PV,
//     rescale O (softmax), convert P to bf16/fp16 in registers. Epilogue: predicated stores.
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "common/activation_math.h"
#include "common/mask.h"
#include "cuda/common/seqlen_info.h"
#include "cuda/common/tile_scheduler.h"
#include "cuda/sm90/fwd_args.h"
#include "cuda/sm90/fwd_config_sm90.h"

namespace amkl::cuda::sm90 {

using namespace cute;

template <class Cfg>
struct FwdParams {
  FwdArgs args;
  typename Cfg::TmaQ tma_q;
  typename Cfg::TmaK tma_k;
  typename Cfg::TmaV tma_v;
  typename Cfg::GmemShape shape_q, shape_k, shape_v;
};

/// Issues one WGMMA batch C (+)= A * B over all k-blocks of A and B (not waited for).
template <bool kZeroInit, class TiledMma, class TA, class TB, class TC>
__device__ __forceinline__ void wgmma_issue(TiledMma& mma, TA const& a, TB const& b, TC& c) {
  warpgroup_fence_operand(c);
  warpgroup_arrive();
  if constexpr (kZeroInit) mma.accumulate_ = GMMA::ScaleOut::Zero;
  CUTE_UNROLL
  for (int k = 0; k < size<2>(a); ++k) {
    cute::gemm(mma, a(_, _, k), b(_, _, k), c);
    mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
}

__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

/// P = S converted to the MMA input type two at a time (one cvt.rn.{bf16x2,f16x2}.f32 each).
template <class FragS, class FragP>
__device__ __forceinline__ void convert_pairs(const FragS& s, FragP& p) {
  using Element = typename FragP::value_type;
  static_assert(sizeof(Element) == 2, "16-bit P");
  CUTE_UNROLL
  for (int i = 0; i < size(p) / 2; ++i) {
    if constexpr (cute::is_same_v<Element, cutlass::bfloat16_t>) {
      const __nv_bfloat162 v = __floats2bfloat162_rn(s(2 * i), s(2 * i + 1));
      p(2 * i) = Element::bitcast(__bfloat16_as_ushort(v.x));
      p(2 * i + 1) = Element::bitcast(__bfloat16_as_ushort(v.y));
    } else {
      const __half2 v = __floats2half2_rn(s(2 * i), s(2 * i + 1));
      p(2 * i) = Element::bitcast(__half_as_ushort(v.x));
      p(2 * i + 1) = Element::bitcast(__half_as_ushort(v.y));
    }
  }
}

/// What a CTA needs to know about one tile, the same on the producer and consumer sides.
struct TileWork {
  int m_block = 0, h = 0, b = 0, m0 = 0;
  int n_block_min = 0, n_block_max = 0;
  int full_lo = 0, full_hi = 0;  // keys in [full_lo, full_hi) are allowed for every row
  bool skip = true;              // no query row of this tile exists
  __device__ __forceinline__ int n_blocks() const { return n_block_max - n_block_min; }
};

template <class Cfg>
__device__ __forceinline__ TileWork tile_work(const FwdArgs& a, const TileScheduler& sched,
                                              int64_t t, SeqlenInfo& seq,
                                              detail::SeqMask& mask) {
  constexpr int kBlockM = Cfg::kBlockM, kBlockN = Cfg::kBlockN;
  TileWork w;
  sched.decode(t, w.m_block, w.h, w.b);
  seq = SeqlenInfo(a.q_side, a.kv_side, a.q_to_kv, w.b);
  w.m0 = w.m_block * kBlockM;
  if (w.m0 >= seq.len_q) return w;
  w.skip = false;
  mask = detail::SeqMask(seq.len_q, seq.len_k, a.bottom_right, a.window_left, a.window_right);
  const int m_last = min(w.m0 + kBlockM, seq.len_q) - 1;
  const int key_lo = int(mask.key_begin(w.m0));
  const int key_hi = int(mask.key_end(m_last));
  w.n_block_min = key_lo / kBlockN;
  w.n_block_max = key_hi > key_lo ? (key_hi + kBlockN - 1) / kBlockN : w.n_block_min;
  w.full_lo = int(mask.key_begin(m_last));
  w.full_hi = int(mask.key_end(w.m0));
  return w;
}

/// The pointwise activation with the GPU's fast forms where the shared definition's exact
/// IEEE division or software rounding would dominate the cost (same values up to f32 rounding).
template <Activation kAct>
__device__ __forceinline__ float act_gpu(float x) {
  if constexpr (kAct == Activation::Hardswish) {
    const float c = fminf(fmaxf(x + 3.f, 0.f), 6.f);
    return x * c * (1.f / 6.f);
  } else if constexpr (kAct == Activation::Silu) {
    // __fdividef: 2 ulp, and x / inf -> 0 for very negative x, as the limit wants.
    return __fdividef(x, 1.f + expf(-x));
  } else if constexpr (kAct == Activation::FastSilu) {
    return __fdividef(x, 1.f + __expf(-x));
  } else if constexpr (kAct == Activation::GeluApprox) {
    // tanh(u) = 1 - 2 / (exp(2u) + 1): a few ulp of f32, far below P's bf16 rounding.
    const float u = 0.7978845608f * x * (1.f + 0.044715f * x * x);
    const float t = 1.f - 2.f * __fdividef(1.f, __expf(2.f * u) + 1.f);
    return 0.5f * x * (1.f + t);
  } else if constexpr (kAct == Activation::FastGeluBf16) {
    // bf16 at every step as the definition says; cvt.rn.bf16 does the rounding in hardware.
    auto r = [](float v) { return __bfloat162float(__float2bfloat16_rn(v)); };
    const float xb = r(x);
    const float u = r(0.796875f * xb * (1.0f + 0.044715f * xb * xb));
    const float t = r(detail::act_fast_tanh(u));
    return r(xb * 0.5f * (1.0f + t));
  } else {
    return detail::activation_forward<float>(kAct, x);
  }
}

template <Activation kAct, class Frag>
__device__ __forceinline__ void apply_act(Frag& s, float scale, float out_scale) {
  CUTE_UNROLL
  for (int i = 0; i < size(s); ++i) s(i) = out_scale * act_gpu<kAct>(s(i) * scale);
}

template <class Frag>
__device__ __forceinline__ void pointwise_scores(Activation act, Frag& s, float scale,
                                                 float out_scale) {
  switch (act) {
#define AMKL_ACT_CASE(A) \
  case Activation::A: apply_act<Activation::A>(s, scale, out_scale); break;
    AMKL_ACT_CASE(Raw)
    AMKL_ACT_CASE(Gelu)
    AMKL_ACT_CASE(GeluApprox)
    AMKL_ACT_CASE(FastGelu)
    AMKL_ACT_CASE(LeakyRelu)
    AMKL_ACT_CASE(Relu)
    AMKL_ACT_CASE(FastGeluBf16)
    AMKL_ACT_CASE(Silu)
    AMKL_ACT_CASE(FastSilu)
    AMKL_ACT_CASE(Hardswish)
    AMKL_ACT_CASE(ReluSquare)
    AMKL_ACT_CASE(GeluTaylor)
#undef AMKL_ACT_CASE
    default: break;
  }
}

/// The score policies on one S block, in registers. Softmax: scale (and softcap), mask to
/// -inf, online max/sum; returns the per-row factor O must be rescaled by. Pointwise:
/// out_scale * f(scale * S), masked entries exactly 0; factor stays 1.
struct ScorePolicy {
  static constexpr float kLog2e = 1.4426950408889634f;
  float row_max[2], row_sum[2];

  __device__ __forceinline__ void reset() {
    row_max[0] = row_max[1] = -INFINITY;
    row_sum[0] = row_sum[1] = 0.f;
  }

  template <class FragS, class FragC>
  __device__ __forceinline__ void apply(const FwdArgs& a, const detail::SeqMask& mask,
                                        const TileWork& w, int n0, int block_n, FragS& s,
                                        const FragC& coord, float (&factor)[2]) {
    const bool need_mask = n0 < w.full_lo || n0 + block_n > w.full_hi;
    factor[0] = factor[1] = 1.f;
    if (a.activation != Activation::Softmax) {
      pointwise_scores(a.activation, s, a.scale, a.out_scale);
      if (need_mask) {
        CUTE_UNROLL
        for (int i = 0; i < size(s); ++i) {
          if (!mask.allowed(w.m0 + int(get<0>(coord(i))), n0 + int(get<1>(coord(i))))) s(i) = 0.f;
        }
      }
      return;
    }
    // Scores stay unscaled (raw S) when there is no softcap: the scale is folded into the max
    // and into one FFMA per element below (p = exp2(S * scale_log2 - max * scale_log2)).
    float sl2 = a.scale_log2;
    if (a.softcap > 0.f) {
      const float inv = a.scale / a.softcap, mul = a.softcap * kLog2e;
      CUTE_UNROLL
      for (int i = 0; i < size(s); ++i) s(i) = mul * detail::act_fast_tanh(s(i) * inv);
      sl2 = 1.f;
    }
    if (need_mask) {
      CUTE_UNROLL
      for (int i = 0; i < size(s); ++i) {
        if (!mask.allowed(w.m0 + int(get<0>(coord(i))), n0 + int(get<1>(coord(i)))))
          s(i) = -INFINITY;
      }
    }
    float bmax[2] = {-INFINITY, -INFINITY};
    CUTE_UNROLL
    for (int i = 0; i < size(s); ++i) bmax[(i >> 1) & 1] = fmaxf(bmax[(i >> 1) & 1], s(i));
    float m_use[2];
    CUTE_UNROLL
    for (int r = 0; r < 2; ++r) {
      // row_max is kept in log2 units; sl2 > 0, so the max commutes with the scaling.
      const float new_max = fmaxf(row_max[r], quad_max(bmax[r]) * sl2);
      m_use[r] = new_max == -INFINITY ? 0.f : new_max;
      factor[r] = exp2f(row_max[r] - m_use[r]);  // 0 while the row had no key
      row_max[r] = new_max;
      row_sum[r] *= factor[r];
    }
    CUTE_UNROLL
    for (int i = 0; i < size(s); ++i) {
      const float p = exp2f(fmaf(s(i), sl2, -m_use[(i >> 1) & 1]));
      row_sum[(i >> 1) & 1] += p;
      s(i) = p;
    }
  }
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    attention_fwd_sm90(const __grid_constant__ FwdParams<Cfg> params) {
  using Element = typename Cfg::Element;
  constexpr int kBlockN = Cfg::kBlockN;
  constexpr int kStages = Cfg::kStages;
  using SharedStorage = typename Cfg::SharedStorage;
  using BM = typename Cfg::BM;
  using BN = typename Cfg::BN;

  extern __shared__ __align__(1024) uint8_t smem_raw[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_raw);
  const FwdArgs& a = params.args;
  const TileScheduler sched{a.num_m_blocks, a.heads_q, int(a.q_side.batch), a.reverse_m};
  const int64_t num_tiles = sched.total();

  if (threadIdx.x == 0) {
    smem.bar_q.init(1);
    smem.bar_q_empty.init(Cfg::kConsumerThreads);
    smem.ring_k.init(Cfg::kConsumerThreads);
    smem.ring_v.init(Cfg::kConsumerThreads);
    smem.tiles.init(Cfg::kConsumerThreads);
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Cfg::SmemLayoutQ{});
  Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Cfg::SmemLayoutK{});
  Tensor sV = make_tensor(make_smem_ptr(smem.v.data()), typename Cfg::SmemLayoutV{});
  Tensor sVt = make_tensor(make_smem_ptr(smem.v.data()), typename Cfg::SmemLayoutVt{});
  SeqlenInfo seq;
  detail::SeqMask mask;

  if (threadIdx.x / 128 == 0) {
    // ================= producer: one thread issues every TMA load
    cutlass::arch::warpgroup_reg_dealloc<40>();
    if (threadIdx.x != 0) return;
    Tensor mQ = params.tma_q.get_tma_tensor(params.shape_q);
    Tensor mK = params.tma_k.get_tma_tensor(params.shape_k);
    Tensor mV = params.tma_v.get_tma_tensor(params.shape_v);
    RingState<kStages> st;
    RingState<2> slot;
    int tiles_done = 0;
    for (int64_t t = blockIdx.x;; t = int64_t(gridDim.x) + atomicAdd(a.tile_counter, 1)) {
      smem.tiles.empty[slot.index].wait(slot.phase ^ 1u);
      smem.tiles.tile[slot.index] = t;
      smem.tiles.full[slot.index].arrive();
      slot.advance();
      if (t >= num_tiles) break;
      const TileWork w = tile_work<Cfg>(a, sched, t, seq, mask);
      if (w.skip || w.n_blocks() <= 0) continue;
      const int hk = w.h / a.group;
      const int qb = a.q_side.jagged ? 0 : w.b * a.q_batch_mul;
      const int kb = a.kv_side.jagged ? 0 : seq.bk * a.kv_batch_mul;
      const int vb = a.kv_side.jagged ? 0 : seq.bk * a.v_batch_mul;
      Tensor gQ = local_tile(
          domain_offset(make_coord(seq.start_q, _0{}), mQ(_, _, w.h * a.q_head_mul, qb)),
          Shape<BM, typename Cfg::D>{}, make_coord(w.m_block, _0{}));
      Tensor gK = local_tile(
          domain_offset(make_coord(seq.start_k, _0{}), mK(_, _, hk * a.kv_head_mul, kb)),
          Shape<BN, typename Cfg::D>{}, make_coord(_, _0{}));
      Tensor gV = local_tile(
          domain_offset(make_coord(seq.start_k, _0{}), mV(_, _, hk * a.v_head_mul, vb)),
          Shape<BN, typename Cfg::DV>{}, make_coord(_, _0{}));
      auto [tQg, tQs] = tma_partition(params.tma_q, _0{}, Layout<_1>{}, group_modes<0, 2>(sQ),
                                      group_modes<0, 2>(gQ));
      auto [tKg, tKs] = tma_partition(params.tma_k, _0{}, Layout<_1>{}, group_modes<0, 2>(sK),
                                      group_modes<0, 2>(gK));
      auto [tVg, tVs] = tma_partition(params.tma_v, _0{}, Layout<_1>{}, group_modes<0, 2>(sV),
                                      group_modes<0, 2>(gV));
      // K of the first block before Q's wait: it does not depend on the previous tile.
      const int n0 = w.n_block_min;
      smem.ring_k.producer_acquire(st);
      copy(params.tma_k.with(smem.ring_k.producer_expect(st, Cfg::kBytesK)), tKg(_, n0),
           tKs(_, st.index));
      if (tiles_done > 0) smem.bar_q_empty.wait(uint32_t(tiles_done - 1) & 1u);
      smem.bar_q.arrive_and_expect_tx(Cfg::kBytesQ);
      copy(params.tma_q.with(reinterpret_cast<uint64_t&>(smem.bar_q)), tQg, tQs);
      smem.ring_v.producer_acquire(st);
      copy(params.tma_v.with(smem.ring_v.producer_expect(st, Cfg::kBytesV)), tVg(_, n0),
           tVs(_, st.index));
      st.advance();
      for (int n = n0 + 1; n < w.n_block_max; ++n) {
        smem.ring_k.producer_acquire(st);
        copy(params.tma_k.with(smem.ring_k.producer_expect(st, Cfg::kBytesK)), tKg(_, n),
             tKs(_, st.index));
        smem.ring_v.producer_acquire(st);
        copy(params.tma_v.with(smem.ring_v.producer_expect(st, Cfg::kBytesV)), tVg(_, n),
             tVs(_, st.index));
        st.advance();
      }
      ++tiles_done;
    }
    return;
  }

  // ================= consumers: two warpgroups, 64 query rows each, taking turns on the
  // tensor cores (ping-pong) and overlapping S(n) = Q K(n)^T with the scores of block n-1.
  cutlass::arch::warpgroup_reg_alloc<232>();
  const int tid = threadIdx.x - 128;
  const int cwg = tid / 128;  // consumer warpgroup 0 or 1
  constexpr int kBarFirst = 1;  // named barriers kBarFirst + cwg (0 is __syncthreads)
  auto turn_wait = [&] { cutlass::arch::NamedBarrier::sync(256, kBarFirst + cwg); };
  auto turn_pass = [&] { cutlass::arch::NamedBarrier::arrive(256, kBarFirst + (cwg ^ 1)); };
  typename Cfg::TiledMmaQK mma_qk;
  typename Cfg::TiledMmaPV mma_pv;
  auto thr_qk = mma_qk.get_thread_slice(tid);
  auto thr_pv = mma_pv.get_thread_slice(tid);
  Tensor tSrQ = thr_qk.partition_fragment_A(sQ);
  Tensor tSrK = thr_qk.partition_fragment_B(sK);
  Tensor tOrV = thr_pv.partition_fragment_B(sVt);
  Tensor tSrS = partition_fragment_C(mma_qk, Shape<BM, BN>{});
  Tensor tOrO = partition_fragment_C(mma_pv, Shape<BM, typename Cfg::DV>{});
  Tensor tOrP = make_tensor<Element>(partition_shape_A(mma_pv, Shape<BM, BN>{}));
  Tensor tScS = thr_qk.partition_C(make_identity_tensor(Shape<BM, BN>{}));
  Tensor tOcO = thr_pv.partition_C(make_identity_tensor(Shape<BM, typename Cfg::DV>{}));
  static_assert(size(tSrS) == size(tOrP), "P must map 1:1 onto S");
  const bool softmax = a.activation == Activation::Softmax;

  if (cwg == 1) turn_pass();  // warpgroup 0 takes the first turn
  RingState<kStages> st;
  RingState<2> slot;
  int tiles_done = 0;
  ScorePolicy pol;
  for (;;) {
    smem.tiles.full[slot.index].wait(slot.phase);
    const int64_t t = smem.tiles.tile[slot.index];
    smem.tiles.empty[slot.index].arrive();
    slot.advance();
    if (t >= num_tiles) break;
    const TileWork w = tile_work<Cfg>(a, sched, t, seq, mask);
    if (w.skip) continue;
    clear(tOrO);
    pol.reset();
    if (w.n_blocks() > 0) {
      smem.bar_q.wait(uint32_t(tiles_done) & 1u);
      float factor[2];
      // block n_min: S only.
      turn_wait();
      smem.ring_k.consumer_wait(st);
      wgmma_issue<true>(mma_qk, tSrQ, tSrK(_, _, _, st.index), tSrS);
      turn_pass();
      warpgroup_wait<0>();
      warpgroup_fence_operand(tSrS);
      smem.ring_k.consumer_release(st);
      if (w.n_blocks() == 1) smem.bar_q_empty.arrive();
      pol.apply(a, mask, w, w.n_block_min * kBlockN, kBlockN, tSrS, tScS, factor);
      convert_pairs(tSrS, tOrP);
      RingState<kStages> st_v = st;
      st.advance();
      // blocks n_min+1 ..: S(n) runs on the tensor cores while nothing else waits for it;
      // P(n-1) V(n-1) is issued right behind it.
      for (int n = w.n_block_min + 1; n < w.n_block_max; ++n) {
        turn_wait();
        smem.ring_k.consumer_wait(st);
        wgmma_issue<true>(mma_qk, tSrQ, tSrK(_, _, _, st.index), tSrS);
        smem.ring_v.consumer_wait(st_v);
        warpgroup_fence_operand(tOrP);
        wgmma_issue<false>(mma_pv, tOrP, tOrV(_, _, _, st_v.index), tOrO);
        turn_pass();
        warpgroup_wait<1>();
        warpgroup_fence_operand(tSrS);
        smem.ring_k.consumer_release(st);
        if (n == w.n_block_max - 1) smem.bar_q_empty.arrive();
        pol.apply(a, mask, w, n * kBlockN, kBlockN, tSrS, tScS, factor);
        warpgroup_wait<0>();
        warpgroup_fence_operand(tOrO);
        smem.ring_v.consumer_release(st_v);
        if (softmax) {
          CUTE_UNROLL
          for (int i = 0; i < size(tOrO); ++i) tOrO(i) *= factor[(i >> 1) & 1];
        }
        convert_pairs(tSrS, tOrP);
        st_v = st;
        st.advance();
      }
      // the last P V
      turn_wait();
      smem.ring_v.consumer_wait(st_v);
      warpgroup_fence_operand(tOrP);
      wgmma_issue<false>(mma_pv, tOrP, tOrV(_, _, _, st_v.index), tOrO);
      turn_pass();
      warpgroup_wait<0>();
      warpgroup_fence_operand(tOrO);
      smem.ring_v.consumer_release(st_v);
      ++tiles_done;
    }

    // ---- epilogue: normalize (softmax), predicated stores of O and LSE
    float lse[2] = {-INFINITY, -INFINITY};
    if (softmax) {
      float inv[2];
      CUTE_UNROLL
      for (int r = 0; r < 2; ++r) {
        const float sum = quad_sum(pol.row_sum[r]);
        inv[r] = sum > 0.f ? 1.f / sum : 0.f;
        lse[r] = sum > 0.f ? pol.row_max[r] / ScorePolicy::kLog2e + logf(sum) : -INFINITY;
      }
      CUTE_UNROLL
      for (int i = 0; i < size(tOrO); ++i) tOrO(i) *= inv[(i >> 1) & 1];
    }
    const int64_t row_base = int64_t(w.b) * a.o_batch + int64_t(seq.start_q + w.m0) * a.o_row +
                             int64_t(w.h) * a.o_head;
    CUTE_UNROLL
    for (int i = 0; i < size(tOrO); i += 2) {
      const int row = int(get<0>(tOcO(i)));
      const int col = int(get<1>(tOcO(i)));
      if (w.m0 + row >= seq.len_q) continue;
      const int64_t off = row_base + int64_t(row) * a.o_row + col;
      if (a.out_f32) {
        float* o = static_cast<float*>(a.out) + off;
        if (a.out_pairs) {
          *reinterpret_cast<float2*>(o) = make_float2(tOrO(i), tOrO(i + 1));
        } else {
          o[0] = tOrO(i);
          o[1] = tOrO(i + 1);
        }
      } else {
        Element* o = static_cast<Element*>(a.out) + off;
        if (a.out_pairs) {
          Element pair[2] = {Element(tOrO(i)), Element(tOrO(i + 1))};
          *reinterpret_cast<uint32_t*>(o) = *reinterpret_cast<const uint32_t*>(pair);
        } else {
          o[0] = Element(tOrO(i));
          o[1] = Element(tOrO(i + 1));
        }
      }
    }
    if (softmax && a.lse != nullptr && (tid % 4) == 0) {
      CUTE_UNROLL
      for (int r = 0; r < 2; ++r) {
        const int row = int(get<0>(tOcO(2 * r)));
        if (w.m0 + row < seq.len_q) {
          a.lse[int64_t(w.b) * a.lse_batch + int64_t(w.h) * a.lse_head +
                int64_t(seq.start_q + w.m0 + row) * a.lse_row] = lse[r];
        }
      }
    }
  }
}

}  // namespace amkl::cuda::sm90
