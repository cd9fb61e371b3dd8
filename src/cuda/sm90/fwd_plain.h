// Whether a Hopper forward call runs the plain kernel (attention_fwd_sm90's kPlain): the
// kernel built without the paths for softcap, a left window, GQA packing and O stores other
// than TMA, ~40% less code and 2-4% faster on the d = 128 rows (instruction fetch;
// bench/NOTES.md steps 32-33). Host side, no CUDA dependencies (the CPU tests cover the choice).
#pragma once

#include <cstdint>

#include "common/attention_params.h"
#include "cuda/sm90/fwd_env.h"

namespace amkl::cuda::sm90 {

/// The call's properties the choice reads.
struct PlainCall {
  bool softmax = false;      ///< built for softmax only (the pointwise kernels keep one form)
  float softcap = 0.f;       ///< > 0: softcap in use
  int64_t window_left = -1;  ///< >= 0: a left window (causal and right windows are plain)
  int pack_shift = 0;        ///< > 0: GQA packing
  bool out_tma = false;      ///< O leaves through TMA (FwdArgs::out_tma)
  const detail::SeqSide* q = nullptr;  ///< the query side
  int block_m = 0;           ///< query rows per tile
};

/// True where the plain kernel gives the call's result: softmax without softcap, left window
/// or packing, O by TMA, and every query tile full (dense queries of a length that is a
/// multiple of block_m, no seqused): then no tile's O takes the register stores, so the
/// kernel needs neither them nor the deferral of the 16-byte ones into the next tile. The
/// environment variable AMKL_SM90_PLAIN=0 turns it off (measurements, and the GPU tests' wg2
/// pass, which runs the full kernel on the cases that would be plain); 1 or unset: wherever
/// the call allows; other values are an error for every call that reaches the choice (softmax
/// on a configuration that stages O).
inline bool runs_plain(const PlainCall& c) {
  const int force = forced_switch("AMKL_SM90_PLAIN");
  if (force == 0 || !c.softmax || c.softcap > 0.f || c.window_left >= 0 || c.pack_shift > 0 ||
      !c.out_tma || c.q == nullptr || c.block_m <= 0) {
    return false;
  }
  const detail::SeqSide& q = *c.q;
  return !q.jagged && q.seqused == nullptr && q.dense_len % c.block_m == 0;
}

}  // namespace amkl::cuda::sm90
