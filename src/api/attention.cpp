// Attention: every check a user can trip, the defaults of DESIGN.md section 2, the
// resolution into detail::AttentionParams, and the dispatch on device. Backends never
// re-check; nothing is written before every check has passed.
#include "amkl/attention.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "api/checks.h"
#include "api/offsets.h"
#include "common/attention_params.h"
#include "cpu/cpu_backend.h"
#include "cuda/cuda_backend.h"

namespace amkl {
namespace {

using api::fail;
using api::require_defined;
using api::require_device;
using api::require_dtype;
using api::require_last_contiguous;
using api::require_shape;
using api::require_writable_strides;
using detail::AttentionParams;
using detail::SeqSide;
using detail::TensorLayout;

// Shapes of one side, read from its tensor and its (optional) cu_seqlens.
struct SideShape {
  bool jagged = false;
  int64_t batch = 0, len = 0, rows = 0, heads = 0, dim = 0;
};

SideShape side_shape(const TensorRef& t, const char* name, const TensorRef& cu,
                     const char* cu_name, const char* len_name) {
  SideShape s;
  s.jagged = cu.defined();
  const int want = s.jagged ? 3 : 4;
  if (t.ndim != want) {
    if (s.jagged) {
      fail(std::string(name) + ": " + cu_name + " is given, so expected a jagged tensor [T, H, " +
           "d] (3 dims), got shape " + t.shape_str());
    }
    fail(std::string(name) + ": expected a dense tensor [B, " + len_name + ", H, d] (4 dims), " +
         "or a jagged [T, H, d] with " + cu_name + ", got shape " + t.shape_str());
  }
  if (s.jagged) {
    if (cu.ndim != 1 || cu.shape[0] < 1) {
      fail(std::string(cu_name) + ": expected shape [B + 1] with B >= 0, got " + cu.shape_str());
    }
    s.batch = cu.shape[0] - 1;
    s.rows = t.shape[0];
    s.heads = t.shape[1];
    s.dim = t.shape[2];
  } else {
    s.batch = t.shape[0];
    s.len = t.shape[1];
    s.rows = s.batch * s.len;
    s.heads = t.shape[2];
    s.dim = t.shape[3];
  }
  return s;
}

TensorLayout layout_of(const TensorRef& t, bool jagged) {
  TensorLayout l;
  l.data = t.data;
  if (jagged) {
    l.batch_stride = 0;
    l.row_stride = t.strides[0];
    l.head_stride = t.strides[1];
  } else {
    l.batch_stride = t.strides[0];
    l.row_stride = t.strides[1];
    l.head_stride = t.strides[2];
  }
  return l;
}

std::vector<int64_t> out_shape_for(const SideShape& q, int64_t dv) {
  if (q.jagged) return {q.rows, q.heads, dv};
  return {q.batch, q.len, q.heads, dv};
}

std::vector<int64_t> lse_shape_for(const SideShape& q) {
  if (q.jagged) return {q.heads, q.rows};
  return {q.batch, q.heads, q.len};
}

// Everything resolved from the inputs and options, before outputs are looked at.
struct Resolved {
  AttentionParams p;
  SideShape qs, ks;
};

void check_options(const AttentionOptions& o, const Device& dev) {
  const int act = int(o.activation);
  if (act < 0 || act >= kNumActivations) {
    fail("activation: id must be in [0, " + std::to_string(kNumActivations - 1) + "], got " +
         std::to_string(act));
  }
  const bool softmax = o.activation == Activation::Softmax;
  if (!std::isnan(o.scale) && !std::isfinite(o.scale)) {
    fail("scale: must be finite (or NaN for the default), got " + std::to_string(o.scale));
  }
  if (!std::isfinite(o.out_scale)) {
    fail("out_scale: must be finite, got " + std::to_string(o.out_scale));
  }
  if (softmax && o.out_scale != 1.0) {
    fail("out_scale: applies to pointwise activations only; must be 1 with softmax, got " +
         std::to_string(o.out_scale));
  }
  if (!std::isfinite(o.softcap) || o.softcap < 0.0) {
    fail("softcap: must be finite and >= 0, got " + std::to_string(o.softcap));
  }
  if (!softmax && o.softcap != 0.0) {
    fail(std::string("softcap: applies to softmax only; must be 0 with activation '") +
         activation_name(o.activation) + "', got " + std::to_string(o.softcap));
  }
  if (o.window_left < -1 || o.window_right < -1) {
    fail("window: each side must be >= -1 (-1: unbounded), got (" +
         std::to_string(o.window_left) + ", " + std::to_string(o.window_right) + ")");
  }
  if (o.causal && o.window_right > 0) {
    fail("window: causal=true means window_right = 0, got window_right = " +
         std::to_string(o.window_right));
  }
  if (o.mask_align != MaskAlign::BottomRight && o.mask_align != MaskAlign::TopLeft) {
    fail("mask_align: expected BottomRight (0) or TopLeft (1), got " +
         std::to_string(int(o.mask_align)));
  }
  if (o.emulate != Rounding::None && o.emulate != Rounding::BFloat16 &&
      o.emulate != Rounding::Float16) {
    fail("emulate: expected None (0), BFloat16 (1) or Float16 (2), got " +
         std::to_string(int(o.emulate)));
  }
  if (o.emulate != Rounding::None && dev.type != DeviceType::CPU) {
    fail("emulate: rounding emulation is a CPU-backend feature; got tensors on " +
         device_name(dev));
  }
}

Resolved resolve_inputs(const AttentionInputs& in, const AttentionOptions& opt) {
  require_defined(in.q, "q");
  require_defined(in.k, "k");
  require_defined(in.v, "v");
  const Device dev = in.q.device;
  if (dev.type != DeviceType::CPU && dev.type != DeviceType::CUDA) {
    fail("q: unknown device type " + std::to_string(int(dev.type)));
  }
  require_device(in.k, "k", dev, "q");
  require_device(in.v, "v", dev, "q");
  if (in.q.dtype == DType::Float8E4M3 || in.q.dtype == DType::Float8E5M2) {
    api::unsupported(std::string("q: float8 attention is not implemented yet, got ") +
                     dtype_name(in.q.dtype));
  }
  require_dtype(in.q, "q", {DType::Float64, DType::Float32, DType::Float16, DType::BFloat16});
  if (in.k.dtype != in.q.dtype) {
    fail(std::string("k: expected dtype ") + dtype_name(in.q.dtype) + " (the dtype of q), got " +
         dtype_name(in.k.dtype));
  }
  if (in.v.dtype != in.q.dtype) {
    fail(std::string("v: expected dtype ") + dtype_name(in.q.dtype) + " (the dtype of q), got " +
         dtype_name(in.v.dtype));
  }
  check_options(opt, dev);

  if (in.cu_seqlens_q.defined()) {
    api::require_index_vector(in.cu_seqlens_q, "cu_seqlens_q", -1, dev, "");
  }
  if (in.cu_seqlens_k.defined()) {
    api::require_index_vector(in.cu_seqlens_k, "cu_seqlens_k", -1, dev, "");
  }
  Resolved r;
  r.qs = side_shape(in.q, "q", in.cu_seqlens_q, "cu_seqlens_q", "Lq");
  r.ks = side_shape(in.k, "k", in.cu_seqlens_k, "cu_seqlens_k", "Lk");
  const SideShape vs = side_shape(in.v, "v", in.cu_seqlens_k, "cu_seqlens_k", "Lk");
  const SideShape& qs = r.qs;
  const SideShape& ks = r.ks;

  // v: the layout of k with its own head dim.
  if (vs.batch != ks.batch || vs.len != ks.len || vs.rows != ks.rows || vs.heads != ks.heads) {
    std::vector<int64_t> want = api::shape_vec(in.k);
    want.back() = in.v.shape[in.v.ndim - 1];
    fail("v: expected shape " + api::shape_of(want) + " (k's shape with v's head dim), got " +
         in.v.shape_str());
  }
  if (qs.dim != ks.dim) {
    fail("k: head dim must equal q's (" + std::to_string(qs.dim) + "), got shape " +
         in.k.shape_str());
  }
  if (qs.dim <= 0 || vs.dim <= 0) {
    fail("q/v: head dims must be positive, got d = " + std::to_string(qs.dim) +
         ", d_v = " + std::to_string(vs.dim));
  }
  if (qs.heads <= 0 || ks.heads <= 0) {
    fail("q/k: head counts must be positive, got H = " + std::to_string(qs.heads) +
         ", H_kv = " + std::to_string(ks.heads));
  }
  if (qs.heads % ks.heads != 0) {
    fail("k: the number of query heads (" + std::to_string(qs.heads) +
         ") must be a multiple of the number of kv heads, got " + std::to_string(ks.heads));
  }
  require_last_contiguous(in.q, "q");
  require_last_contiguous(in.k, "k");
  require_last_contiguous(in.v, "v");

  if (in.q_to_kv.defined()) {
    api::require_index_vector(in.q_to_kv, "q_to_kv", qs.batch, dev,
                              "one entry per query sequence");
  } else if (qs.batch != ks.batch) {
    fail("k: without q_to_kv, q and k need the same number of sequences; q has " +
         std::to_string(qs.batch) + ", k has " + std::to_string(ks.batch));
  }
  if (in.seqused_q.defined()) {
    api::require_index_vector(in.seqused_q, "seqused_q", qs.batch, dev, "one per query sequence");
  }
  if (in.seqused_k.defined()) {
    api::require_index_vector(in.seqused_k, "seqused_k", ks.batch, dev, "one per kv sequence");
  }
  if (in.max_seqlen_q < -1 || in.max_seqlen_k < -1) {
    fail("max_seqlen_q/max_seqlen_k: must be >= 0, or -1 for unknown; got " +
         std::to_string(in.max_seqlen_q) + ", " + std::to_string(in.max_seqlen_k));
  }

  AttentionParams& p = r.p;
  p.device = dev;
  p.in_dtype = in.q.dtype;
  p.heads_q = qs.heads;
  p.heads_kv = ks.heads;
  p.head_dim = qs.dim;
  p.head_dim_v = vs.dim;
  auto make_side = [](const SideShape& s, const TensorRef& cu, const TensorRef& used,
                      int64_t max_hint) {
    SeqSide side;
    side.jagged = s.jagged;
    side.batch = s.batch;
    side.dense_len = s.jagged ? 0 : s.len;
    side.total_rows = s.rows;
    side.max_len = s.jagged ? max_hint : (max_hint >= 0 ? std::min(max_hint, s.len) : s.len);
    side.cu_seqlens = static_cast<const int32_t*>(cu.data);
    side.seqused = static_cast<const int32_t*>(used.data);
    return side;
  };
  p.q_side = make_side(qs, in.cu_seqlens_q, in.seqused_q, in.max_seqlen_q);
  p.kv_side = make_side(ks, in.cu_seqlens_k, in.seqused_k, in.max_seqlen_k);
  p.q_to_kv = static_cast<const int32_t*>(in.q_to_kv.data);
  p.q = layout_of(in.q, qs.jagged);
  p.k = layout_of(in.k, ks.jagged);
  p.v = layout_of(in.v, ks.jagged);

  p.activation = opt.activation;
  const bool softmax = opt.activation == Activation::Softmax;
  // The kernels take the scalars in fp32 (the CPU's float64 path too: an oracle difference of
  // ~1e-8 relative, far below any bf16 tolerance).
  p.scale = float(std::isnan(opt.scale) ? (softmax ? 1.0 / std::sqrt(double(qs.dim)) : 1.0)
                                        : opt.scale);
  p.out_scale = float(opt.out_scale);
  p.softcap = float(opt.softcap);
  p.window_left = opt.window_left;  // as the backends take it: drop_unbounded_window_sides
  p.window_right = opt.causal ? 0 : opt.window_right;
  p.mask_align = opt.mask_align;
  p.deterministic = opt.deterministic;
  p.emulate = opt.emulate;
  p.stream = opt.stream;
  return r;
}

// Reads and checks the offsets (host copy for CUDA tensors); fills in the length bounds.
void validate_offsets(const AttentionInputs& in, const AttentionOptions& opt, Resolved& r) {
  if (!opt.validate_offsets) {
    if (r.p.q_side.jagged && r.p.q_side.max_len < 0 && r.p.device.type == DeviceType::CUDA) {
      fail("max_seqlen_q: required for jagged CUDA inputs when validate_offsets is false");
    }
    if (r.p.kv_side.jagged && r.p.kv_side.max_len < 0 && r.p.device.type == DeviceType::CUDA) {
      fail("max_seqlen_k: required for jagged CUDA inputs when validate_offsets is false");
    }
    return;
  }
  api::SideOffsets q{"q", "cu_seqlens_q", "seqused_q", "max_seqlen_q", r.qs.jagged,
                     r.qs.batch, r.qs.len, r.qs.rows, in.cu_seqlens_q, in.seqused_q,
                     in.max_seqlen_q};
  api::SideOffsets k{"k", "cu_seqlens_k", "seqused_k", "max_seqlen_k", r.ks.jagged,
                     r.ks.batch, r.ks.len, r.ks.rows, in.cu_seqlens_k, in.seqused_k,
                     in.max_seqlen_k};
  // All index vectors in one host copy: one stream sync, not one per vector.
  const std::vector<std::vector<int32_t>> h = api::read_index_vectors(
      {q.jagged ? in.cu_seqlens_q : TensorRef{}, in.seqused_q,
       k.jagged ? in.cu_seqlens_k : TensorRef{}, in.seqused_k, in.q_to_kv},
      r.p.stream);
  r.p.q_side.max_len = api::check_side_offsets(q, h[0], h[1]);
  r.p.kv_side.max_len = api::check_side_offsets(k, h[2], h[3]);
  if (in.q_to_kv.defined()) api::check_batch_map(h[4], r.ks.batch);
}

/// The window sides as the backends take them: a side that reaches past every key of every
/// sequence pair is -1 (unbounded). With row i's diagonal at i + offset, offset in (-len_q,
/// len_k), a side of max len_q + max len_k or more cuts no key (where validate_offsets or the
/// caller's max_seqlen bounds the lengths; the GPU kernels then run such windows, of any size,
/// on their unmasked path); and so does one of 2^62 or more whatever the lengths, which keeps
/// the mask's row arithmetic (i + offset +- window, common/mask.h) in int64 (a side of 2^63 - 1
/// overflowed there and its rows silently lost their keys).
void drop_unbounded_window_sides(AttentionParams& p) {
  int64_t reach = int64_t(1) << 62;
  if (p.q_side.max_len >= 0 && p.kv_side.max_len >= 0) {
    reach = std::min(reach, p.q_side.max_len + p.kv_side.max_len);
  }
  if (p.window_left >= reach) p.window_left = -1;
  if (p.window_right >= reach) p.window_right = -1;
}

void check_lse(const TensorRef& lse, const char* name, const Resolved& r) {
  require_dtype(lse, name, {DType::Float32});
  require_device(lse, name, r.p.device, "q");
  require_shape(lse, name, lse_shape_for(r.qs));
}

void set_lse(AttentionParams& p, const TensorRef& lse, bool jagged) {
  p.lse = static_cast<float*>(lse.data);
  if (jagged) {  // [H, T]
    p.lse_batch_stride = 0;
    p.lse_head_stride = lse.strides[0];
    p.lse_row_stride = lse.strides[1];
  } else {  // [B, H, L]
    p.lse_batch_stride = lse.strides[0];
    p.lse_head_stride = lse.strides[1];
    p.lse_row_stride = lse.strides[2];
  }
}

void check_out_like(const TensorRef& t, const char* name, const Resolved& r,
                    const std::vector<int64_t>& shape, bool output) {
  require_defined(t, name);
  require_device(t, name, r.p.device, "q");
  require_shape(t, name, shape);
  if (t.dtype != r.p.in_dtype && t.dtype != DType::Float32) {
    fail(std::string(name) + ": expected dtype " + dtype_name(r.p.in_dtype) +
         " (the dtype of q) or float32, got " + dtype_name(t.dtype));
  }
  require_last_contiguous(t, name);
  if (output) require_writable_strides(t, name);
}

void dispatch_check_forward(const AttentionParams& p) {
  if (p.device.type == DeviceType::CUDA) cuda::check_forward_supported(p);
}

}  // namespace

AttentionShapes attention_forward_shapes(const AttentionInputs& in, const AttentionOptions& opt) {
  const Resolved r = resolve_inputs(in, opt);
  AttentionShapes s;
  s.out = out_shape_for(r.qs, r.p.head_dim_v);
  if (opt.activation == Activation::Softmax) s.lse = lse_shape_for(r.qs);
  return s;
}

void attention_forward(const AttentionInputs& in, const AttentionOptions& opt,
                       const AttentionForwardOutputs& outs) {
  Resolved r = resolve_inputs(in, opt);
  AttentionParams& p = r.p;
  check_out_like(outs.out, "out", r, out_shape_for(r.qs, p.head_dim_v), true);
  p.out_dtype = outs.out.dtype;
  p.out = layout_of(outs.out, r.qs.jagged);
  if (outs.lse.defined()) {
    if (opt.activation != Activation::Softmax) {
      fail(std::string("lse: exists for softmax only; do not pass it with activation '") +
           activation_name(opt.activation) + "'");
    }
    check_lse(outs.lse, "lse", r);
    require_writable_strides(outs.lse, "lse");
    set_lse(p, outs.lse, r.qs.jagged);
  }
  validate_offsets(in, opt, r);
  drop_unbounded_window_sides(p);
  dispatch_check_forward(p);
  if (p.device.type == DeviceType::CPU) {
    cpu::attention_forward(p);
  } else {
    cuda::attention_forward(p);
  }
}

void attention_backward(const AttentionInputs& in, const AttentionOptions& opt,
                        const AttentionBackwardArgs& a) {
  Resolved r = resolve_inputs(in, opt);
  AttentionParams& p = r.p;
  const bool softmax = opt.activation == Activation::Softmax;
  const std::vector<int64_t> oshape = out_shape_for(r.qs, p.head_dim_v);

  check_out_like(a.dout, "dout", r, oshape, false);
  p.dout = layout_of(a.dout, r.qs.jagged);
  if (softmax) {
    if (!a.out.defined()) fail("out: the softmax backward needs the forward's out");
    if (!a.lse.defined()) fail("lse: the softmax backward needs the forward's lse");
  }
  if (a.out.defined()) {
    check_out_like(a.out, "out", r, oshape, false);
    if (a.out.dtype != a.dout.dtype) {
      fail(std::string("dout: expected the dtype of out (") + dtype_name(a.out.dtype) +
           "), got " + dtype_name(a.dout.dtype));
    }
    p.out = layout_of(a.out, r.qs.jagged);
    p.out_dtype = a.out.dtype;
  } else {
    p.out_dtype = a.dout.dtype;
  }
  if (a.lse.defined()) {
    if (!softmax) {
      fail(std::string("lse: exists for softmax only; do not pass it with activation '") +
           activation_name(opt.activation) + "'");
    }
    check_lse(a.lse, "lse", r);
    set_lse(p, a.lse, r.qs.jagged);
  }
  struct Grad {
    const TensorRef& t;
    const char* name;
    const TensorRef& like;
    TensorLayout* dst;
    bool jagged;
  };
  const Grad grads[] = {{a.dq, "dq", in.q, &p.dq, r.qs.jagged},
                        {a.dk, "dk", in.k, &p.dk, r.ks.jagged},
                        {a.dv, "dv", in.v, &p.dv, r.ks.jagged}};
  for (const Grad& g : grads) {
    require_defined(g.t, g.name);
    require_device(g.t, g.name, p.device, "q");
    require_shape(g.t, g.name, api::shape_vec(g.like));
    if (g.t.dtype != p.in_dtype) {
      fail(std::string(g.name) + ": expected dtype " + dtype_name(p.in_dtype) +
           " (the dtype of q), got " + dtype_name(g.t.dtype));
    }
    require_last_contiguous(g.t, g.name);
    require_writable_strides(g.t, g.name);
    *g.dst = layout_of(g.t, g.jagged);
  }
  validate_offsets(in, opt, r);
  drop_unbounded_window_sides(p);
  if (p.device.type == DeviceType::CPU) {
    cpu::attention_backward(p);
  } else {
    cuda::check_backward_supported(p);
    cuda::attention_backward(p);
  }
}

}  // namespace amkl
