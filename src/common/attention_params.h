// AttentionParams: the validated, resolved description of one attention call that src/api
// hands to a backend. Every decision (defaults, causal -> window, layouts, strides) has been
// made; backends only obey. Plain data, usable from host and device code.
#pragma once

#include <cstdint>

#include "amkl/activation.h"
#include "amkl/attention.h"
#include "amkl/tensor.h"
#include "common/hd.h"

namespace amkl::detail {

/// Addressing of a [.., rows, heads, dim] tensor: element (b, i, h, c) of sequence b lives at
/// data + b*batch_stride + (start(b) + i)*row_stride + h*head_stride + c (element units).
/// For a jagged side batch_stride is 0 and start(b) = cu_seqlens[b]; for a dense side
/// start(b) is 0.
struct TensorLayout {
  void* data = nullptr;
  int64_t batch_stride = 0;
  int64_t row_stride = 0;
  int64_t head_stride = 0;
};

/// One side (queries, or keys/values) of the problem.
struct SeqSide {
  bool jagged = false;
  int64_t batch = 0;          ///< number of sequences
  int64_t dense_len = 0;      ///< dense: L (capacity of each sequence); jagged: 0
  int64_t total_rows = 0;     ///< jagged: T; dense: B * L
  int64_t max_len = -1;       ///< an upper bound of the lengths (-1: unknown)
  const int32_t* cu_seqlens = nullptr;  ///< [batch + 1] when jagged
  const int32_t* seqused = nullptr;     ///< [batch] or null

  /// First row of sequence b in the row index space of the layout (0 for dense).
  AMKL_HD int64_t start(int64_t b) const { return jagged ? cu_seqlens[b] : 0; }
  /// Length of sequence b.
  AMKL_HD int64_t len(int64_t b) const {
    if (seqused) return seqused[b];
    return jagged ? int64_t(cu_seqlens[b + 1]) - cu_seqlens[b] : dense_len;
  }
};

struct AttentionParams {
  Device device;
  DType in_dtype = DType::Float32;   ///< dtype of q, k, v (and dout, dq, dk, dv)
  DType out_dtype = DType::Float32;  ///< dtype of out

  int64_t heads_q = 0, heads_kv = 0;  ///< H, H_kv (H % H_kv == 0)
  int64_t head_dim = 0, head_dim_v = 0;
  SeqSide q_side, kv_side;
  const int32_t* q_to_kv = nullptr;  ///< [q_side.batch] or null (identity)

  TensorLayout q, k, v, out;
  /// LSE addressing (softmax, optional): row r of sequence b, head h at
  /// lse + b*lse_batch_stride + h*lse_head_stride + (q_side.start(b) + r)*lse_row_stride.
  float* lse = nullptr;
  int64_t lse_batch_stride = 0, lse_head_stride = 0, lse_row_stride = 0;

  // Backward only (out above is then an input; lse too for softmax).
  TensorLayout dout, dq, dk, dv;

  Activation activation = Activation::Softmax;
  float scale = 1.0f;      ///< resolved logit scale
  float out_scale = 1.0f;  ///< pointwise only
  float softcap = 0.0f;    ///< softmax only; 0 = off
  int64_t window_left = -1, window_right = -1;  ///< causal already folded in (right = 0)
  MaskAlign mask_align = MaskAlign::BottomRight;
  bool deterministic = false;
  Rounding emulate = Rounding::None;
  void* stream = nullptr;

  AMKL_HD int64_t kv_head(int64_t h) const { return h / (heads_q / heads_kv); }
  AMKL_HD int64_t kv_batch(int64_t b) const { return q_to_kv ? q_to_kv[b] : b; }
};

/// Resolved split-KV combine.
struct CombineParams {
  Device device;
  DType partial_dtype = DType::Float32;
  DType out_dtype = DType::Float32;
  int64_t splits = 0;
  int64_t rows = 0;   ///< product of the "rows..." dims
  int64_t heads = 0, head_dim_v = 0;
  bool softmax = true;
  // Element (s, r, h, c) of out_partial; r is the flattened row index, whose dims may have
  // arbitrary strides: row_dims/row_shape/row_strides describe them (outermost first).
  int row_ndim = 0;
  int64_t row_shape[4] = {1, 1, 1, 1};
  int64_t op_row_strides[4] = {0, 0, 0, 0}, lp_row_strides[4] = {0, 0, 0, 0};
  int64_t o_row_strides[4] = {0, 0, 0, 0}, l_row_strides[4] = {0, 0, 0, 0};
  const void* out_partial = nullptr;
  int64_t op_split_stride = 0, op_head_stride = 0;
  const void* lse_partial = nullptr;
  int64_t lp_split_stride = 0, lp_head_stride = 0;
  void* out = nullptr;
  int64_t o_head_stride = 0;
  void* lse = nullptr;  ///< optional
  int64_t l_head_stride = 0;
  void* stream = nullptr;

  /// Offset of flattened row r given per-dim strides.
  AMKL_HD int64_t row_offset(int64_t r, const int64_t* strides) const {
    int64_t off = 0;
    for (int d = row_ndim - 1; d >= 0; --d) {
      off += (r % row_shape[d]) * strides[d];
      r /= row_shape[d];
    }
    return off;
  }
};

}  // namespace amkl::detail
