// Attention, one op for softmax attention and GDPA (an element-wise activation instead of
// softmax), forward, backward and split-KV combine. Semantics: shared/DESIGN.md section 2.
//
//   S = scale * Q K^T                        (fp32; f64 for f64 inputs)
//   softmax:   P = softmax(S) over the allowed keys, LSE = log(sum exp S) (natural log)
//              with softcap > 0, S is first replaced by softcap * tanh(S / softcap)
//   pointwise: P = out_scale * f(S) on allowed keys, exactly 0 elsewhere; no normalization
//   O = P V
//
// Layouts. Each of Q and K/V is, independently:
//   dense   [B, L, H, d]   (no cu_seqlens for that side), or
//   jagged  [T, H, d]      with int32 cu_seqlens [B+1] (sequence b is rows cu[b]..cu[b+1]).
// Optional int32 seqused [B] overrides a side's sequence lengths (a prefix of each sequence
// is used). V has the layout of K with its own head dim d_v. K and V have H_kv heads with
// H % H_kv == 0 (GQA/MQA): query head h reads kv head h / (H / H_kv).
// Every stride is honoured and may be zero on inputs (broadcast); the last dim of every
// tensor must be contiguous (stride 1).
//
// Sequence mapping. Without q_to_kv, Q and K/V have the same number of sequences B and
// query sequence b attends KV sequence b. With q_to_kv (int32 [B_q]), query sequence b
// attends KV sequence q_to_kv[b] (GDPA's ad_to_request; GDPA's broadcast_q is a dense Q
// with batch stride 0).
//
// Masks. Within a pair of sequences of lengths (Lq, Lk), query row i may see key j iff
//   j < Lk, and with o = (Lk - Lq) for MaskAlign::BottomRight or 0 for MaskAlign::TopLeft:
//   window_left  < 0 or j >= i + o - window_left
//   window_right < 0 or j <= i + o + window_right
// causal = true means window_right = 0 (FlashAttention's bottom-right causal mask).
// A softmax row with no allowed key gives O = 0 and LSE = -inf; never NaN.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "amkl/activation.h"
#include "amkl/tensor.h"

namespace amkl {

/// Where the diagonal of causal and window masks sits when Lq != Lk.
enum class MaskAlign : int32_t {
  BottomRight = 0,  ///< FlashAttention: the last query row aligns with the last key
  TopLeft = 1,      ///< GDPA's symmetric window |i - j| <= W on in-sequence indices
};

/// Rounding emulation (CPU backend only): round Q, K, V and P to this type where the GPU
/// kernels do, while accumulating in fp32/f64. Used to measure the error a correct
/// bf16/fp16 kernel is allowed (DESIGN.md section 4).
enum class Rounding : int32_t { None = 0, BFloat16 = 1, Float16 = 2 };

/// The attention inputs (shared by forward and backward).
struct AttentionInputs {
  TensorRef q;             ///< [B, Lq, H, d] or [Tq, H, d]
  TensorRef k;             ///< [B, Lk, H_kv, d] or [Tk, H_kv, d]
  TensorRef v;             ///< [B, Lk, H_kv, d_v] or [Tk, H_kv, d_v]
  TensorRef cu_seqlens_q;  ///< int32 [B_q + 1]; given iff q is jagged
  TensorRef cu_seqlens_k;  ///< int32 [B_k + 1]; given iff k/v are jagged
  TensorRef seqused_q;     ///< optional int32 [B_q]
  TensorRef seqused_k;     ///< optional int32 [B_k]
  TensorRef q_to_kv;       ///< optional int32 [B_q], values in [0, B_k)
  /// Optional upper bounds of the sequence lengths (-1: not given). When given they must
  /// hold; they let the GPU path size its grid without reading the offsets.
  int64_t max_seqlen_q = -1;
  int64_t max_seqlen_k = -1;
};

/// Options of the op. Defaults are those of DESIGN.md section 2.
struct AttentionOptions {
  Activation activation = Activation::Softmax;
  /// Logit scale. NaN means the default: 1/sqrt(d) for softmax, 1.0 for pointwise.
  double scale = NAN;
  /// Multiplies f(S) (pointwise activations only; must be 1 for softmax).
  double out_scale = 1.0;
  bool causal = false;
  /// -1: unbounded. So is any side of 2^62 or more, or of at least the longest query plus the
  /// longest key sequence (where those bounds are known: dense inputs, validated offsets, or
  /// max_seqlen_q / max_seqlen_k): such a side cuts no key.
  int64_t window_left = -1;
  int64_t window_right = -1;  ///< as window_left
  MaskAlign mask_align = MaskAlign::BottomRight;
  /// Softmax only: 0 disables; > 0 replaces S by softcap * tanh(S / softcap).
  double softcap = 0.0;
  /// Backward: bitwise-identical results run to run (the CPU backend always is).
  bool deterministic = false;
  /// CPU only; see Rounding.
  Rounding emulate = Rounding::None;
  /// Check offsets (monotone, in range) and q_to_kv values on the host. For CUDA tensors
  /// this copies them to the host (all in one copy) and synchronizes the stream, so the GPU
  /// idles for a host round trip every call (measured on an H100 at B = 1152, L = 256: the
  /// checked call at 0.95 of the unchecked one's speed, bench/NOTES.md step 40); set false to
  /// skip (e.g. under CUDA graph capture, or for speed) when the caller guarantees them.
  bool validate_offsets = true;
  /// cudaStream_t for CUDA tensors (nullptr: the default stream). Ignored on the CPU.
  void* stream = nullptr;
};

/// Forward outputs, allocated by the caller (see attention_forward_shapes). Rows of out
/// that belong to no query sequence (past seqused, or outside cu_seqlens) are written with
/// zeros, and their LSE with -inf.
struct AttentionForwardOutputs {
  TensorRef out;  ///< q's layout with d_v: [B, Lq, H, d_v] or [Tq, H, d_v]; dtype of q, or float32
  TensorRef lse;  ///< softmax only, optional: float32 [B, H, Lq] (dense q) or [H, Tq] (jagged q)
};

/// Backward arguments: the forward's outputs and dO in, dQ/dK/dV out (caller-allocated,
/// shaped and typed like q, k, v). `out` and `lse` are required for softmax and not read
/// for pointwise activations. (The CPU's float64 path recomputes the LSE in float64 rather
/// than reading the float32 one, so float64 gradients keep full precision. With
/// emulate != None it also rounds dO, P and dS before their products, as a GPU kernel does.)
/// Rows of dQ outside every query sequence, and rows of dK/dV that no query attends, are
/// written with zeros.
struct AttentionBackwardArgs {
  TensorRef out;
  TensorRef dout;
  TensorRef lse;
  TensorRef dq;
  TensorRef dk;
  TensorRef dv;
};

/// Output shapes the caller must allocate for a forward call.
struct AttentionShapes {
  std::vector<int64_t> out;
  std::vector<int64_t> lse;  ///< empty for pointwise activations
};

/// Validates inputs and options (not the offsets' values) and returns the output shapes.
AttentionShapes attention_forward_shapes(const AttentionInputs& in, const AttentionOptions& opt);

/// Runs the forward pass on the device of the inputs. Throws amkl::Error on bad input,
/// before anything is written. On CUDA tensors (Hopper, sm_90): bf16 or fp16 inputs with
/// (d, d_v) in {(64, 64), (128, 128), (192, 128), (256, 256)}; other head dims throw
/// ErrorKind::NotSupported (the CPU backend takes any).
void attention_forward(const AttentionInputs& in, const AttentionOptions& opt,
                       const AttentionForwardOutputs& out);

/// Runs the backward pass: dQ, dK, dV of sum(O * dO) with O as in attention_forward.
void attention_backward(const AttentionInputs& in, const AttentionOptions& opt,
                        const AttentionBackwardArgs& args);

/// Split-KV combine. out_partial: float32 [S, rows..., H, d_v]; lse_partial: float32
/// [S, rows..., H] (softmax); float64 for both is accepted on the CPU. For softmax: lse = log sum_s exp(lse_s) and
/// out = sum_s exp(lse_s - lse) out_s (a split with lse_s = -inf contributes nothing;
/// all -inf gives out = 0, lse = -inf). For pointwise: out = sum_s out_s.
struct CombineArgs {
  TensorRef out_partial;  ///< float32 (float64 allowed on the CPU)
  TensorRef lse_partial;  ///< softmax only
  TensorRef out;          ///< [rows..., H, d_v], float32/float64/float16/bfloat16
  TensorRef lse;          ///< softmax only, optional: [rows..., H], dtype of lse_partial
  bool softmax = true;
  void* stream = nullptr;
};
/// Combines the split-KV partial results of `args` as described above CombineArgs. Throws
/// amkl::Error on bad input, before anything is written. CPU only so far: on CUDA tensors it
/// throws ErrorKind::NotSupported.
void attention_combine(const CombineArgs& args);

}  // namespace amkl
