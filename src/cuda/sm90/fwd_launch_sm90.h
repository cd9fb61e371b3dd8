// Host side of the Hopper forward: builds the TMA descriptors and FwdArgs from the resolved
// parameters and launches attention_fwd_sm90 for one configuration. Included by exactly one
// .cu file per (dtype, head dim) instantiation (see fwd_instantiations.h).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "amkl/error.h"
#include "common/activation_dispatch.h"
#include "cuda/common/cuda_check.h"
#include "cuda/common/dependent_launch.h"
#include "cuda/common/device_info.h"
#include "cuda/common/workspace_pool.h"
#include "cuda/sm90/fwd_fold.h"
#include "cuda/sm90/fwd_kernel_sm90.h"
#include "cuda/sm90/fwd_plain.h"
#include "cuda/sm90/fwd_sections.h"
#include "cuda/sm90/fwd_tile_list.h"
#include "cuda/sm90/fwd_warpgroups.h"

namespace amkl::cuda::sm90 {

/// The (rows, dim, heads, batch) view TMA loads from. A zero stride (broadcast) collapses its
/// mode to extent 1 and the kernel multiplies that coordinate by 0 (`mul`).
template <class Cfg>
typename Cfg::GmemTensor tma_view(const detail::TensorLayout& t, const detail::SeqSide& s,
                                  int64_t heads, int64_t dim, int& head_mul, int& batch_mul) {
  using Element = typename Cfg::Element;
  const int64_t rows = s.jagged ? s.total_rows : s.dense_len;
  int64_t nb = s.jagged ? 1 : s.batch;
  int64_t bstride = s.jagged ? 0 : t.batch_stride;
  int64_t nh = heads;
  int64_t hstride = t.head_stride;
  head_mul = 1;
  batch_mul = 1;
  // A collapsed mode still needs a stride TMA accepts (a multiple of 16 bytes); it is never
  // stepped along.
  if (hstride == 0 || nh == 1) {
    head_mul = hstride == 0 ? 0 : 1;
    nh = 1;
    hstride = 8;
  }
  if (bstride == 0 || nb == 1) {
    batch_mul = bstride == 0 ? 0 : 1;
    nb = 1;
    bstride = 8;
  }
  auto shape = make_shape(int32_t(rows > 0 ? rows : 1), int32_t(dim), int32_t(nh), int32_t(nb));
  auto stride = make_stride(int64_t(t.row_stride), _1{}, int64_t(hstride), int64_t(bstride));
  return make_tensor(make_gmem_ptr(static_cast<Element const*>(t.data)), shape, stride);
}

/// The TMA descriptor of q for GQA packing: q as (d, heads, rows, batch) with boxes of (64,
/// G, kBlockM / G, 1), 128-byte swizzled like the Q stage (fwd_pack_gqa.h). The caller has
/// checked that q's heads are addressable (nonzero head stride, more than one head).
template <class Cfg>
TmaDescriptor packed_q_tma(const detail::TensorLayout& t, const detail::SeqSide& s,
                           int64_t heads, int pack_shift) {
  using Element = typename Cfg::Element;
  const int64_t rows = s.jagged ? s.total_rows : s.dense_len;
  const bool one_batch = s.jagged || s.batch == 1 || t.batch_stride == 0;  // as tma_view
  constexpr int64_t e = sizeof(Element);
  cuuint64_t dims[4] = {cuuint64_t(Cfg::kHeadDim), cuuint64_t(heads),
                        cuuint64_t(rows > 0 ? rows : 1), cuuint64_t(one_batch ? 1 : s.batch)};
  // Byte strides of dims 1..3 (dim 0 is contiguous); a dim of extent 1 is never stepped along
  // and gets a stride TMA accepts (a single row's stride is unchecked: check_tma_layout).
  cuuint64_t strides[3] = {cuuint64_t(t.head_stride * e),
                           cuuint64_t(rows > 1 ? t.row_stride * e : 16),
                           cuuint64_t(one_batch ? 16 : t.batch_stride * e)};
  cuuint32_t box[4] = {64u, cuuint32_t(1) << pack_shift,
                       cuuint32_t(Cfg::kBlockM >> pack_shift), 1u};
  cuuint32_t elem_strides[4] = {1u, 1u, 1u, 1u};
  const CUtensorMapDataType type = cute::is_same_v<Element, cutlass::bfloat16_t>
                                       ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                       : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  TmaDescriptor desc{};
  const CUresult r = CUTLASS_CUDA_DRIVER_WRAPPER_CALL(cuTensorMapEncodeTiled)(
      &desc, type, 4, const_cast<void*>(t.data), dims, strides, box, elem_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    throw Error(ErrorKind::Runtime, "attention_forward on the GPU: the packed q's TMA "
                                    "descriptor failed (CUresult " + std::to_string(int(r)) + ")");
  }
  return desc;
}

/// Launches the kernel built for activation kAct (== p.activation) for one configuration.
template <class Cfg, Activation kAct>
void launch_fwd_act(const detail::AttentionParams& p, int max_len_q) {
  using Element = typename Cfg::Element;
  FwdParams<Cfg> params{};
  FwdArgs& a = params.args;
  a.q_side = p.q_side;
  a.kv_side = p.kv_side;
  a.q_to_kv = p.q_to_kv;
  a.heads_q = int(p.heads_q);
  a.heads_kv = int(p.heads_kv);
  a.group = int(p.heads_q / p.heads_kv);
  a.out = p.out.data;
  a.o_batch = p.q_side.jagged ? 0 : p.out.batch_stride;
  a.o_row = p.out.row_stride;
  a.o_head = p.out.head_stride;
  a.out_f32 = p.out_dtype == DType::Float32;
  {
    const int esz = a.out_f32 ? 4 : 2;
    const bool even = (a.o_batch % 2 == 0) && (a.o_row % 2 == 0) && (a.o_head % 2 == 0);
    a.out_pairs = even && (reinterpret_cast<uintptr_t>(p.out.data) % (2 * esz) == 0);
    const bool by8 = (a.o_batch % 8 == 0) && (a.o_row % 8 == 0) && (a.o_head % 8 == 0);
    a.out_vec16 = !a.out_f32 && by8 && (reinterpret_cast<uintptr_t>(p.out.data) % 16 == 0);
  }
  a.lse = p.lse;
  a.lse_batch = p.q_side.jagged ? 0 : p.lse_batch_stride;
  a.lse_head = p.lse_head_stride;
  a.lse_row = p.lse_row_stride;
  a.scale = p.scale;
  a.scale_log2 = float(double(p.scale) * detail::act_const::kLog2e);
  a.out_scale = p.out_scale;
  a.softcap = p.softcap;
  a.scale_fold = act_fold(p.activation, p.scale);
  a.window_left = p.window_left;
  a.window_right = p.window_right;
  a.bottom_right = p.mask_align == MaskAlign::BottomRight;
  // q's heads as a TMA box dimension (GQA packing): a positive head stride, not collapsed.
  const bool q_heads_tma = p.q.head_stride > 0 && p.heads_q > 1;
  a.pack_shift = Cfg::kPacksGqa ? pack_shift_for(p.heads_q, p.heads_kv, max_len_q, Cfg::kBlockM,
                                                 q_heads_tma)
                                 : 0;
  const int positions = packed_tile_positions(Cfg::kBlockM, a.pack_shift);
  a.num_m_blocks = (max_len_q + positions - 1) / positions;
  a.reverse_m = p.window_right >= 0;
#if defined(AMKL_SM90_TRACE)
  a.trace = trace_buffer_from_env();
#endif
  if (a.num_m_blocks == 0 || p.heads_q == 0 || p.q_side.batch == 0) return;

  auto gq = tma_view<Cfg>(p.q, p.q_side, p.heads_q, p.head_dim, a.q_head_mul, a.q_batch_mul);
  auto gk = tma_view<Cfg>(p.k, p.kv_side, p.heads_kv, p.head_dim, a.kv_head_mul, a.kv_batch_mul);
  auto gv = tma_view<Cfg>(p.v, p.kv_side, p.heads_kv, p.head_dim_v, a.v_head_mul, a.v_batch_mul);
  params.shape_q = gq.shape();
  params.shape_k = gk.shape();
  params.shape_v = gv.shape();
  params.tma_q = make_tma_copy(SM90_TMA_LOAD{}, gq, typename Cfg::SmemLayoutQStage{},
                               Shape<typename Cfg::BM, typename Cfg::D>{}, _1{});
  params.tma_k = make_tma_copy(SM90_TMA_LOAD{}, gk, typename Cfg::SmemLayoutKStage{},
                               Shape<typename Cfg::BN, typename Cfg::D>{}, _1{});
  params.tma_v = make_tma_copy(SM90_TMA_LOAD{}, gv, typename Cfg::SmemLayoutVStage{},
                               Shape<typename Cfg::BN, typename Cfg::DV>{}, _1{});
  if (a.pack_shift > 0) {
    params.tma_q_packed = packed_q_tma<Cfg>(p.q, p.q_side, p.heads_q, a.pack_shift);
  }
  // O by TMA where its rows are 16-byte aligned 16-bit rows (out_vec16: the base and every
  // stride multiples of 16 bytes, what TMA needs); else the kernel stores from registers.
  // Not with GQA packing: a warpgroup's rows are then of several heads.
  a.out_tma = Cfg::kStageO && a.out_vec16 && a.o_row > 0 && a.pack_shift == 0;
  if (a.out_tma) {
    auto go = tma_view<Cfg>(p.out, p.q_side, p.heads_q, p.head_dim_v, a.o_head_mul,
                            a.o_batch_mul);
    params.shape_o = go.shape();
    params.tma_o = make_tma_copy(SM90_TMA_STORE{}, go, typename Cfg::SmemLayoutOBox{},
                                 Shape<_64, _64>{}, _1{});
  }

  auto kernel = attention_fwd_sm90<Cfg, kAct, false>;
  bool plain = false;
  if constexpr (kAct == Activation::Softmax && Cfg::kStageO) {
    const PlainCall call{true, p.softcap, p.window_left, a.pack_shift, a.out_tma, &p.q_side,
                         Cfg::kBlockM};
    plain = runs_plain(call);
    if (plain) kernel = attention_fwd_sm90<Cfg, kAct, true>;
  }
  AMKL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       Cfg::kSmemBytes));
  const int sms = current_device_sms();
  // Where lengths vary per sequence the list hands tiles out heaviest first and leaves out
  // tiles without rows (fwd_tile_list.h). It stays on where all tiles with rows cost the same
  // (jagged queries over dense keys, no mask): without it the producer skips the empty tiles
  // one atomic round trip each, and the measured difference was within noise on full batches
  // and -3% at fill 0.5 (bench/NOTES.md step 7).
  const bool use_list = p.q_side.jagged || p.kv_side.jagged || p.q_side.seqused != nullptr ||
                        p.kv_side.seqused != nullptr;
  a.fold = runs_fold(
      FoldCall{plain, a.reverse_m, use_list, a.num_m_blocks, Cfg::kConsumerWarpgroups,
               p.heads_q != p.heads_kv, Cfg::kHeadDim, Cfg::kHeadDimV});
  if (a.fold) a.reverse_m = false;  // the units are numbered over the forward tile order
  const int64_t tiles = tile_scheduler(a).total();
  // 32-bit tile indices, with room above the count for the scheduler's items (they run up
  // to two grids' worth past the end).
  if (tiles >= (int64_t(1) << 31) - (int64_t(1) << 20)) {
    throw Error(ErrorKind::NotSupported,
                "attention_forward on the GPU: " + std::to_string(tiles) +
                    " query tiles (" + std::to_string(positions) +
                    " rows x heads x sequences); the Hopper kernel indexes "
                    "tiles with 32 bits (at most 2^31 - 2^20 tiles)");
  }
  const int64_t items = a.fold ? fold_units(a.num_m_blocks, tiles / a.num_m_blocks) : tiles;
  dim3 grid(unsigned(std::min<int64_t>(items, sms)));
  // The dynamic scheduler's counter (and, for variable lengths, the tile list): stream-ordered
  // workspace, so concurrent calls on other streams and CUDA graph capture each get their own.
  auto stream = static_cast<cudaStream_t>(p.stream);
  // Without a list, tiles that differ in cost (reverse_m: causal or a right window) go
  // longest-first within sections of (sequence, head) pairs whose K and V fit in L2 together,
  // and at least 8 pairs (TileScheduler, fwd_sections.h), so the last tiles handed out are the
  // lightest.
  if (a.reverse_m && !use_list) {
    // Packed, a pair is a KV head's whole group: its K and V count in full.
    a.pairs_per_section = l2_section_pairs(
        int64_t(p.heads_q >> a.pack_shift) * p.q_side.batch,
        p.kv_side.dense_len * (p.head_dim + p.head_dim_v) * int64_t(sizeof(Element)) /
            (a.group >> a.pack_shift));
  }
  TileListWorkspace ws;
  const int64_t ws_ints = use_list ? TileListWorkspace::ints(tiles) : 1;
  ws.base = static_cast<int*>(workspace_alloc(ws_ints * sizeof(int), p.device.index, stream));
  a.tile_counter = ws.counter();
  // The set-up kernels and the attention kernel form a chain of dependent launches
  // (dependent_launch.h): each starts while the one before runs, instead of a launch gap after
  // each (a memset cannot start its successor early). The attention kernel's CTAs run their
  // first tiles while the counter is zeroed; only the scheduler thread waits, before its first
  // ticket (before anything, where it reads the list).
  cudaError_t launch = zero_ints_before_dependent(
      ws.base, use_list ? TileListWorkspace::kHeaderInts : 1, stream);
  if (launch == cudaSuccess && use_list) {
    const int n = int(tiles);
    const int64_t threads = TileListWorkspace::kThreads;  // block counts in 64 bits: n < 2^31
    const int cost_blocks = int(std::min<int64_t>((tiles + threads - 1) / threads, 4 * int64_t(sms)));
    launch = launch_dependent(tile_list_costs<Cfg::kBlockM, Cfg::kBlockN>, dim3(cost_blocks),
                              dim3(unsigned(threads)), 0, stream, a, n, ws);
    if (launch == cudaSuccess) {
      const int scatter_blocks = int((tiles + TileListWorkspace::kScatterTiles - 1) /
                                     TileListWorkspace::kScatterTiles);
      launch = launch_dependent(tile_list_scatter, dim3(scatter_blocks), dim3(unsigned(threads)),
                                0, stream, n, ws);
    }
    a.tile_list = ws.list(tiles);
    a.tile_list_len = ws.length();
  }
  if (launch == cudaSuccess) {
    launch = launch_dependent(kernel, grid, dim3(Cfg::kThreads), Cfg::kSmemBytes, stream, params);
    if (launch == cudaSuccess && a.fold) ++fold_launches();
  }
  AMKL_CUDA_CHECK(cudaFreeAsync(ws.base, stream));
  AMKL_CUDA_CHECK(launch);
}

/// Launches the forward for one configuration: the kernel built for p.activation.
template <class Cfg>
void launch_fwd(const detail::AttentionParams& p, int max_len_q) {
  detail::with_activation(p.activation, [&](auto act) {
    launch_fwd_act<Cfg, decltype(act)::value>(p, max_len_q);
  });
}

/// Launches the forward for one (dtype, head dims): with three consumer warpgroups where that
/// kernel exists and consumer_warpgroups_for chooses it, else with two.
template <class Element, int kD, int kDv>
void launch_fwd_for_shape(const detail::AttentionParams& p, int max_len_q) {
  const bool masked = p.window_left >= 0 || p.window_right >= 0;  // causal or a local window
  [[maybe_unused]] const int warpgroups = consumer_warpgroups_for(max_len_q, masked);  // + env
  if constexpr (kHasThreeWarpgroups<kD, kDv>) {
    if (warpgroups == 3) {
      launch_fwd<FwdConfig<Element, kD, kDv, 3>>(p, max_len_q);
      return;
    }
  }
  launch_fwd<FwdConfig<Element, kD, kDv, 2>>(p, max_len_q);
}

}  // namespace amkl::cuda::sm90
