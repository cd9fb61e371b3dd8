// Per-(query sequence) lengths and starts, resolved on the device from the SeqSide
// descriptions (cu_seqlens / seqused / dense) and the query-to-KV batch map.
#pragma once

#include <cstdint>

#include "common/attention_params.h"
#include "common/mask.h"

namespace amkl::cuda {

struct SeqlenInfo {
  int b = 0, bk = 0;        ///< query sequence, the KV sequence it attends
  int start_q = 0, len_q = 0;
  int start_k = 0, len_k = 0;

  SeqlenInfo() = default;
  __device__ __forceinline__ SeqlenInfo(const detail::SeqSide& qs, const detail::SeqSide& ks,
                                        const int32_t* q_to_kv, int b_) {
    b = b_;
    bk = q_to_kv ? q_to_kv[b] : b;
    start_q = int(qs.start(b));
    len_q = int(qs.len(b));
    start_k = int(ks.start(bk));
    len_k = int(ks.len(bk));
  }
};

}  // namespace amkl::cuda
