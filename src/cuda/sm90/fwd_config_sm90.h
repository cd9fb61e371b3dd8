// Compile-time configuration of the Hopper forward kernel for one (dtype, head dim, head dim v):
// tile sizes, the smem layouts (128B-swizzled, K-major), the two tiled WGMMAs and the TMA
// copy types. Everything run-time (masks, activation, scales, layouts) lives in FwdArgs.
#pragma once

#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/numeric_types.h>

#include <utility>

#include "cuda/common/pipeline.h"
#include "cuda/common/tile_mailbox.h"
#include "cuda/sm90/fwd_smem_tile.h"
#include "cuda/sm90/fwd_tile.h"

namespace amkl::cuda::sm90 {

using namespace cute;

/// Head dims whose kernels are also built with three consumer warpgroups (192-row tiles),
/// chosen per call by launch_fwd_for_shape (fwd_launch_sm90.h). Only d = 64: there S, P and O
/// (64 + 32 + 32 accumulator registers) fit the 160 registers three warpgroups leave, so the
/// overlapped loop stays. d = 128 with three warpgroups needs a serial loop (S, wait, policy,
/// P V, wait), which lost 2-18% to two warpgroups on the H200, and without turns gained at
/// most 3% (L = 8192) and lost up to 9% at L <= 1024 (bench/NOTES.md step 12).
template <int kHeadDim, int kHeadDimV>
constexpr bool kHasThreeWarpgroups = kHeadDim == 64 && kHeadDimV == 64;

template <class Element_, int kHeadDim_, int kHeadDimV_, int kConsumerWarpgroups_ = 2>
struct FwdConfig {
  using Element = Element_;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kHeadDimV = kHeadDimV_;
  // Consumer warpgroups of 64 query rows each. With three (d = 64), each warpgroup's score
  // policy hides behind the other two's WGMMAs (FA3's choice for d = 64).
  static constexpr int kConsumerWarpgroups = kConsumerWarpgroups_;
  static_assert(kConsumerWarpgroups == 2 ||
                    (kConsumerWarpgroups == 3 && kHasThreeWarpgroups<kHeadDim, kHeadDimV>),
                "three consumer warpgroups only where kHasThreeWarpgroups");
  static constexpr int kBlockM = 64 * kConsumerWarpgroups;
  // GQA packing (fwd_pack_gqa.h) in the two-warpgroup kernels only: chosen for query sequences
  // shorter than a tile, which get two warpgroups anyway, and with three the run-time row map
  // cost spills in the loop (bench/NOTES.md step 18); there the shift is 0 at compile time.
  static constexpr bool kPacksGqa = kConsumerWarpgroups == 2;
  static constexpr int kBlockN =
#if defined(AMKL_SM90_BLOCK_N)  // measurement builds only (bench/NOTES.md): d = 128's forced
      kHeadDim == 128 ? AMKL_SM90_BLOCK_N :
#endif
      kHeadDim <= 128 ? 128 : (kHeadDim <= 192 ? 96 : 64);
  // setmaxnreg budgets of the producer's and the consumers' threads (checked below); measurement
  // builds may force the two-warpgroup split (bench/NOTES.md).
#if defined(AMKL_SM90_PRODUCER_REGS) && defined(AMKL_SM90_CONSUMER_REGS)
  static constexpr int kTwoWarpgroupRegs[2] = {AMKL_SM90_PRODUCER_REGS, AMKL_SM90_CONSUMER_REGS};
#else
  static constexpr int kTwoWarpgroupRegs[2] = {40, 232};
#endif
  static constexpr int kProducerRegs = kConsumerWarpgroups == 3 ? 32 : kTwoWarpgroupRegs[0];
  static constexpr int kConsumerRegs = kConsumerWarpgroups == 3 ? 160 : kTwoWarpgroupRegs[1];
  static constexpr int kConsumerThreads = 128 * kConsumerWarpgroups;
  static constexpr int kThreads = 128 + kConsumerThreads;  // producer warpgroup + consumers
  // setmaxnreg moves registers within the pool the block was launched with: kThreads x the
  // kernel's register count, which __launch_bounds__(kThreads, 1) caps at 65536 / kThreads
  // rounded down to a multiple of 8 (168 for 384 threads, 128 for 512).
  static_assert(128 * kProducerRegs + kConsumerThreads * kConsumerRegs <=
                    kThreads * (65536 / kThreads / 8 * 8),
                "setmaxnreg budgets exceed the launch's register pool");

  using BM = Int<kBlockM>;
  using BN = Int<kBlockN>;
  using D = Int<kHeadDim>;
  using DV = Int<kHeadDimV>;

  // S = Q K^T: both operands from smem, K-major. O = P V: P from registers, V^T MN-major.
  using TiledMmaQK = decltype(make_tiled_mma(
      GMMA::ss_op_selector<Element, Element, float, Shape<BM, BN, D>>(),
      Layout<Shape<Int<kConsumerWarpgroups>, _1, _1>>{}));
  // One WGMMA spans S's whole width: without CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED, CUTLASS's
  // selector has no atom for some widths (160, 176) and silently splits S into 64x32 or 64x16
  // atoms, each re-reading Q from smem (what step 8's kBlockN 160 / 176 runs measured,
  // bench/NOTES.md step 15).
  static_assert(size<1>(typename TiledMmaQK::AtomShape_MNK{}) == kBlockN,
                "S = Q K^T must be one WGMMA wide: build with "
                "CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED");
  using TiledMmaPV = decltype(make_tiled_mma(
      GMMA::rs_op_selector<Element, Element, float, Shape<BM, DV, BN>, GMMA::Major::K,
                           GMMA::Major::MN>(),
      Layout<Shape<Int<kConsumerWarpgroups>, _1, _1>>{}));

  using SmemAtom = GMMA::Layout_K_SW128_Atom<Element>;  // rows of 64 elements (128 B)
  static_assert(kHeadDim % 64 == 0 && kHeadDimV % 64 == 0, "head dims must be multiples of 64");
  using SmemLayoutQStage = SmemTile<Element, BM, D>;  // GQA packing's TMA relies on its form
  using SmemLayoutKStage = decltype(tile_to_shape(SmemAtom{}, Shape<BN, D>{}));
  using SmemLayoutVStage = decltype(tile_to_shape(SmemAtom{}, Shape<BN, DV>{}));
  // Stage counts within the smem budget, in the order they pay off: a second Q buffer (the
  // next tile's Q loads during this tile), a third K stage (the next tile's first S is issued
  // at the end of this one, so its K is needed a block earlier than its V), a third V stage.
  static constexpr uint32_t kBytesQ = kBlockM * kHeadDim * sizeof(Element);  // one stage
  static constexpr uint32_t kBytesK = kBlockN * kHeadDim * sizeof(Element);
  static constexpr uint32_t kBytesV = kBlockN * kHeadDimV * sizeof(Element);
  static constexpr uint32_t kSmemBudget = 224 * 1024;  // of 227 KB; the rest: barriers, mailbox
#if defined(AMKL_SM90_Q_STAGES)
  // Measurement builds only (bench/NOTES.md): the Q ring's depth forced, the K and V rings
  // sized around it as below.
  static constexpr int kQStages = AMKL_SM90_Q_STAGES;
#else
  static constexpr int kQStages =
      2 * kBytesQ + 2 * kBytesK + 2 * kBytesV <= kSmemBudget ? 2 : 1;
#endif
  static constexpr int kStagesK =
      kQStages * kBytesQ + 3 * kBytesK + 2 * kBytesV <= kSmemBudget ? 3 : 2;
  static constexpr int kStagesV =
      kQStages * kBytesQ + kStagesK * kBytesK + 3 * kBytesV <= kSmemBudget ? 3
                                                                                          : 2;
  using SmemLayoutQ = decltype(tile_to_shape(SmemAtom{}, Shape<BM, D, Int<kQStages>>{}));
  using SmemLayoutK = decltype(tile_to_shape(SmemAtom{}, Shape<BN, D, Int<kStagesK>>{}));
  using SmemLayoutV = decltype(tile_to_shape(SmemAtom{}, Shape<BN, DV, Int<kStagesV>>{}));
  // V seen as (d_v, n, stage): the same bytes, transposed, for the MN-major B operand.
  using SmemLayoutVt = decltype(composition(
      SmemLayoutV{}, make_ordered_layout(Shape<DV, BN, Int<kStagesV>>{}, Step<_2, _1, _3>{})));

  // L2 priorities of the TMA loads. Q is read once per call, so it is evicted first; K and V
  // are read by every query block of their head, so they are evicted last, which keeps them in
  // L2 while Q and O stream past. This is FA3's choice too. It cut the DRAM reads of one causal
  // (32,16,512) call from 219 to 210 MB and made that row 1.2% faster, the others -0.6..+2.3%
  // (H100; bench/NOTES.md step 36). Measurement builds may force them
  // (-DAMKL_SM90_HINT_Q=EVICT_NORMAL and so on).
#if defined(AMKL_SM90_HINT_Q)
  static constexpr TMA::CacheHintSm90 kHintQ = TMA::CacheHintSm90::AMKL_SM90_HINT_Q;
#else
  static constexpr TMA::CacheHintSm90 kHintQ = TMA::CacheHintSm90::EVICT_FIRST;
#endif
#if defined(AMKL_SM90_HINT_KV)
  static constexpr TMA::CacheHintSm90 kHintKV = TMA::CacheHintSm90::AMKL_SM90_HINT_KV;
#else
  static constexpr TMA::CacheHintSm90 kHintKV = TMA::CacheHintSm90::EVICT_LAST;
#endif

  // Global tensors as TMA sees them: (rows, dim, heads, batch), 64-bit strides.
  using GmemShape = Shape<int32_t, int32_t, int32_t, int32_t>;
  using GmemStride = Stride<int64_t, _1, int64_t, int64_t>;
  using GmemTensor = decltype(make_tensor(make_gmem_ptr(static_cast<Element const*>(nullptr)),
                                          GmemShape{}, GmemStride{}));
  using TmaQ = decltype(make_tma_copy(SM90_TMA_LOAD{}, std::declval<GmemTensor>(),
                                      SmemLayoutQStage{}, Shape<BM, D>{}, _1{}));
  using TmaK = decltype(make_tma_copy(SM90_TMA_LOAD{}, std::declval<GmemTensor>(),
                                      SmemLayoutKStage{}, Shape<BN, D>{}, _1{}));
  using TmaV = decltype(make_tma_copy(SM90_TMA_LOAD{}, std::declval<GmemTensor>(),
                                      SmemLayoutVStage{}, Shape<BN, DV>{}, _1{}));

  // O through smem (kStageO): a finished tile's O is written into the tile's own Q stage, each
  // warpgroup over the bytes of its own 64 Q rows (which only its own S read), and leaves by
  // TMA stores of 64 x 64 boxes, one per 64 columns. The (BM, DV) staging view is the Q
  // stage's layout restricted to the first DV columns (the same offsets: column blocks of
  // BM x 64 elements), so a warpgroup's box for column block j is 8 KB at j * BM * 64 + 64 * 64 *
  // warpgroup elements: one SW128 box. Needs a second Q stage (the next tile's Q loads into
  // the other one while O leaves) and DV <= D.
  static constexpr bool kStageO = kQStages > 1 && kHeadDimV <= kHeadDim;
  using SmemLayoutOStage = decltype(tile_to_shape(SmemAtom{}, Shape<BM, DV>{}));
  using SmemLayoutOBox = decltype(tile_to_shape(SmemAtom{}, Shape<_64, _64>{}));
  using TmaO = decltype(make_tma_copy(SM90_TMA_STORE{}, std::declval<GmemTensor>(),
                                      SmemLayoutOBox{}, Shape<_64, _64>{}, _1{}));

  // Decoded tiles the scheduler thread has posted and the loads or the consumers still use
  // (it runs at most one tile ahead of the loads: the kernel's release_ahead). A tile is
  // claimed only once its slot is free, so a CTA holds at most kMailboxSlots - 1 tiles beyond
  // its consumers' one. With 2 slots the claim's round trip and the tile list's decode made
  // the next tile's Q late (GDPA L256 -5.9%, cross KV256 Lq2048 -4.7%) and the causal L512
  // tail gained less than with 3 (+0.8% against +3.7..+5.2%; bench/NOTES.md step 59).
  static constexpr int kMailboxSlots = 3;
  struct SharedStorage {
    cute::array_aligned<Element, cosize_v<SmemLayoutQ>, 1024> q;
    cute::array_aligned<Element, cosize_v<SmemLayoutK>, 1024> k;
    cute::array_aligned<Element, cosize_v<SmemLayoutV>, 1024> v;
    RingBarriers<kQStages> ring_q;  // Q landed / consumers done reading Q
    RingBarriers<kStagesK> ring_k;
    RingBarriers<kStagesV> ring_v;
    TileMailbox<TileInfo, kMailboxSlots> tiles;
  };
  static constexpr int kSmemBytes = int(sizeof(SharedStorage));
  static_assert(kSmemBytes <= 227 * 1024, "the smem rings exceed Hopper's 227 KB per block");
};

}  // namespace amkl::cuda::sm90
