// Host-side validation of jagged offsets, per-sequence lengths and the query-to-KV map.
// For CUDA tensors the small index vectors are copied to the host first (one stream sync).
#pragma once

#include <cstdint>
#include <vector>

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

/// The int32 index vectors `ts` on the host, in order (an empty vector for an undefined
/// tensor). CUDA tensors are copied together, with one stream sync for all of them, before
/// any of them is checked: a vector whose pointer is bad raises the copy's CUDA error even
/// where another vector's values are also invalid.
std::vector<std::vector<int32_t>> read_index_vectors(const std::vector<TensorRef>& ts,
                                                     void* stream);

/// Checks cu_seqlens (starts >= 0, non-decreasing, within the tensor's rows), seqused (each
/// within its sequence's capacity) and the max_seqlen hint (>= every length), given their
/// host copies (read_index_vectors of s.cu_seqlens and s.seqused). Returns the longest
/// sequence length.
int64_t check_side_offsets(const SideOffsets& s, const std::vector<int32_t>& cu,
                           const std::vector<int32_t>& used);

/// Checks that every entry of q_to_kv (its host copy) lies in [0, kv_batch).
void check_batch_map(const std::vector<int32_t>& q_to_kv, int64_t kv_batch);

}  // namespace amkl::api
