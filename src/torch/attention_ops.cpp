// The attention ops of the `amkl` torch library: forward, backward and split-KV combine.
// One kernel per op serves the CPU and CUDA dispatch keys: amkl itself dispatches on the
// tensors' device, and the only device-specific context (stream, current device) comes from
// tensor_ref.h. Fake kernels and autograd are registered in Python (python/amkl/_ops.py).
#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <cmath>
#include <optional>
#include <string>
#include <tuple>

#include "amkl/attention.h"
#include "errors.h"
#include "tensor_ref.h"

namespace amkl::torch_binding {
namespace {

using OptTensor = std::optional<at::Tensor>;

// The arguments shared by the forward and backward schemas, in schema order: the inputs
// (tensors, offsets, length bounds) then the options. Python passes the same tuple to both.
#define AMKL_ATTENTION_ARGS                                                                \
  "Tensor q, Tensor k, Tensor v, Tensor? cu_seqlens_q, Tensor? cu_seqlens_k, "             \
  "Tensor? seqused_q, Tensor? seqused_k, Tensor? q_to_kv, int? max_seqlen_q, "             \
  "int? max_seqlen_k, str activation, float? scale, float out_scale, bool causal, "        \
  "int window_left, int window_right, int mask_align, float softcap, bool deterministic, " \
  "int emulate, bool validate_offsets"

struct Call {
  AttentionInputs in;
  AttentionOptions opt;
};

Call make_call(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
               const OptTensor& cu_seqlens_q, const OptTensor& cu_seqlens_k,
               const OptTensor& seqused_q, const OptTensor& seqused_k, const OptTensor& q_to_kv,
               std::optional<int64_t> max_seqlen_q, std::optional<int64_t> max_seqlen_k,
               const std::string& activation, std::optional<double> scale, double out_scale,
               bool causal, int64_t window_left, int64_t window_right, int64_t mask_align,
               double softcap, bool deterministic, int64_t emulate,
               bool validate_offsets) {
  Call c;
  c.in.q = to_ref(q, "q");
  c.in.k = to_ref(k, "k");
  c.in.v = to_ref(v, "v");
  c.in.cu_seqlens_q = to_ref(cu_seqlens_q, "cu_seqlens_q");
  c.in.cu_seqlens_k = to_ref(cu_seqlens_k, "cu_seqlens_k");
  c.in.seqused_q = to_ref(seqused_q, "seqused_q");
  c.in.seqused_k = to_ref(seqused_k, "seqused_k");
  c.in.q_to_kv = to_ref(q_to_kv, "q_to_kv");
  c.in.max_seqlen_q = max_seqlen_q.value_or(-1);
  c.in.max_seqlen_k = max_seqlen_k.value_or(-1);

  c.opt.activation = translate_errors([&] { return activation_from_name(activation); });
  c.opt.scale = scale.has_value() ? *scale : NAN;
  c.opt.out_scale = out_scale;
  c.opt.causal = causal;
  c.opt.window_left = window_left;
  c.opt.window_right = window_right;
  c.opt.mask_align = static_cast<MaskAlign>(mask_align);
  c.opt.softcap = softcap;
  c.opt.deterministic = deterministic;
  c.opt.emulate = static_cast<Rounding>(emulate);
  c.opt.validate_offsets = validate_offsets;
  c.opt.stream = current_stream(q);
  return c;
}

std::tuple<at::Tensor, at::Tensor> attention_fwd(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const OptTensor& cu_seqlens_q,
    const OptTensor& cu_seqlens_k, const OptTensor& seqused_q, const OptTensor& seqused_k,
    const OptTensor& q_to_kv, std::optional<int64_t> max_seqlen_q,
    std::optional<int64_t> max_seqlen_k, const std::string& activation,
    std::optional<double> scale, double out_scale, bool causal, int64_t window_left,
    int64_t window_right, int64_t mask_align, double softcap, bool deterministic,
    int64_t emulate, bool validate_offsets) {
  c10::OptionalDeviceGuard guard(q.device());
  Call c = make_call(q, k, v, cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k, q_to_kv,
                     max_seqlen_q, max_seqlen_k, activation, scale, out_scale, causal,
                     window_left, window_right, mask_align, softcap, deterministic, emulate,
                     validate_offsets);
  AttentionShapes shapes = translate_errors([&] { return attention_forward_shapes(c.in, c.opt); });

  at::Tensor out = at::empty(shapes.out, q.options());  // out has q's dtype
  // Softmax always produces the LSE: the backward needs it and it costs B*H*L floats.
  // Pointwise activations have none; an empty tensor keeps the op's signature fixed.
  at::Tensor lse = at::empty(shapes.lse.empty() ? std::vector<int64_t>{0} : shapes.lse,
                             q.options().dtype(at::kFloat));
  AttentionForwardOutputs outs;
  outs.out = to_ref(out, "out");
  if (!shapes.lse.empty()) outs.lse = to_ref(lse, "lse");
  translate_errors([&] { attention_forward(c.in, c.opt, outs); });
  return {out, lse};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> attention_bwd(
    const at::Tensor& dout, const OptTensor& out, const OptTensor& lse, const at::Tensor& q,
    const at::Tensor& k, const at::Tensor& v, const OptTensor& cu_seqlens_q,
    const OptTensor& cu_seqlens_k, const OptTensor& seqused_q, const OptTensor& seqused_k,
    const OptTensor& q_to_kv, std::optional<int64_t> max_seqlen_q,
    std::optional<int64_t> max_seqlen_k, const std::string& activation,
    std::optional<double> scale, double out_scale, bool causal, int64_t window_left,
    int64_t window_right, int64_t mask_align, double softcap, bool deterministic,
    int64_t emulate, bool validate_offsets) {
  c10::OptionalDeviceGuard guard(q.device());
  Call c = make_call(q, k, v, cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k, q_to_kv,
                     max_seqlen_q, max_seqlen_k, activation, scale, out_scale, causal,
                     window_left, window_right, mask_align, softcap, deterministic, emulate,
                     validate_offsets);
  // Contiguous gradients even for broadcast (stride-0) or strided inputs: autograd reduces
  // them through the view ops that produced q, k, v.
  at::Tensor dq = at::empty(q.sizes(), q.options());
  at::Tensor dk = at::empty(k.sizes(), k.options());
  at::Tensor dv = at::empty(v.sizes(), v.options());
  AttentionBackwardArgs args;
  args.out = to_ref(out, "out");
  args.dout = to_ref(dout, "dout");
  args.lse = to_ref(lse, "lse");
  if (args.lse.defined() && args.lse.numel() == 0) args.lse = TensorRef{};  // pointwise
  args.dq = to_ref(dq, "dq");
  args.dk = to_ref(dk, "dk");
  args.dv = to_ref(dv, "dv");
  translate_errors([&] { attention_backward(c.in, c.opt, args); });
  return {dq, dk, dv};
}

std::tuple<at::Tensor, at::Tensor> attention_combine_op(const at::Tensor& out_partial,
                                                        const OptTensor& lse_partial,
                                                        std::optional<at::ScalarType> out_dtype) {
  c10::OptionalDeviceGuard guard(out_partial.device());
  TORCH_CHECK_VALUE(out_partial.dim() >= 3, "amkl: out_partial must be [splits, rows..., H, d_v], got ",
                    out_partial.sizes());
  const bool softmax = lse_partial.has_value() && lse_partial->defined();
  at::Tensor out = at::empty(out_partial.sizes().slice(1),
                             out_partial.options().dtype(out_dtype.value_or(out_partial.scalar_type())));
  at::Tensor lse = softmax ? at::empty(lse_partial->sizes().slice(1), lse_partial->options())
                           : at::empty({0}, out_partial.options().dtype(at::kFloat));
  CombineArgs args;
  args.out_partial = to_ref(out_partial, "out_partial");
  args.lse_partial = to_ref(lse_partial, "lse_partial");
  args.out = to_ref(out, "out");
  if (softmax) args.lse = to_ref(lse, "lse");
  args.softmax = softmax;
  args.stream = current_stream(out_partial);
  translate_errors([&] { attention_combine(args); });
  return {out, lse};
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(amkl, m) {
  m.def("attention_fwd(" AMKL_ATTENTION_ARGS ") -> (Tensor out, Tensor lse)");
  m.def("attention_bwd(Tensor dout, Tensor? out, Tensor? lse, " AMKL_ATTENTION_ARGS
        ") -> (Tensor dq, Tensor dk, Tensor dv)");
  m.def("attention_combine(Tensor out_partial, Tensor? lse_partial, ScalarType? out_dtype)"
        " -> (Tensor out, Tensor lse)");
}

TORCH_LIBRARY_IMPL(amkl, CPU, m) {
  m.impl("attention_fwd", &attention_fwd);
  m.impl("attention_bwd", &attention_bwd);
  m.impl("attention_combine", &attention_combine_op);
}

TORCH_LIBRARY_IMPL(amkl, CUDA, m) {
  m.impl("attention_fwd", &attention_fwd);
  m.impl("attention_bwd", &attention_bwd);
  m.impl("attention_combine", &attention_combine_op);
}

}  // namespace amkl::torch_binding
