// Host-side validation of jagged offsets, per-sequence lengths and the query-to-KV map.
// For CUDA tensors the small index vectors are copied to the host first (a stream sync).
#pragma once

#include <cstdint>

#include "amkl/tensor.h"

namespace amkl::api {

/// One side (q or k/v) of an attention call, as the offset checks need it.
struct SideOffsets {
  const char* tensor_name;   ///< "q" or "k"
  const char* cu_name;       ///< "cu_seqlens_q"
  const char* used_name;     ///< "seqused_q"
  const char* max_name;      ///< "max_seqlen_q"
  bool jagged;
  int64_t batch;
  int64_t dense_len;         ///< dense: L
  int64_t rows;              ///< rows of the tensor (T, or B*L)
  TensorRef cu_seqlens;      ///< jagged only
  TensorRef seqused;         ///< optional
  int64_t max_hint;          ///< -1 or a bound the caller promised
};

/// Checks cu_seqlens (starts >= 0, non-decreasing, within the tensor's rows), seqused (each
/// within its sequence's capacity) and the max_seqlen hint (>= every length). Returns the
/// longest sequence length.
int64_t check_side_offsets(const SideOffsets& s, void* stream);

/// Checks that every q_to_kv entry lies in [0, kv_batch).
void check_batch_map(const TensorRef& q_to_kv, int64_t kv_batch, void* stream);

}  // namespace amkl::api
