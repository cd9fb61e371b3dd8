// The CPU backend: every op, forward and backward, any dtype (f64/f32/f16/bf16 inputs).
// It is the oracle for every GPU test. Called by src/api with validated parameters only.
#pragma once

#include "common/attention_params.h"

namespace amkl::cpu {

/// Writes p.out (and p.lse when set). Tiled over (sequence, head, query tile), threaded.
void attention_forward(const detail::AttentionParams& p);
/// Writes p.dq, p.dk, p.dv from p.dout (and p.out, p.lse for softmax).
void attention_backward(const detail::AttentionParams& p);
/// Split-KV combine.
void attention_combine(const detail::CombineParams& p);

}  // namespace amkl::cpu
