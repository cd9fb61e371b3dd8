// The Hopper attention forward kernel: softmax attention and GDPA in one mainloop, compiled
// once per activation (softmax or one of the twelve pointwise activations).
//
// Persistent: each CTA walks tiles of the TileScheduler (one tile = kBlockM query rows of
// one head of one query sequence, or with GQA packing kBlockM / G positions of each of a KV
// head's G query heads: fwd_pack_gqa.h).
//   warpgroup 0, four threads: the scheduler (warp 1) takes tile indices, decodes each tile
//     once (TileInfo) and posts it through a smem mailbox to the loaders and the consumers, up
//     to the mailbox's slots ahead; three loaders (warps 0, 2, 3) TMA-load the K and V tiles
//     of every key block the mask allows into their rings and Q into a (double-buffered where
//     smem allows) Q ring, one thread per ring; the rings run on across tiles.
//   warpgroups 1..kConsumerWarpgroups: the consumers, 64 query rows each, taking turns on the
//     tensor cores in a ring (ping-pong for two; one named barrier per warpgroup). Per key
//     block n: issue S(n) = Q K(n)^T (SS-WGMMA) and, right behind it, O += P(n-1) V(n-1)
//     (RS-WGMMA, P from registers); wait for S(n) only; the score policy (softmax: online
//     max/sum; pointwise: f(scale*S), masked entries exactly 0) runs while the PV WGMMA is
//     in flight; then wait for PV, rescale O (softmax), convert P to bf16/fp16 in registers.
//     The last P V of a tile is issued together with the next tile's first S, so the
//     epilogue (normalize, out_scale, stores) runs while the tensor cores already work on the
//     next tile (specs/gdpa.md 5.4). O leaves through the tile's own Q stage where it can
//     (kStageO, 16-bit output, the warpgroup's 64 rows all exist): stmatrix into the bytes of
//     the warpgroup's Q rows, then TMA stores by one thread, and the stage goes back to the
//     producer once the TMA has read it (at the next tile's first S). Elsewhere O is stored
//     from registers: 16-byte row chunks after a transpose within each quad of lanes (deferred
//     into the next tile's first score policy) or pair / element stores.
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
#include "cuda/common/dependent_launch.h"
#include "cuda/common/tile_scheduler.h"
#include "cuda/sm90/fwd_args.h"
#include "cuda/sm90/fwd_config_sm90.h"
#include "cuda/sm90/fwd_fold.h"
#include "cuda/sm90/fwd_tile.h"
#include "cuda/sm90/fwd_trace.h"

namespace amkl::cuda::sm90 {

using namespace cute;

template <class Cfg>
struct FwdParams {
  FwdArgs args;
  typename Cfg::TmaQ tma_q;
  typename Cfg::TmaK tma_k;
  typename Cfg::TmaV tma_v;
  typename Cfg::TmaO tma_o;  // set where args.out_tma
  typename Cfg::GmemShape shape_q, shape_k, shape_v, shape_o;
  // GQA packing (args.pack_shift > 0): q as (d, heads, rows, batch), boxes of (64, G,
  // kBlockM / G, 1) into the Q stage's 64-column blocks (fwd_pack_gqa.h).
  TmaDescriptor tma_q_packed;
};

/// Issues one WGMMA batch C = A * B (zero_init) or C += A * B over the first kSteps k-blocks of
/// A and B (all of them where kSteps is 0; not waited for). Zeroing through the WGMMA's scale-d
/// rather than with register moves keeps ptxas from serializing the pipeline (no plain
/// instruction defines an accumulator while another batch is in flight).
template <int kSteps = 0, class TiledMma, class TA, class TB, class TC>
__device__ __forceinline__ void wgmma_issue(TiledMma& mma, TA const& a, TB const& b, TC& c,
                                            bool zero_init) {
  constexpr int kAll = int(decltype(size<2>(a))::value);
  static_assert(kSteps >= 0 && kSteps <= kAll, "kSteps: at most A's k-blocks");
  warpgroup_fence_operand(c);
  warpgroup_arrive();
  mma.accumulate_ = zero_init ? GMMA::ScaleOut::Zero : GMMA::ScaleOut::One;
  CUTE_UNROLL
  for (int k = 0; k < (kSteps > 0 ? kSteps : kAll); ++k) {
    cute::gemm(mma, a(_, _, k), b(_, _, k), c);
    mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
}

/// x, through an instruction the compiler cannot look through: values derived from it are
/// recomputed where they are used instead of being hoisted out of a loop and kept live.
__device__ __forceinline__ int opaque_int(int x) {
  int y;
  asm volatile("mov.b32 %0, %1;" : "=r"(y) : "r"(x));
  return y;
}

/// Whether `p` holds in any thread of the calling warpgroup: a reduction over a named barrier of
/// its 128 threads (all four warps must call it, with the same barrier).
__device__ __forceinline__ bool warpgroup_any(bool p, int barrier) {
  uint32_t any;
  asm volatile(
      "{\n .reg .pred p_in, p_out;\n setp.ne.u32 p_in, %1, 0;\n"
      " barrier.cta.red.or.pred p_out, %2, 128, p_in;\n selp.u32 %0, 1, 0, p_out;\n}\n"
      : "=r"(any)
      : "r"(uint32_t(p)), "r"(barrier)
      : "memory");
  return any != 0;
}

__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

/// Two floats as two 16-bit values of Element in one 32-bit word (one cvt.rn.*x2.f32).
template <class Element>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  static_assert(sizeof(Element) == 2, "16-bit Element");
  if constexpr (cute::is_same_v<Element, cutlass::bfloat16_t>) {
    return detail::pack_bf16x2(lo, hi);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  }
}

/// P = S converted to the MMA input type two at a time (one cvt.rn.{bf16x2,f16x2}.f32 each).
/// Not through pack2: splitting its 32-bit word back into two 16-bit elements costs a PRMT per
/// pair in the mainloop (measured: -5% on long rows, bench/NOTES.md).
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

/// O * mul (per row) converted to the MMA input type two at a time, for the smem staging.
template <class FragO, class FragOut>
__device__ __forceinline__ void convert_scaled_pairs(const FragO& o, const float (&mul)[2],
                                                     FragOut& out) {
  using Element = typename FragOut::value_type;
  Tensor out_pairs = recast<uint32_t>(out);  // elements 2i, 2i + 1 share a 32-bit word
  CUTE_UNROLL
  for (int i = 0; i < size(o) / 2; ++i) {
    const float m = mul[i & 1];  // fragment element 2i lies on row i & 1
    out_pairs(i) = pack2<Element>(o(2 * i) * m, o(2 * i + 1) * m);
  }
}

/// s = f(s, c0, c1, c2) over a fragment, with the folded constants of act_fold (fwd_act_fold.h).
template <class Frag, class F>
__device__ __forceinline__ void map_folded(Frag& s, const ActFold& fold, F f) {
  const float c0 = fold.c0, c1 = fold.c1, c2 = fold.c2;
  CUTE_UNROLL
  for (int i = 0; i < size(s); ++i) s(i) = f(s(i), c0, c1, c2);
}

/// f(scale * s) over a fragment (out_scale is applied to O in the epilogue: P V is linear).
/// kUnscaledHalf (fast_gelu and fast_gelu_bf16, bf16 P): fast_gelu's result is f(scale * s) /
/// (0.5 scale) where the scale folds, fast_gelu_bf16's 2 f(scale * s), and the epilogue
/// multiplies O by what was left out (p_unit_of): fewer instructions per element. Not for
/// fp16 P, whose range the larger values could exceed.
template <Activation kAct, bool kUnscaledHalf = false, class Frag>
__device__ __forceinline__ void apply_act(Frag& s, const FwdArgs& a) {
  if constexpr (kAct == Activation::FastGelu) {
    // 0.5 x (1 + tanh(x (c0 + c1 x^2))) at x = scale * s, with the scale folded into the
    // constants and the half into one FFMA (or into the epilogue: kUnscaledHalf): 6 (5)
    // instructions per element instead of 8 (the
    // benchmark's activation; with it a key block's score policy takes ~1575 cycles per
    // warpgroup against ~435 for the identity, bench/NOTES.md step 6). Evaluating a share of
    // the elements without the MUFU (exp2 polynomial + Newton reciprocal) made every row
    // slower (step 7): the added instructions cost more than the tanh throughput they free.
    // The folded constants come from the host (ActFold, fwd_act_fold.h).
    if (a.scale_fold.folds) {
      map_folded(s, a.scale_fold, [](float x, float c0, float c1, float half) {
        const float t = detail::act_fast_tanh(x * fmaf(c1, x * x, c0));
        if constexpr (kUnscaledHalf) {
          return fmaf(x, t, x);
        } else {
          const float hx = half * x;
          return fmaf(hx, t, hx);
        }
      });
    } else {
      CUTE_UNROLL
      for (int i = 0; i < size(s); ++i) {
        s(i) = detail::activation_forward_fast<Activation::FastGelu>(s(i) * a.scale);
      }
    }
  } else if constexpr (kAct == Activation::FastGeluBf16) {
    CUTE_UNROLL
    for (int i = 0; i < size(s); i += 2) {
      float x0 = s(i) * a.scale, x1 = s(i + 1) * a.scale;
      detail::fast_gelu_bf16_pair<kUnscaledHalf>(x0, x1);
      s(i) = x0;
      s(i + 1) = x1;
    }
  } else {
    if constexpr (kAct == Activation::Gelu) {
      // h + |h| erf(|x| / sqrt(2)) at x = scale * s, h = x / 2, with the scale folded into
      // erf's constants (ActFold): 11 instructions per element instead of 14 (the scale's
      // FMUL, erf's argument and the copysign go; the |h| is an operand modifier).
      if (a.scale_fold.folds) {
        map_folded(s, a.scale_fold, [](float x, float c0, float c1, float half_scale) {
          const float t = detail::fast_div(1.f, fmaf(c0, fabsf(x), 1.f));
          const float erf_abs = fmaf(-detail::erf_as_q(t), detail::fast_exp2(c1 * (x * x)), 1.f);
          const float h = half_scale * x;
          return fmaf(fabsf(h), erf_abs, h);
        });
        return;
      }
    } else if constexpr (act_folds(kAct)) {  // gelu_approx, silu, fast_silu
      // x / (1 + e) at x = scale * s, with the scale moved into the exponent's constants and
      // into the denominator (ActFold): s / ((1 + e) / scale) takes the 1 + e and the
      // scale's division in one FFMA: 7 (gelu_approx) and 5 (silu) instructions per element
      // instead of 8 and 6. An inf e gives the limit 0 as before.
      if (a.scale_fold.folds) {
        map_folded(s, a.scale_fold, [](float x, float c0, float c1, float inv_scale) {
          const float z = kAct == Activation::GeluApprox ? x * fmaf(c1, x * x, c0) : c0 * x;
          return detail::fast_div(x, fmaf(detail::fast_exp2(z), inv_scale, inv_scale));
        });
        return;
      }
    }
    CUTE_UNROLL
    for (int i = 0; i < size(s); ++i) s(i) = detail::activation_forward_fast<kAct>(s(i) * a.scale);
  }
}

/// What apply_act<kAct, kUnscaledHalf> left out of P, for the epilogue to multiply O by: 0.5
/// scale (fast_gelu, where the scale folds), 0.5 (fast_gelu_bf16), else 1.
template <Activation kAct, bool kUnscaledHalf>
__device__ __forceinline__ float p_unit_of(const FwdArgs& a) {
  if constexpr (!kUnscaledHalf) {
    return 1.f;
  } else if constexpr (kAct == Activation::FastGeluBf16) {
    return 0.5f;
  } else {
    static_assert(kAct == Activation::FastGelu, "kUnscaledHalf: fast_gelu or fast_gelu_bf16");
    return a.scale_fold.folds ? a.scale_fold.c2 : 1.f;
  }
}

/// The pack shift a kernel works with: FwdArgs::pack_shift where the kernel packs GQA
/// (FwdConfig::kPacksGqa), else 0 at compile time, so such kernels' code stays as without
/// packing (with three warpgroups the run-time shift cost spills: bench/NOTES.md step 18).
template <bool kPacks>
__device__ __forceinline__ int pack_shift_of(const FwdArgs& a) {
  return kPacks ? a.pack_shift : 0;
}

/// Sets the entries of an S block that the mask hides to `fill` (0 for the pointwise
/// activations, -inf for softmax). A thread holds two rows (fragment element i lies on row
/// (i >> 1) & 1) at columns c0 + dc(i), where c0 is its first column and dc(i) a compile-time
/// constant; so each row's allowed keys become bounds relative to c0 (from the tile's first-row
/// bounds, fwd_row_keys.h) and every element is one or two compares against an immediate and
/// a select. Without a left window a row's first allowed key is 0, never above the block's
/// keys, and only the upper bound is tested (the causal masks). Built from the tile info in
/// smem only for the blocks that need it, so that no registers hold it across the mainloop.
/// With GQA packing a row's position is the first row's plus its tile row >> pack_shift.
template <bool kPlain, class FragS, class FragC>
__device__ __forceinline__ void mask_block(const FwdArgs& a, const TileInfo& w, int n0, FragS& s,
                                           const FragC& coord, float fill, int pack_shift) {
  const int first_col = int(get<1>(coord(0)));
  const int c0 = n0 + first_col;
  int lo[2], hi[2];  // allowed: lo[r] <= dc(i) < hi[r]
  CUTE_UNROLL
  for (int r = 0; r < 2; ++r) {
    // fragment element 2r is on row r of the tile; dr: its position after the first row's
    const int dr = int(get<0>(coord(2 * r))) >> pack_shift;
    lo[r] = row_key_bound(w.row0_begin, dr, w.len_k) - c0;
    hi[r] = row_key_bound(w.row0_end, dr, w.len_k) - c0;
  }
  if (kPlain || a.window_left < 0) {  // uniform (a plain kernel has no left window)
    CUTE_UNROLL
    for (int i = 0; i < size(s); ++i) {
      const int dc = int(get<1>(coord(i))) - first_col;  // a compile-time constant
      if (!(dc < hi[(i >> 1) & 1])) s(i) = fill;
    }
  } else {
    CUTE_UNROLL
    for (int i = 0; i < size(s); ++i) {
      const int dc = int(get<1>(coord(i))) - first_col;
      const int r = (i >> 1) & 1;
      if (!(dc >= lo[r] && dc < hi[r])) s(i) = fill;
    }
  }
}

/// No extra work inside a score policy (see ScorePolicy::apply's `within`).
struct NoWork {
  __device__ __forceinline__ void operator()() const {}
};

/// ScorePolicy::apply's `refill` where softmax must take the block's max first (no S to fall
/// back on): the tile's first block, whose running max is -inf anyway.
struct NoRefill {
  template <class FragS>
  __device__ __forceinline__ void operator()(FragS&) const {}
};

/// ScorePolicy::apply's `refill` in the mainloop: `issue(s)` writes the block's S into s again
/// (a WGMMA: the whole warpgroup issues it), and any(p) is the warpgroup's vote on doing so.
template <class Issue>
struct WarpgroupRefill {
  Issue issue;
  int first_vote_barrier;  // consumer warpgroup w votes over named barrier first + w
  __device__ __forceinline__ WarpgroupRefill(Issue i, int first)
      : issue(i), first_vote_barrier(first) {}
  __device__ __forceinline__ bool any(bool p) const {
    // The consumer warpgroup (threads 128 .. on) from the thread index here, not kept live
    // across the mainloop: the three-warpgroup d = 64 kernel has no register to spare there.
    return warpgroup_any(p, first_vote_barrier + int(threadIdx.x) / 128 - 1);
  }
  template <class FragS>
  __device__ __forceinline__ void operator()(FragS& s) const {
    issue(s);
  }
};

/// The score policies on one S block, in registers. Softmax: scale (and softcap), mask to
/// -inf, online max/sum; returns the per-row factor O must be rescaled by. Pointwise:
/// out_scale * f(scale * S), masked entries exactly 0; factor stays 1.
struct ScorePolicy {
  static constexpr float kLog2e = float(detail::act_const::kLog2e);
  static constexpr float kMaxSlack = 8.f;  // log2 units (online_update)
  // exp_ahead gives up on a block whose max jumped by this much or more (log2 units): 2^x
  // overflows from x = 128 and the factor 2^-jump leaves float's normal range from 127.
  static constexpr float kAheadLimitP = 0x1p100f;
  float row_max[2], row_sum[2];

  __device__ __forceinline__ void reset() {
    row_max[0] = row_max[1] = -INFINITY;
    row_sum[0] = row_sum[1] = 0.f;
  }

  /// `within`: branch-free work independent of S (the previous tile's O stores), placed
  /// after the activation (or before softmax's exponentials), where ptxas may schedule its
  /// instructions among the policy's. (For fast_gelu it does not: the stores follow the
  /// activation's uniform branch and run as a block of their own; bench/NOTES.md step 9.)
  /// `full_lo`, `full_hi`: the tile's keys allowed for every row (TileInfo's), held in
  /// registers by the caller (read from the tile info in shared memory at every block, they
  /// cost two loads and a dozen instructions a block: bench/NOTES.md steps 20 and 26).
  /// `refill`: a WarpgroupRefill (or NoRefill). Given one, softmax takes the exponentials of
  /// an unmasked block ahead of its max (exp_ahead), and where that fails in some warp, the
  /// warpgroup scores the block again through it; every warp of the warpgroup must then call
  /// apply for the same blocks (its vote is a barrier).
  template <Activation kAct, int kBlockN, bool kUnscaledHalf, bool kPacks, bool kPlain,
            class FragS, class FragC, class Within = NoWork, class Refill = NoRefill>
  __device__ __forceinline__ void apply(const FwdArgs& a, const TileInfo& w, int n0, FragS& s,
                                        const FragC& coord, float (&factor)[2], int full_lo,
                                        int full_hi, Within&& within = NoWork{},
                                        Refill&& refill = NoRefill{}) {
    // Some key of the block is not allowed for some row of the tile.
    const bool need_mask = n0 < full_lo || n0 + kBlockN > full_hi;
    factor[0] = factor[1] = 1.f;
    if constexpr (kAct == Activation::Softmax) {
      constexpr bool kAhead = !cute::is_same_v<cute::remove_cvref_t<Refill>, NoRefill>;
      if constexpr (kAhead) {
        if (!need_mask) {  // uniform over the warpgroup: the tile's key range
          // A warp takes the exponentials ahead of the block's max where all its rows have a
          // finite running max (a row without keys so far has none to take them against; the
          // quad shuffles need the whole warp on one path). Where some row's max jumped too
          // far for them, the block is scored again through a WGMMA, which the whole
          // warpgroup issues: so the warpgroup votes on it (one named-barrier reduction a
          // block) before any warp commits its exponentials.
          const bool ahead =
              __all_sync(0xffffffffu, row_max[0] != -INFINITY && row_max[1] != -INFINITY);
          float sl2 = softcap_scores<kPlain>(a, s);
          within();
          float bsum[2];
          const bool jumped = ahead && exp_ahead(sl2, s, bsum);
          if (refill.any(jumped)) {
            refill(s);  // nothing was committed: the block is scored again, max first
            sl2 = softcap_scores<kPlain>(a, s);
            online_update(sl2, s, factor);
          } else if (ahead) {
            exp_ahead_commit(s, bsum, factor);
          } else {
            online_update(sl2, s, factor);
          }
          return;
        }
      }
      const float sl2 = softcap_scores<kPlain>(a, s);
      if (need_mask) mask_block<kPlain>(a, w, n0, s, coord, -INFINITY, pack_shift_of<kPacks>(a));
      within();
      online_update(sl2, s, factor);
    } else {
      apply_act<kAct, kUnscaledHalf>(s, a);
      within();
      if (need_mask) mask_block<kPlain>(a, w, n0, s, coord, 0.f, pack_shift_of<kPacks>(a));
    }
  }

  /// Softcap (where set) on raw S; returns the factor that takes the scores to log2 units.
  /// Scores stay unscaled (raw S) when there is no softcap: the scale is folded into the max
  /// and into one FFMA per element (p = exp2(S * scale_log2 - max * scale_log2)).
  template <bool kPlain, class FragS>
  __device__ __forceinline__ static float softcap_scores(const FwdArgs& a, FragS& s) {
    if (!kPlain && a.softcap > 0.f) {  // a plain kernel has no softcap
      const float inv = a.scale / a.softcap, mul = a.softcap * kLog2e;
      CUTE_UNROLL
      for (int i = 0; i < size(s); ++i) s(i) = mul * detail::act_fast_tanh(s(i) * inv);
      return 1.f;
    }
    return a.scale_log2;
  }

  /// The online max and sum on one block of scores (masked entries -inf), max first: P in
  /// place of S; factor: what O's rows must be rescaled by.
  template <class FragS>
  __device__ __forceinline__ void online_update(float sl2, FragS& s, float (&factor)[2]) {
    float bmax[2] = {-INFINITY, -INFINITY};
    CUTE_UNROLL
    for (int i = 0; i < size(s); ++i) bmax[(i >> 1) & 1] = fmaxf(bmax[(i >> 1) & 1], s(i));
    float m_use[2];
    CUTE_UNROLL
    for (int r = 0; r < 2; ++r) {
      // row_max is kept in log2 units; sl2 > 0, so the max commutes with the scaling. It is
      // the max P is taken against, not the row's true max: it moves only when a block's max
      // exceeds it by more than kMaxSlack, so P stays below 2^kMaxSlack (fine in fp32 sums and
      // in bf16/fp16 P) and for most blocks factor is exactly 1 and O is not rescaled. It is
      // an integer (a moved max is rounded up), as the CPU emulation's is: P then differs from
      // the emulation's P by a power of two, which bf16/fp16 rounding commutes with, so the
      // kernel rounds P as the emulation does (DESIGN.md 4's error rule).
      const float bm = quad_max(bmax[r]) * sl2;
      const bool move = !(bm <= row_max[r] + kMaxSlack);  // also the first finite max
      const float new_max = move ? ceilf(bm) : row_max[r];
      m_use[r] = new_max == -INFINITY ? 0.f : new_max;
      factor[r] = move ? detail::fast_exp2(row_max[r] - m_use[r]) : 1.f;  // 0 after no key
      row_max[r] = new_max;
      row_sum[r] *= factor[r];
    }
    CUTE_UNROLL
    for (int i = 0; i < size(s); ++i) {
      const float p = detail::fast_exp2(fmaf(s(i), sl2, -m_use[(i >> 1) & 1]));
      row_sum[(i >> 1) & 1] += p;
      s(i) = p;
    }
  }

  static constexpr float kSlackP = 256.f;  // 2^kMaxSlack
  static_assert(kMaxSlack == 8.f, "kSlackP is 2^kMaxSlack");

  /// The rows' maxima of P over the quad (P >= 0).
  template <class FragS>
  __device__ __forceinline__ static void p_row_max(const FragS& s, float (&pm)[2]) {
    float pmax[2] = {0.f, 0.f};
    CUTE_UNROLL
    for (int i = 0; i < size(s); ++i) pmax[(i >> 1) & 1] = fmaxf(pmax[(i >> 1) & 1], s(i));
    CUTE_UNROLL
    for (int r = 0; r < 2; ++r) pm[r] = quad_max(pmax[r]);
  }

  /// Whether some thread's partial row sum of P exceeds the slack (NaN included).
  __device__ __forceinline__ static bool past_slack(const float (&bsum)[2]) {
    return __any_sync(0xffffffffu, !(bsum[0] <= kSlackP) || !(bsum[1] <= kSlackP));
  }

  /// The online max and sum on an unmasked block whose rows all have a finite running max,
  /// exponentials first: they are taken against the running max before the block's max is
  /// known, so the MUFU queue starts with the policy instead of after the max reduction (ptxas
  /// issues every FMNMX before the first exponential otherwise, whatever the source order:
  /// bench/NOTES.md steps 25-26), and the block's max is read off P (2^x is monotonic). P in
  /// place of S and its partial row sums in bsum; nothing else changes until
  /// exp_ahead_commit. Returns (the same in the whole warp) whether some row's max jumped by
  /// log2(kAheadLimitP) or more: P may have overflowed there, and the block must be scored
  /// again from S.
  template <class FragS>
  __device__ __forceinline__ bool exp_ahead(float sl2, FragS& s, float (&bsum)[2]) const {
    bsum[0] = bsum[1] = 0.f;
    CUTE_UNROLL
    for (int i = 0; i < size(s); ++i) {
      const int r = (i >> 1) & 1;
      const float p = detail::fast_exp2(fmaf(s(i), sl2, -row_max[r]));
      bsum[r] += p;
      s(i) = p;
    }
    // P >= 0: where a thread's partial row sums stay within the slack, so does each of its
    // P, and the block's max is not needed at all. That is the common case (the running max
    // moves on a row's first blocks, rarely after), and it saves the block's 64 FMNMX and
    // the max's shuffles: instructions are what a block costs at the power cap
    // (bench/NOTES.md step 26). NaN sums take the slow path too (and stay NaN).
    if (!past_slack(bsum)) return false;
    float pm[2];
    p_row_max(s, pm);
    return __any_sync(0xffffffffu, !(pm[0] < kAheadLimitP) || !(pm[1] < kAheadLimitP));
  }

  /// exp_ahead's result committed where no row of the warpgroup jumped too far: the result is
  /// online_update's up to a power of two per row. Where a row's max moved past the slack, its
  /// P is multiplied by 2^(old max - new max) (exact), and so are its sums. P's row maxima are
  /// taken again here (where a sum is past the slack, rarely) rather than kept from
  /// exp_ahead: live across the warpgroup's vote, they cost the three-warpgroup d = 64 kernel
  /// spills in its mainloop.
  template <class FragS>
  __device__ __forceinline__ void exp_ahead_commit(FragS& s, float (&bsum)[2],
                                                   float (&factor)[2]) {
    if (past_slack(bsum)) {
      float pm[2];
      p_row_max(s, pm);
      if (__any_sync(0xffffffffu, !(pm[0] <= kSlackP) || !(pm[1] <= kSlackP))) {
        CUTE_UNROLL
        for (int r = 0; r < 2; ++r) {
          if (!(pm[r] <= kSlackP)) {
            // An integer, as online_update's: ceil(old max + log2(pm)), the block's max
            // rounded up (up to lg2's 2^-22 error, which at worst moves it by one: P <= 2).
            const float new_max = ceilf(row_max[r] + detail::fast_log2(pm[r]));
            factor[r] = detail::fast_exp2(row_max[r] - new_max);
            row_max[r] = new_max;
            row_sum[r] *= factor[r];
            bsum[r] *= factor[r];
          }
        }
        CUTE_UNROLL
        for (int i = 0; i < size(s); ++i) s(i) *= factor[(i >> 1) & 1];
      }
    }
    CUTE_UNROLL
    for (int r = 0; r < 2; ++r) row_sum[r] += bsum[r];
  }
};

/// The factor each of a thread's two rows of O is multiplied by (softmax: 1/sum; pointwise:
/// out_scale) and, for softmax, writes the rows' LSE.
constexpr float kLn2 = 0.6931471805599453f;

template <bool kPacks, class FragC, class Within = NoWork>
__device__ __forceinline__ void epilogue_scale(const FwdArgs& a, const TileInfo& w, bool softmax,
                                               float p_unit, const ScorePolicy& pol,
                                               const FragC& coord, int tid, float (&mul)[2],
                                               Within&& within = NoWork{}) {
  // p_unit: what the policy left out of P (apply_act's kUnscaledHalf), else 1.
  // `within`: work that needs mul, run before the LSE is computed and stored (the staging of
  // O: its stmatrix stores drain while the LSE work issues).
  mul[0] = mul[1] = w.has_blocks() ? a.out_scale * p_unit : 0.f;  // no key block: zeros stored
  if (!softmax) {
    within();
    return;
  }
  // In log2 units with the MUFU's rcp and lg2: the precise 1/sum, logf and division by
  // log2(e) cost ~1500 cycles per tile (branches, polynomials and slow paths; trace,
  // bench/NOTES.md step 10). The sum is at least 2^-1 where it is positive (the max P is taken
  // against is at most one above the row's true max), so the approximations stay in their
  // accurate range: rcp within 1 ulp, lg2 within 2^-22 absolute.
  float sum[2], lse[2];
  CUTE_UNROLL
  for (int r = 0; r < 2; ++r) {
    sum[r] = quad_sum(pol.row_sum[r]);
    mul[r] = sum[r] > 0.f ? detail::fast_div(1.f, sum[r]) : 0.f;
  }
  within();
  CUTE_UNROLL
  for (int r = 0; r < 2; ++r) {
    lse[r] = sum[r] > 0.f ? (pol.row_max[r] + detail::fast_log2(sum[r])) * kLn2 : -INFINITY;
  }
  if (a.lse != nullptr && (tid % 4) == 0) {
    CUTE_UNROLL
    for (int r = 0; r < 2; ++r) {
      const int row = int(get<0>(coord(2 * r)));
      const int pos = packed_row_position(w.m0, row, pack_shift_of<kPacks>(a));
      if (pos < w.len_q) {
        a.lse[int64_t(w.b) * a.lse_batch +
              int64_t(packed_row_head(w.h, row, pack_shift_of<kPacks>(a))) * a.lse_head +
              int64_t(w.start_q + pos) * a.lse_row] = lse[r];
      }
    }
  }
}

/// A thread's two rows of O (fragment element 2r lies on row r): the address of column `col`
/// in each, and whether the row exists.
template <class OutT, bool kPacks, class FragC>
__device__ __forceinline__ void o_rows(const FwdArgs& a, const TileInfo& w, const FragC& coord,
                                       int col, OutT* (&row_ptr)[2], bool (&row_ok)[2]) {
  CUTE_UNROLL
  for (int r = 0; r < 2; ++r) {
    const int row = int(get<0>(coord(2 * r)));
    const int pos = packed_row_position(w.m0, row, pack_shift_of<kPacks>(a));
    row_ok[r] = pos < w.len_q;
    row_ptr[r] = static_cast<OutT*>(a.out) + int64_t(w.b) * a.o_batch +
                 int64_t(packed_row_head(w.h, row, pack_shift_of<kPacks>(a))) * a.o_head +
                 int64_t(w.start_q + pos) * a.o_row + col;
  }
}

/// One output type's stores of O straight from the accumulators. A thread holds two rows
/// (fragment element i lies on row (i >> 1) & 1) and pairs of adjacent columns at fixed
/// distances from its first column, so each store is one address register plus an immediate
/// offset; the row bound is one predicate per row.
template <class OutT, bool kPairs, bool kPacks, class FragO, class FragC>
__device__ __forceinline__ void store_o_rows(const FwdArgs& a, const TileInfo& w, const FragO& o,
                                             const FragC& coord, const float (&mul)[2]) {
  const int col0 = int(get<1>(coord(0)));
  OutT* row_ptr[2];
  bool row_ok[2];
  o_rows<OutT, kPacks>(a, w, coord, col0, row_ptr, row_ok);
  CUTE_UNROLL
  for (int i = 0; i < size(o); i += 2) {
    const int r = (i >> 1) & 1;
    if (!row_ok[r]) continue;
    const int dc = int(get<1>(coord(i))) - col0;  // a compile-time constant
    const float v0 = o(i) * mul[r], v1 = o(i + 1) * mul[r];
    OutT* out = row_ptr[r] + dc;
    if constexpr (kPairs && sizeof(OutT) == 4) {
      *reinterpret_cast<float2*>(out) = make_float2(v0, v1);
    } else if constexpr (kPairs) {
      *reinterpret_cast<uint32_t*>(out) = pack2<OutT>(v0, v1);
    } else {
      out[0] = OutT(v0);
      out[1] = OutT(v1);
    }
  }
}

/// One butterfly step of a 4x4 word transpose within a quad of lanes: the lane with `upper`
/// set swaps its words (lo0, lo1), the other lane its (hi0, hi1), with the lane `mask` apart.
__device__ __forceinline__ void quad_exchange(uint32_t& lo0, uint32_t& lo1, uint32_t& hi0,
                                              uint32_t& hi1, bool upper, int mask) {
  uint32_t s0 = upper ? lo0 : hi0, s1 = upper ? lo1 : hi1;
  s0 = __shfl_xor_sync(0xffffffffu, s0, mask);
  s1 = __shfl_xor_sync(0xffffffffu, s1, mask);
  if (upper) {
    lo0 = s0;
    lo1 = s1;
  } else {
    hi0 = s0;
    hi1 = s1;
  }
}

/// 16-bit O in 16-byte row chunks. The accumulator gives each thread of a quad (4 lanes, same
/// two rows) one column pair of every 8-column group: fragment element i is row (i >> 1) & 1,
/// column col0 + 8 (i >> 2) + (i & 1), with col0 = 2 (lane % 4). Over four consecutive groups
/// a 4x4 transpose of 32-bit words within the quad (two butterfly steps, two shuffles each)
/// leaves each thread the 8 columns of one group, stored as one 16-byte word: a warp's store
/// then writes 8 rows x 64 contiguous bytes (whole sectors) instead of 8 x 16 bytes with pair
/// stores, with a quarter of the store instructions (bench/NOTES.md, step 6: +3% long rows,
/// +13-29% short ones).
/// Where store_o_vec16 writes a thread's two rows: the quad's first column in each, and
/// whether the row exists (computed while the tile's info is at hand; the stores may come later).
template <class OutT>
struct Vec16Rows {
  OutT* ptr[2];
  bool ok[2];

  template <bool kPacks, class FragC>
  __device__ __forceinline__ static Vec16Rows at(const FwdArgs& a, const TileInfo& w,
                                                 const FragC& coord) {
    Vec16Rows r;
    o_rows<OutT, kPacks>(a, w, coord, int(get<1>(coord(0))) - 2 * int(threadIdx.x % 4), r.ptr,
                         r.ok);
    return r;
  }
};

template <class OutT, class FragO>
__device__ __forceinline__ void store_o_vec16(const Vec16Rows<OutT>& rows, const FragO& o,
                                              const float (&mul)[2]) {
  constexpr int kGroups = int(decltype(size(o))::value) / 4;  // 8-column groups in a row
  static_assert(kGroups % 4 == 0, "d_v must be a multiple of 32");
  const int t = int(threadIdx.x % 4);
  const bool b0 = (t & 1) != 0, b1 = (t & 2) != 0;
  CUTE_UNROLL
  for (int r = 0; r < 2; ++r) {
    CUTE_UNROLL
    for (int g0 = 0; g0 < kGroups; g0 += 4) {
      uint32_t m[4];  // m[c]: this thread's pair of group g0 + c
      CUTE_UNROLL
      for (int c = 0; c < 4; ++c) {
        const int i = 4 * (g0 + c) + 2 * r;
        m[c] = pack2<OutT>(o(i) * mul[r], o(i + 1) * mul[r]);
      }
      quad_exchange(m[0], m[1], m[2], m[3], b1, 2);  // lanes t, t^2: t >= 2 sends m[0..1]
      quad_exchange(m[0], m[2], m[1], m[3], b0, 1);  // lanes t, t^1: odd t sends m[0], m[2]
      // m[s] now holds lane s's pair of group g0 + t: columns 8 (g0 + t) .. + 7 in order.
      if (rows.ok[r]) {
        *reinterpret_cast<uint4*>(rows.ptr[r] + 8 * (g0 + t)) = make_uint4(m[0], m[1], m[2], m[3]);
      }
    }
  }
}

/// O straight from the accumulators: 16-byte row chunks where the output allows (16-bit,
/// 16-byte aligned rows), else predicated stores of column pairs (one 4- or 8-byte store per
/// pair where the output's strides and alignment allow, else two).
template <class Cfg, class FragO, class FragC>
__device__ __forceinline__ void store_o_direct(const FwdArgs& a, const TileInfo& w,
                                               const FragO& o, const FragC& coord,
                                               const float (&mul)[2]) {
  using Element = typename Cfg::Element;
  if (a.out_vec16) {
    store_o_vec16(Vec16Rows<Element>::template at<Cfg::kPacksGqa>(a, w, coord), o, mul);
  } else if (a.out_f32) {
    if (a.out_pairs) {
      store_o_rows<float, true, Cfg::kPacksGqa>(a, w, o, coord, mul);
    } else {
      store_o_rows<float, false, Cfg::kPacksGqa>(a, w, o, coord, mul);
    }
  } else if (a.out_pairs) {
    store_o_rows<Element, true, Cfg::kPacksGqa>(a, w, o, coord, mul);
  } else {
    store_o_rows<Element, false, Cfg::kPacksGqa>(a, w, o, coord, mul);
  }
}

/// The forward kernel for one configuration and one activation. Each activation is a kernel
/// of its own: with the twelve pointwise activations inlined in one kernel and chosen at run
/// time, every row ran 3-15% slower than a kernel built for one activation, softmax's included
/// (bench/NOTES.md, steps 7 and 8).
/// kPlain: a kernel for the plain case (fwd_plain.h: no softcap, no left window, no GQA
/// packing, every tile's O leaving through TMA), where the paths for those are compiled out.
/// Its code is then ~40% smaller, with the same instructions executed: instruction fetch
/// stalled 5.4% of the warp samples at (32,16,512) in the full kernel, 3.2% without them, and
/// every d = 128 row ran 2-4% faster (bench/NOTES.md steps 32-33).
template <class Cfg, Activation kAct, bool kPlain>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    attention_fwd_sm90(const __grid_constant__ FwdParams<Cfg> params) {
  using Element = typename Cfg::Element;
  // GQA packing's paths exist in kernels that may pack (FwdConfig::kPacksGqa), never plain ones.
  constexpr bool kPacks = Cfg::kPacksGqa && !kPlain;
  constexpr int kBlockM = Cfg::kBlockM;
  constexpr int kBlockN = Cfg::kBlockN;
  constexpr int kStagesK = Cfg::kStagesK;
  constexpr int kStagesV = Cfg::kStagesV;
  constexpr int kQStages = Cfg::kQStages;
  // Local copies: CuTe's with() takes the hint by reference, which device code cannot bind to
  // a static member.
  constexpr TMA::CacheHintSm90 kHintQ = Cfg::kHintQ, kHintKV = Cfg::kHintKV;
  // Three consumer warpgroups leave 32 registers to the producer's threads and 160 to the
  // consumers', and ptxas spilled loop state in both (d = 64: ~200 B, nine local loads per key
  // block on the consumers' path, three of them before the S issue; bench/NOTES.md step 17).
  // Such kernels keep fewer values live (kTightRegisters): the V ring's position derived from
  // the K ring's, Q's descriptors rebuilt at each S issue, the deferred O stores' state reset
  // where it is not needed. Kernels with two warpgroups do not spill and keep their code (the
  // same changes there made ptxas spill more, not less).
  constexpr bool kTightRegisters = Cfg::kConsumerWarpgroups == 3;
  // With as many V stages as K stages the consumers' V ring position follows their K ring's:
  // they issue P V(n - 1) right after S(n), so one ring position serves both (the producer
  // loads K and V from two threads, each with its own).
  constexpr bool kVFollowsK = kTightRegisters && kStagesK == kStagesV;
  // The folded causal order (fwd_fold.h): only the scheduler thread's order changes, in the
  // plain kernels with two consumer warpgroups (where runs_fold lets a call fold).
  constexpr bool kFold = kPlain && Cfg::kConsumerWarpgroups == 2;
  // A warpgroup whose rows all see no key in the second half of the tile's last block (the
  // first warpgroup on a causal diagonal; a window's right edge; keys that end in a block's
  // first half) issues that block's P V over its first half only: P is exactly 0 over the
  // rest (masked). At the end of the tile only, where that P V is issued in one place: half
  // blocks at every issue site cost the unmasked rows 3-5% (a second issue path in the
  // steady loop), here +0.1..+0.6% on the short causal rows in five A/Bs and the rest level
  // (bench/NOTES.md steps 23, 61-62, 64). Not with three warpgroups, whose spills it adds to.
  constexpr bool kHalfLastPv = kBlockN == 128 && !kTightRegisters;
  using SharedStorage = typename Cfg::SharedStorage;
  using BM = typename Cfg::BM;
  using BN = typename Cfg::BN;
  using Mailbox = decltype(SharedStorage::tiles);

  extern __shared__ __align__(1024) uint8_t smem_raw[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_raw);
  const FwdArgs& a = params.args;
  const TileScheduler sched = tile_scheduler(a);
  const int num_tiles = int(sched.total());  // < 2^31 - 2^20, checked at the launch

  if (threadIdx.x == 0) {
    smem.ring_q.init(Cfg::kConsumerWarpgroups);  // one thread per warpgroup releases Q
    smem.ring_k.init(Cfg::kConsumerThreads);
    smem.ring_v.init(Cfg::kConsumerThreads);
    smem.tiles.init(Cfg::kConsumerThreads + 3);  // and the three loading threads
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  Tensor sQ = make_tensor(make_smem_ptr(smem.q.data()), typename Cfg::SmemLayoutQ{});
  Tensor sK = make_tensor(make_smem_ptr(smem.k.data()), typename Cfg::SmemLayoutK{});
  Tensor sV = make_tensor(make_smem_ptr(smem.v.data()), typename Cfg::SmemLayoutV{});
  Tensor sVt = make_tensor(make_smem_ptr(smem.v.data()), typename Cfg::SmemLayoutVt{});

  if (threadIdx.x / 128 == 0) {
    // ================= producer warpgroup: one thread (warp 1) decodes the tiles and posts them
    // to the mailbox, three others issue the TMA loads. Decoding a tile waits for global
    // loads (the sequence offsets; ~3500 cycles at GDPA L = 256 under full memory traffic,
    // bench/NOTES.md step 14) and the loads of V waited behind it when one thread did both.
    cutlass::arch::warpgroup_reg_dealloc<Cfg::kProducerRegs>();
    RingState<Mailbox::kNumSlots> slot;
    if (threadIdx.x == 32) {
      // The kernel is a dependent launch (dependent_launch.h): the counter (and the list) come
      // from the set-up kernels still running when it starts. This thread alone reads them,
      // after wait_for_prerequisite_grids: first thing where there is a list, else at the
      // first draw, the first tile posted before it (and before it returns, whatever the path,
      // so that the kernel never completes ahead of the kernels it depends on).
      if (a.tile_list) wait_for_prerequisite_grids();
      // Position in the sequence of tiles handed out: the tile list where there is one, else
      // the tile indices themselves.
      const int num_items = a.tile_list ? *a.tile_list_len : num_tiles;
      auto post = [&](const TileInfo& w) {
        smem.tiles.empty[slot.index()].wait(slot.phase() ^ 1u);
        smem.tiles.info[slot.index()] = w;
        smem.tiles.full[slot.index()].arrive();
        slot.advance();
      };
      // The n-th item this CTA takes: its first is blockIdx.x, each later one gridDim.x + a
      // ticket, claimed only once the mailbox has a free slot for it (for a folded unit, for
      // its first tile): the thread waits for the slot, then draws the ticket (waiting for the
      // atomic's round trip), then decodes and posts. A CTA so holds at most kMailboxSlots - 1
      // tiles beyond the one its consumers run, and the call's last tiles go to the CTAs that
      // come free first. (Drawn an item ahead of the post, as until step 59, tickets had a CTA
      // claim 3-5 one- or two-block tiles beyond its consumers', and at causal (32,16,512) the
      // CTAs idled 5.3% of the kernel waiting for the last; claimed here, 2.7%: +3.7..+5.2%
      // there, +7% at (16,16,512), +15% at unmasked (8,16,512) (3.9 tiles per CTA; now each
      // CTA runs 3 or 4), causal (8,16,2048) -1..-2%, the rest level; bench/NOTES.md steps
      // 59-60.) The first item is posted before the first draw: at the launch every CTA's
      // first atomic would meet the others' on one counter.
      auto claim = [&](int n) {
        smem.tiles.empty[slot.index()].wait(slot.phase() ^ 1u);  // post's wait, done first
        if (n == 0) return int(blockIdx.x);
        if (n == 1 && !a.tile_list) wait_for_prerequisite_grids();
        return int(gridDim.x) + draw_ticket(a.tile_counter);
      };
      if (kFold && a.fold) {
        // Items are folded units: the light tile, then the heavy one, posted back to back, so
        // the heavy one follows the light one in this CTA's loads and consumers. Each is
        // decoded only after the one before is posted (two decoded tiles at once spilled in
        // this thread's 40 registers).
        const int num_units = int(fold_units(a.num_m_blocks, num_tiles / a.num_m_blocks));
        for (int n = 0;; ++n) {
          const int u = claim(n);
          if (u >= num_units) {
            post(decode_tile<kBlockM, kBlockN>(a, sched, num_tiles, num_tiles));  // the end
            wait_for_prerequisite_grids();
            return;
          }
          const FoldUnit fu = fold_unit(u, a.num_m_blocks);
          TileInfo w = decode_tile<kBlockM, kBlockN>(a, sched, fu.light, num_tiles);
          if (!w.skip) post(w);
          if (fu.heavy < 0) continue;
          w = decode_tile<kBlockM, kBlockN>(a, sched, fu.heavy, num_tiles);
          if (!w.skip) post(w);
        }
      }
      for (int n = 0;; ++n) {
        const int item = claim(n);
        const int t_cur =
            a.tile_list ? (item < num_items ? a.tile_list[item] : num_tiles) : item;
        const TileInfo w = decode_tile<kBlockM, kBlockN>(a, sched, t_cur, num_tiles);
        if (!(t_cur < num_tiles && w.skip)) post(w);  // no query row: nobody hears of it
        if (t_cur >= num_tiles) {  // the end, posted
          wait_for_prerequisite_grids();
          return;
        }
      }
    }
    // Three loading threads, each taking the posted tiles from the mailbox: K's (warp 0), V's
    // (warp 2) and Q's (warp 3). No load then waits behind another ring's stage: a tile's K(n)
    // waits only for S(n - kStagesK) to free its stage, V(n) for P V(n - kStagesV), and the
    // next tile's Q for its stage alone (the O store of the tile before this one), where one
    // thread issuing K(n) after V(n - 1) made it wait for P V(n - 1 - kStagesV) as well, and
    // one thread loading the next Q after this tile's last V issued that Q only once P V of
    // the block two back had freed V's stage (bench/NOTES.md steps 52-53).
    constexpr int kLoadK = 0, kLoadV = 64, kLoadQ = 96;
    if (threadIdx.x != kLoadK && threadIdx.x != kLoadV && threadIdx.x != kLoadQ) return;
    AMKL_SM90_STAMP_INIT(a.trace,
                         threadIdx.x == kLoadK   ? 0
                         : threadIdx.x == kLoadV ? kTraceRoleLoadV
                                                 : kTraceRoleLoadQ,
                         true);
    Tensor mQ = params.tma_q.get_tma_tensor(params.shape_q);
    Tensor mK = params.tma_k.get_tma_tensor(params.shape_k);
    Tensor mV = params.tma_v.get_tma_tensor(params.shape_v);
    // The next posted tile's mailbox slot (each loading thread keeps its own position).
    auto next_tile = [&]() -> int {
      smem.tiles.full[slot.index()].wait(slot.phase());
      const int posted = slot.index();
      AMKL_SM90_STAMP(Fetched, smem.tiles.info[posted].n_blocks());
      slot.advance();
      return posted;
    };
    if (threadIdx.x == kLoadQ) {
      // Every tile with keys, in order, each as soon as its stage is free: with two Q stages
      // the next tile's Q is in flight while this tile's blocks still run.
      RingState<kQStages> st_q;
      for (int cur = next_tile(); smem.tiles.info[cur].t < num_tiles; cur = next_tile()) {
        const TileInfo& w = smem.tiles.info[cur];
        if (w.has_blocks()) {
          const int qb = a.q_side.jagged ? 0 : w.b * a.q_batch_mul;
          smem.ring_q.producer_acquire(st_q);
          uint64_t* bar = &smem.ring_q.producer_expect(st_q, Cfg::kBytesQ);
          if (kPacks && a.pack_shift > 0) {  // GQA packing: a 4-D box per 64 columns
            Element* stage =
                smem.q.data() + st_q.index() * cosize_v<typename Cfg::SmemLayoutQStage>;
            CUTE_UNROLL
            for (int j = 0; j < Cfg::kHeadDim / 64; ++j) {  // column block j: at j * kBlockM * 64
              SM90_TMA_LOAD_4D::copy(&params.tma_q_packed, bar, uint64_t(kHintQ),
                                     stage + j * kBlockM * 64, 64 * j, w.h << a.pack_shift,
                                     w.start_q + w.m0, qb);
            }
          } else {
            Tensor gQ = local_tile(
                domain_offset(make_coord(w.start_q, _0{}), mQ(_, _, w.h * a.q_head_mul, qb)),
                Shape<BM, typename Cfg::D>{}, make_coord(w.m_block, _0{}));
            auto [tQg, tQs] = tma_partition(params.tma_q, _0{}, Layout<_1>{},
                                            group_modes<0, 2>(sQ), group_modes<0, 2>(gQ));
            copy(params.tma_q.with(*bar, 0, kHintQ), tQg, tQs(_, st_q.index()));
          }
          AMKL_SM90_STAMP(LoadQ, 0);
          st_q.advance();
        }
        smem.tiles.empty[cur].arrive();  // done with the tile's slot
      }
      return;
    }
    if (threadIdx.x == kLoadV) {
      RingState<kStagesV> st_v;
      for (int cur = next_tile(); smem.tiles.info[cur].t < num_tiles; cur = next_tile()) {
        const TileInfo& w = smem.tiles.info[cur];
        if (w.has_blocks()) {
          const int hk = packed_tile_kv_head(w.h, a.group, pack_shift_of<kPacks>(a));
          const int vb = a.kv_side.jagged ? 0 : w.bk * a.v_batch_mul;
          Tensor gV = local_tile(
              domain_offset(make_coord(w.start_k, _0{}), mV(_, _, hk * a.v_head_mul, vb)),
              Shape<BN, typename Cfg::DV>{}, make_coord(_, _0{}));
          auto v_parts = tma_partition(params.tma_v, _0{}, Layout<_1>{},
                                       group_modes<0, 2>(sV), group_modes<0, 2>(gV));
          Tensor tVg = get<0>(v_parts);
          Tensor tVs = get<1>(v_parts);
          for (int n = w.n_block_min; n < w.n_block_max; ++n) {
            smem.ring_v.producer_acquire(st_v);
            copy(params.tma_v.with(smem.ring_v.producer_expect(st_v, Cfg::kBytesV), 0, kHintKV),
                 tVg(_, n), tVs(_, st_v.index()));
            AMKL_SM90_STAMP(LoadV, n);
            st_v.advance();
          }
        }
        smem.tiles.empty[cur].arrive();  // done with the tile's slot
      }
      return;
    }
    RingState<kStagesK> st_k;
    // Once tile i's first K load is issued (or, without keys, once it is taken), the slot of
    // tile i + 1 - kNumSlots (long done with) goes back: the scheduler takes tile i + 1 only
    // then, one tile ahead of the loads, as when this thread decoded the tiles itself. (Free
    // to run as far ahead as the slots allow, it lengthened the dynamic assignment's tail:
    // causal (8,16,2048) -4%; gated when tile i was taken, before its first load, -1..-2.5%
    // on the causal rows; bench/NOTES.md step 14.)
    int taken = 0;
    auto release_ahead = [&](int posted) {
      if (++taken >= Mailbox::kNumSlots) {
        smem.tiles.empty[(posted + 1) % Mailbox::kNumSlots].arrive();
      }
    };
    int cur = next_tile();
    while (smem.tiles.info[cur].t < num_tiles) {
      const TileInfo& w = smem.tiles.info[cur];
      if (!w.has_blocks()) {  // rows without keys: the consumers write zeros, nothing to load
        release_ahead(cur);
        cur = next_tile();
        continue;
      }
      const int hk = packed_tile_kv_head(w.h, a.group, pack_shift_of<kPacks>(a));
      const int kb = a.kv_side.jagged ? 0 : w.bk * a.kv_batch_mul;
      Tensor gK = local_tile(
          domain_offset(make_coord(w.start_k, _0{}), mK(_, _, hk * a.kv_head_mul, kb)),
          Shape<BN, typename Cfg::D>{}, make_coord(_, _0{}));
      auto k_parts = tma_partition(params.tma_k, _0{}, Layout<_1>{}, group_modes<0, 2>(sK),
                                   group_modes<0, 2>(gK));
      Tensor tKg = get<0>(k_parts);
      Tensor tKs = get<1>(k_parts);
      for (int n = w.n_block_min; n < w.n_block_max; ++n) {
        smem.ring_k.producer_acquire(st_k);
        copy(params.tma_k.with(smem.ring_k.producer_expect(st_k, Cfg::kBytesK), 0, kHintKV),
             tKg(_, n), tKs(_, st_k.index()));
        AMKL_SM90_STAMP(LoadK, n);
        st_k.advance();
        if (n == w.n_block_min) release_ahead(cur);
      }
      cur = next_tile();
    }
    return;
  }

  // ================= consumers: kConsumerWarpgroups warpgroups, 64 query rows each, taking
  // turns on the tensor cores in a ring (ping-pong for two) and overlapping S(n) = Q K(n)^T
  // with the scores of block n-1.
  cutlass::arch::warpgroup_reg_alloc<Cfg::kConsumerRegs>();
  const int tid = threadIdx.x - 128;
  const int cwg = tid / 128;  // consumer warpgroup 0 .. kConsumerWarpgroups - 1
  constexpr int kWarpgroups = Cfg::kConsumerWarpgroups;
  // NamedBarrier ids kBarFirst + cwg (the hardware's are ReservedNamedBarrierCount higher)
  constexpr int kBarFirst = 1;
  constexpr int kVoteBarrierFirst = 1;  // the hardware's ids 1 + cwg (refill_s)
  auto turn_wait = [&] { cutlass::arch::NamedBarrier::sync(256, kBarFirst + cwg); };
  auto turn_pass = [&] {
    cutlass::arch::NamedBarrier::arrive(256, kBarFirst + (cwg + 1) % kWarpgroups);
  };
  typename Cfg::TiledMmaQK mma_qk;
  typename Cfg::TiledMmaPV mma_pv;
  auto thr_qk = mma_qk.get_thread_slice(tid);
  auto thr_pv = mma_pv.get_thread_slice(tid);
  // Q's descriptors from the warpgroup's first thread, the warpgroup broadcast from lane 0:
  // the same for every thread of the warpgroup (an SS WGMMA's A operand is the warpgroup's
  // rows), and visibly so to ptxas (with q_index_in_loop: uniform registers).
  const int wg_first_thread = __shfl_sync(0xffffffffu, tid / 128, 0) * 128;
  Tensor tSrQ = mma_qk.get_thread_slice(wg_first_thread).partition_fragment_A(sQ);
  // K's and V's shared-memory bases and (below) stage indices broadcast from lane 0: the
  // part of their WGMMA descriptors that does not change is then computed once, not at
  // every block (step 26 of bench/NOTES.md: ~6 vector instructions a block).
  auto uniform_smem = [](Element* p) {
    const uint32_t u = __shfl_sync(0xffffffffu, uint32_t(__cvta_generic_to_shared(p)), 0);
    return static_cast<Element*>(__cvta_shared_to_generic(u));
  };
  Tensor tSrK = thr_qk.partition_fragment_B(
      make_tensor(make_smem_ptr(uniform_smem(smem.k.data())), typename Cfg::SmemLayoutK{}));
  Tensor tOrV = thr_pv.partition_fragment_B(
      make_tensor(make_smem_ptr(uniform_smem(smem.v.data())), typename Cfg::SmemLayoutVt{}));
  auto uniform_index = [](int i) { return __shfl_sync(0xffffffffu, i, 0); };
  Tensor tSrS = partition_fragment_C(mma_qk, Shape<BM, BN>{});
  Tensor tOrO = partition_fragment_C(mma_pv, Shape<BM, typename Cfg::DV>{});
  Tensor tOrP = make_tensor<Element>(partition_shape_A(mma_pv, Shape<BM, BN>{}));
  Tensor tScS = thr_qk.partition_C(make_identity_tensor(Shape<BM, BN>{}));
  Tensor tOcO = thr_pv.partition_C(make_identity_tensor(Shape<BM, typename Cfg::DV>{}));
  static_assert(size(tSrS) == size(tOrP), "P must map 1:1 onto S");
  constexpr bool softmax = kAct == Activation::Softmax;
  // fast_gelu_bf16's doubled pair made the three-warpgroup kernel (d 64) spill in its loop
  // (256 B of stack, 110 local accesses a block; bench/NOTES.md step 29): it keeps f whole.
  constexpr bool kUnscaledHalf =
      cute::is_same_v<Element, cutlass::bfloat16_t> &&
      (kAct == Activation::FastGelu || (kAct == Activation::FastGeluBf16 && !kTightRegisters));

  static_assert(1 + kWarpgroups <= kTraceRoleLoadV, "a trace slot per consumer warpgroup");
  AMKL_SM90_STAMP_INIT(a.trace, 1 + cwg, tid % 128 == 0);
  if (cwg == kWarpgroups - 1) turn_pass();  // warpgroup 0 takes the first turn
  RingState<kStagesK> st;  // K: the block whose S is issued next
  // V: the block whose P V is issued next; where it follows K, the K position one back.
  RingState<kStagesV> st_v_own;
  auto st_v_of = [&]() -> RingState<kStagesV> {
    if constexpr (kVFollowsK) {
      return st.prev();
    } else {
      return st_v_own;
    }
  };
  auto st_v_advance = [&] {
    if constexpr (!kVFollowsK) st_v_own.advance();
  };
  RingState<kQStages> st_q;
  RingState<Mailbox::kNumSlots> slot;
  bool s_issued = false;  // S of this tile's first block was issued at the end of the last tile
  // The last tile's O, when its 16-byte stores are deferred into this tile's first score
  // policy (the end of the tile loop says when).
  bool deferred = false;
  Vec16Rows<Element> deferred_rows;
  float deferred_mul[2];
  ScorePolicy pol;
  // The Q stage's index inside the block loop, opaque to the compiler and broadcast from lane
  // 0: Q's WGMMA descriptors (from it and the warpgroup's first thread, tSrQ above) are then
  // derived at each S issue on the uniform datapath, one R2UR for the index, instead of being
  // hoisted out of the loop into eight pairs of vector registers and moved to uniform ones
  // before every HGMMA (16 R2UR and 16 vector moves a block in the d = 128 kernels; bench/
  // NOTES.md steps 21 and 26). With three warpgroups the hoisted descriptors spilled.
  auto q_index_in_loop = [&] { return __shfl_sync(0xffffffffu, opaque_int(st_q.index()), 0); };
  // One thread per warpgroup releases its Q stages (the ring counts warpgroups): the first.
  const bool q_releaser = tid % 128 == 0;
  // O leaves this warpgroup's tile through the Q stage (kStageO) where the output allows, the
  // tile loaded Q (it has key blocks) and the warpgroup's 64 rows all exist; set per tile.
  bool stage_o = false;
  auto q_stage_data = [&](int q) {
    return smem.q.data() + q * cosize_v<typename Cfg::SmemLayoutQStage>;
  };
  // The Q stage O last left through (q_releaser only; -1: none): it goes back to the producer
  // once the TMA store has read it: when the next tile's first S has landed (flush_staged_q;
  // after that tile's first score policy instead, GDPA L = 256 ran 3% slower, bench/NOTES.md
  // step 13), at a tile without keys, or at the end.
  int staged_q = -1;
  auto flush_staged_q = [&] {
    if (staged_q >= 0) {
      tma_store_wait<0>();
      smem.ring_q.consumer_release_stage(staged_q);
      staged_q = -1;
    }
  };
  // O * mul into this warpgroup's rows of Q stage q (stage_o_write: stmatrix, run inside
  // epilogue_scale before softmax's LSE work), then (stage_o_issue) fenced for the async proxy
  // and, once all four warps wrote theirs, one thread stores the rows by TMA, 64 columns per
  // box. (The producer issuing these stores instead, from the released stage before it loads
  // the next Q, was 3-8% slower: bench/patches/producer-stores-o.patch, NOTES step 13.)
  auto stage_o_write = [&](int q, const float (&mul)[2]) {
    if constexpr (Cfg::kStageO) {
      Tensor sO = make_tensor(make_smem_ptr(q_stage_data(q)), typename Cfg::SmemLayoutOStage{});
      auto copy_o = make_tiled_copy_C(Copy_Atom<SM90_U32x4_STSM_N, Element>{}, mma_pv);
      auto thr_copy_o = copy_o.get_thread_slice(tid);
      Tensor rO = make_tensor_like<Element>(tOrO);
      convert_scaled_pairs(tOrO, mul, rO);
      copy(copy_o, thr_copy_o.retile_S(rO), thr_copy_o.partition_D(sO));
    }
  };
  auto stage_o_issue = [&](int q, const TileInfo& wr) {
    if constexpr (Cfg::kStageO) {
      Element* stage = q_stage_data(q);
      tma_store_fence();  // the generic-proxy writes, visible to the TMA (async proxy)
      AMKL_SM90_STAMP(OStaged, 0);
      const int bar_o = kBarFirst + kWarpgroups + cwg;  // after the turn barriers
      if ((tid % 128) / 32 == 0) {
        cutlass::arch::NamedBarrier::sync(128, bar_o);
      } else {
        cutlass::arch::NamedBarrier::arrive(128, bar_o);
      }
      if (q_releaser) {
        Tensor mO = params.tma_o.get_tma_tensor(params.shape_o);
        const int ob = a.q_side.jagged ? 0 : wr.b * a.o_batch_mul;
        Tensor gO = domain_offset(make_coord(wr.start_q + wr.m0 + 64 * cwg, _0{}),
                                  mO(_, _, wr.h * a.o_head_mul, ob));
        CUTE_UNROLL
        for (int j = 0; j < Cfg::kHeadDimV / 64; ++j) {
          Tensor sBox = make_tensor(make_smem_ptr(stage + j * kBlockM * 64 + cwg * 64 * 64),
                                    typename Cfg::SmemLayoutOBox{});
          Tensor gBox = local_tile(gO, Shape<_64, _64>{}, make_coord(_0{}, j));
          auto [tOg, tOs] = tma_partition(params.tma_o, _0{}, Layout<_1>{},
                                          group_modes<0, 2>(sBox), group_modes<0, 2>(gBox));
          copy(params.tma_o, tOs, tOg);
        }
        tma_store_arrive();
        staged_q = q;
      }
      AMKL_SM90_STAMP(OStoreIssued, 0);
    }
  };
  // S(n) has landed: its K stage goes back, and after the tile's last block its Q stage unless
  // O is to leave through it.
  auto s_landed = [&](int n, int n_max) {
    warpgroup_fence_operand(tSrS);
    smem.ring_k.consumer_release(st);
    if (n == n_max - 1 && !stage_o && q_releaser) smem.ring_q.consumer_release(st_q);
  };
  // S of the block being scored, again, from its Q and K stages (held until the policy is
  // done): only where ScorePolicy::exp_ahead found a jump of some row's running max too large
  // for its exponentials, which needs scores that jump by ~70 or more (natural units) from
  // one key block to the next. The warpgroup votes on it over its own named barrier: the
  // hardware's barrier 1 + cwg. (CUTLASS's NamedBarrier, which the turn and O barriers go
  // through, adds ReservedNamedBarrierCount to its ids and so never uses ids below it: they
  // are reserved for CUTLASS's own collectives, none of which this kernel runs.)
  const auto refill_s = WarpgroupRefill([&](auto& s) {
    wgmma_issue(mma_qk, tSrQ(_, _, _, q_index_in_loop()), tSrK(_, _, _, st.index()), s, true);
    warpgroup_wait<0>();
    warpgroup_fence_operand(s);
  }, kVoteBarrierFirst);
  static_assert(kVoteBarrierFirst + kWarpgroups <=
                    int(cutlass::arch::NamedBarrier::ReservedNamedBarrierCount),
                "the vote barriers lie below CUTLASS's NamedBarrier ids");
  smem.tiles.full[slot.index()].wait(slot.phase());
  for (;;) {
    const TileInfo& w = smem.tiles.info[slot.index()];
    if (w.t >= num_tiles) break;
    AMKL_SM90_STAMP(TileStart, w.n_blocks());
    pol.reset();
    bool first_pv = true;  // the tile's first P V zeroes O
    stage_o = Cfg::kStageO && a.out_tma && pack_shift_of<kPacks>(a) == 0 && w.has_blocks() &&
              w.m0 + 64 * (cwg + 1) <= w.len_q;
    int q_stage = 0;  // this tile's Q stage
    if (w.has_blocks()) {
      const int n_min = __shfl_sync(0xffffffffu, w.n_block_min, 0);
      const int n_max = __shfl_sync(0xffffffffu, w.n_block_max, 0);
      // Warp-uniform, and broadcast so that ptxas sees it: the mask branch stays uniform.
      const int full_lo = __shfl_sync(0xffffffffu, w.full_lo, 0);
      const int full_hi = __shfl_sync(0xffffffffu, w.full_hi, 0);
      // The last block's P V over its first half only (kHalfLastPv): where the warpgroup's
      // last row (the one with the highest key bound) sees no key past the block's middle.
      bool half_last_pv = false;
      if constexpr (kHalfLastPv) {
        const int dr_last = (64 * cwg + 63) >> pack_shift_of<kPacks>(a);
        half_last_pv = __shfl_sync(0xffffffffu,
                                   int(row_key_bound(w.row0_end, dr_last, w.len_k) <=
                                       (n_max - 1) * kBlockN + kBlockN / 2),
                                   0) != 0;
      }
      float factor[2];
      if (!s_issued) {  // block n_min: S only
        smem.ring_q.consumer_wait(st_q);
        turn_wait();
        AMKL_SM90_STAMP(IssueBegin, n_min);
        smem.ring_k.consumer_wait(st);
        wgmma_issue(mma_qk, tSrQ(_, _, _, st_q.index()), tSrK(_, _, _, st.index()), tSrS, true);
        turn_pass();
        AMKL_SM90_STAMP(IssueEnd, n_min);
      }
      warpgroup_wait<0>();
      AMKL_SM90_STAMP(SReady, n_min);
      s_landed(n_min, n_max);
      flush_staged_q();
      // `deferred` is warp-uniform (from s_issued and the call's output layout), but set in
      // the epilogue's branches on the tile info it looks per-thread to ptxas, and testing it
      // as it is kept the mainloop's K and V WGMMA descriptors off the uniform datapath (an
      // R2UR before every HGMMA; bench/NOTES.md step 20). Broadcast from lane 0 it does not.
      if (!kPlain && __shfl_sync(0xffffffffu, int(deferred), 0)) {
        pol.apply<kAct, kBlockN, kUnscaledHalf, kPacks, kPlain>(
            a, w, n_min * kBlockN, tSrS, tScS, factor, full_lo, full_hi,
            [&] { store_o_vec16(deferred_rows, tOrO, deferred_mul); });
        deferred = false;
      } else {
        pol.apply<kAct, kBlockN, kUnscaledHalf, kPacks, kPlain>(a, w, n_min * kBlockN, tSrS,
                                                                tScS, factor, full_lo, full_hi);
      }
      convert_pairs(tSrS, tOrP);
      AMKL_SM90_STAMP(ActDone, n_min);
      st.advance();
      // blocks n_min+1 ..: S(n) runs on the tensor cores while nothing else waits for it;
      // P(n-1) V(n-1) is issued right behind it.
      for (int n = n_min + 1; n < n_max; ++n) {
        turn_wait();
        AMKL_SM90_STAMP(IssueBegin, n);
        smem.ring_k.consumer_wait(st);
        wgmma_issue(mma_qk, tSrQ(_, _, _, q_index_in_loop()),
                    tSrK(_, _, _, uniform_index(st.index())), tSrS, true);
        smem.ring_v.consumer_wait(st_v_of());
        warpgroup_fence_operand(tOrP);
        wgmma_issue(mma_pv, tOrP, tOrV(_, _, _, uniform_index(st_v_of().index())), tOrO, first_pv);
        first_pv = false;
        turn_pass();
        AMKL_SM90_STAMP(IssueEnd, n);
        warpgroup_wait<1>();
        AMKL_SM90_STAMP(SReady, n);
        warpgroup_fence_operand(tSrS);
        pol.apply<kAct, kBlockN, kUnscaledHalf, kPacks, kPlain>(
            a, w, n * kBlockN, tSrS, tScS, factor, full_lo, full_hi, NoWork{}, refill_s);
        // Where the wait for P V lands is ptxas's choice: it hoists the wait to just after the
        // nearest earlier barrier arrive, or to where it first reuses one of P's registers
        // (dead to the compiler once P V is issued). With K released as soon as S landed, the
        // wait sat at the top of the score policy, where 7.5% of the kernel's warp samples
        // stalled (ncu, bench/NOTES.md step 25). With the releases (K's, and after the last
        // block Q's) after the policy and P kept live until P V has landed, it sinks behind
        // most of the exponentials, as FA3's does.
        s_landed(n, n_max);
        AMKL_SM90_STAMP(ActDone, n);
        warpgroup_wait<0>();
        AMKL_SM90_STAMP(PvReady, n);
        warpgroup_fence_operand(tOrP);
        warpgroup_fence_operand(tOrO);
        smem.ring_v.consumer_release(st_v_of());
        if constexpr (softmax) {
          // factor is exactly 1 unless the row's max moved (online_update's slack): no rescale
          // where no row of the warp moved.
          if (__any_sync(0xffffffffu, factor[0] != 1.f || factor[1] != 1.f)) {
            CUTE_UNROLL
            for (int i = 0; i < size(tOrO); ++i) tOrO(i) *= factor[(i >> 1) & 1];
          }
        }
        convert_pairs(tSrS, tOrP);
        st.advance();
        st_v_advance();
      }
      q_stage = st_q.index();
      st_q.advance();
      // The last P V, and with it the next tile's first S when the next tile loads anything:
      // the tensor cores start on it while this tile's epilogue runs. The S WGMMA is issued
      // either way: ptxas serializes the whole pipeline when an accumulator is written by a
      // WGMMA on one path only. Without a next tile it reads whatever the Q and K stages hold
      // (no wait, no release) and its result is never used: the next tile starts with a fresh S.
      RingState<Mailbox::kNumSlots> next = slot;
      next.advance();
      smem.tiles.full[next.index()].wait(next.phase());
      const TileInfo& w_next = smem.tiles.info[next.index()];
      // Broadcast so ptxas sees a warp-uniform value.
      s_issued = __shfl_sync(0xffffffffu, int(w_next.t < num_tiles && w_next.has_blocks()), 0);
      if (s_issued) smem.ring_q.consumer_wait(st_q);
      AMKL_SM90_STAMP(QReady, s_issued);
      turn_wait();
      AMKL_SM90_STAMP(IssueBegin, n_max);
      smem.ring_v.consumer_wait(st_v_of());
      warpgroup_fence_operand(tOrP);
      if (kHalfLastPv && half_last_pv) {  // the first half of the kBlockN / 16 k-steps
        wgmma_issue<kBlockN / 32>(mma_pv, tOrP, tOrV(_, _, _, st_v_of().index()), tOrO,
                                  first_pv);
      } else {
        wgmma_issue(mma_pv, tOrP, tOrV(_, _, _, st_v_of().index()), tOrO, first_pv);
      }
      first_pv = false;
      if (s_issued) smem.ring_k.consumer_wait(st);
      AMKL_SM90_STAMP(KReady, s_issued);
      wgmma_issue(mma_qk, tSrQ(_, _, _, st_q.index()), tSrK(_, _, _, st.index()), tSrS, true);
      turn_pass();
      AMKL_SM90_STAMP(IssueEnd, n_max);
      warpgroup_wait<1>();
      AMKL_SM90_STAMP(PvReady, n_max);
      warpgroup_fence_operand(tOrO);
      smem.ring_v.consumer_release(st_v_of());
      st_v_advance();
    } else {
      s_issued = false;
      flush_staged_q();
    }
    {  // the producer posts only tiles with query rows
      AMKL_SM90_STAMP(EpilogueBegin, 0);
      // The mailbox slot goes back before the stores of O: behind them, the arrive waited
      // ~1400 cycles (the trace of bench/NOTES.md, step 6). So the tile's info is copied to
      // registers first; the compiler barrier keeps those loads before the arrive.
      const TileInfo wr = w;
      asm volatile("" ::: "memory");
      smem.tiles.empty[slot.index()].arrive();
      float mul[2];
      const float p_unit = p_unit_of<kAct, kUnscaledHalf>(a);
      if (stage_o) {
        epilogue_scale<kPacks>(a, wr, softmax, p_unit, pol, tOcO, tid, mul,
                       [&] { stage_o_write(q_stage, mul); });
      } else {
        epilogue_scale<kPacks>(a, wr, softmax, p_unit, pol, tOcO, tid, mul);
      }
      AMKL_SM90_STAMP(OScaled, 0);
      // When the next tile's first S is already in flight (s_issued), O's 16-byte stores wait
      // for that tile's first score policy and run inside it: here they took ~2000 cycles
      // per tile of shuffle and store latency between the last P V and the next S (trace,
      // bench/NOTES.md step 9); deferred, the tile took 2.7% fewer cycles and the short-KV
      // rows ran 2-11% faster. O's registers stay untouched until then: the next P V that
      // writes them comes after.
      if constexpr (kTightRegisters) {
        // Written on every path, so that the last deferral's values are not kept live through
        // the next tile's loop (they are read only where `deferred` is set).
        deferred_rows = Vec16Rows<Element>{};
        deferred_mul[0] = deferred_mul[1] = 0.f;
      }
      if (!wr.has_blocks()) {
        // Rows without keys are exact zeros. O's registers hold the CTA's last tile (or
        // nothing yet), and O * 0 is NaN where that was inf or NaN. A fragment of its own,
        // not O's: a plain write to WGMMA accumulators would serialize the WGMMA pipeline.
        Tensor zeros = make_fragment_like(tOrO);
        clear(zeros);
        store_o_direct<Cfg>(a, wr, zeros, tOcO, mul);
      } else if (kPlain || stage_o) {
        // In a plain kernel every tile with keys stages O (runs_plain: full tiles, O by TMA),
        // so there the deferred and direct stores below compile out (bf16 d128: 5968
        // instructions against 7416; bench/NOTES.md step 33). Only a keyless tile's zeros
        // keep the register store.
        stage_o_issue(q_stage, wr);
      } else if (s_issued && a.out_vec16) {
        deferred = true;
        deferred_rows = Vec16Rows<Element>::template at<kPacks>(a, wr, tOcO);
        deferred_mul[0] = mul[0];
        deferred_mul[1] = mul[1];
      } else {
        store_o_direct<Cfg>(a, wr, tOrO, tOcO, mul);
      }
      AMKL_SM90_STAMP(EpilogueEnd, 0);
    }
    slot.advance();
    smem.tiles.full[slot.index()].wait(slot.phase());
  }
  warpgroup_wait<0>();  // the last tile's unused S
  flush_staged_q();     // the last TMA store has read its smem before the CTA exits
}

}  // namespace amkl::cuda::sm90
