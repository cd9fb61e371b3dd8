// The run-time arguments of the Hopper forward kernel, built on the host from the resolved
// detail::AttentionParams. Plain data: copied into the kernel's parameter space.
#pragma once

#include <cstdint>

#include "common/attention_params.h"
#include "cuda/sm90/fwd_act_fold.h"

namespace amkl::cuda::sm90 {

struct FwdArgs {
  detail::SeqSide q_side, kv_side;
  const int32_t* q_to_kv = nullptr;
  int heads_q = 0, heads_kv = 0, group = 1;  // group = H / H_kv
  // GQA packing (fwd_pack_gqa.h): log2 of the query heads per tile; 0: a tile is one query
  // head's rows. Packed, the scheduler's heads are the KV heads.
  int pack_shift = 0;
  // TMA coordinate multipliers: 0 where a stride is 0 (a broadcast head or batch dim).
  int q_head_mul = 1, q_batch_mul = 1, kv_head_mul = 1, kv_batch_mul = 1, v_head_mul = 1,
      v_batch_mul = 1;

  // Output: element (b, i, h, c) at out + b*o_batch + (start_q + i)*o_row + h*o_head + c.
  void* out = nullptr;
  int64_t o_batch = 0, o_row = 0, o_head = 0;
  bool out_f32 = false;
  bool out_pairs = true;  // two adjacent columns may be stored as one 4/8-byte word
  bool out_vec16 = false;  // 16-bit output whose rows may be stored in aligned 16-byte chunks
  // O leaves through smem and TMA stores where a warpgroup's 64 rows all exist (FwdConfig's
  // kStageO; the output 16-bit with TMA-compatible strides); the coordinate multipliers of its
  // TMA view as for the inputs.
  bool out_tma = false;
  int o_head_mul = 1, o_batch_mul = 1;
  float* lse = nullptr;
  int64_t lse_batch = 0, lse_head = 0, lse_row = 0;

  float scale = 1.f;       // logit scale
  float scale_log2 = 1.f;  // softmax without softcap: scale * log2(e)
  float out_scale = 1.f;
  float softcap = 0.f;
  ActFold scale_fold;  // the logit scale folded into the activation (fwd_act_fold.h)
  int64_t window_left = -1, window_right = -1;
  bool bottom_right = true;
  int num_m_blocks = 0;  // query tiles per (sequence, head); packed, per (sequence, KV head)
  bool reverse_m = false;  // causal: heaviest tiles (last rows) first
  int pairs_per_section = 0;  // TileScheduler::section (dense calls with reverse_m)
  // The plain kernel's folded causal order (fwd_fold.h): the CTAs take units of two query
  // blocks (reverse_m and the sections are then off: the units cost alike).
  bool fold = false;
  int* tile_counter = nullptr;  // zeroed before the launch (dynamic tile scheduler)
  // Variable-length batches: the tiles in the order they are handed out, heaviest first, and
  // their count (fwd_tile_list.h). Null: every tile index in order, as TileScheduler decodes.
  const int* tile_list = nullptr;
  const int* tile_list_len = nullptr;
#if defined(AMKL_SM90_TRACE)
  uint64_t* trace = nullptr;  // measurement builds: phase stamps (fwd_trace.h), or null
#endif
};

}  // namespace amkl::cuda::sm90
