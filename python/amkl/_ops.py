"""Fake (meta) kernels and autograd for the ``torch.ops.amkl`` attention ops.

The ops themselves are defined and implemented in C++ (src/torch/attention_ops.cpp). Here
they get what torch.compile and autograd need: output shapes without running anything, and
a backward that calls ``amkl::attention_bwd``.

Both C++ attention ops take the same argument tuple (inputs, then options);
``attention_forward`` below builds it once, and the backward replays it unchanged.
"""

from typing import Optional, Tuple

import torch

from ._library import ops

# The number of entries of the shared argument tuple (after q, k, v) that are tensors:
# cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k, q_to_kv.
_NUM_INDEX_TENSORS = 5


def _is_softmax(activation: str) -> bool:
    # C++ parses names (and rejects unknown ones); only "softmax" names the softmax.
    return activation == "softmax"


@torch.library.register_fake("amkl::attention_fwd")
def _attention_fwd_fake(q, k, v, cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k, q_to_kv,
                        max_seqlen_q, max_seqlen_k, activation, scale, out_scale, causal,
                        window_left, window_right, mask_align, softcap, deterministic, emulate,
                        validate_offsets):
    # The shape rules of amkl::attention_forward_shapes: out has q's layout with v's head
    # dim; the LSE is [B, H, Lq] (dense q) or [H, Tq] (jagged q), and empty for pointwise.
    out = q.new_empty((*q.shape[:-1], v.shape[-1]))
    if not _is_softmax(activation):
        lse = q.new_empty((0,), dtype=torch.float32)
    elif cu_seqlens_q is None:
        lse = q.new_empty((q.shape[0], q.shape[2], q.shape[1]), dtype=torch.float32)
    else:
        lse = q.new_empty((q.shape[1], q.shape[0]), dtype=torch.float32)
    return out, lse


@torch.library.register_fake("amkl::attention_bwd")
def _attention_bwd_fake(dout, out, lse, q, k, v, *rest):
    return torch.empty_like(q, memory_format=torch.contiguous_format), \
        torch.empty_like(k, memory_format=torch.contiguous_format), \
        torch.empty_like(v, memory_format=torch.contiguous_format)


@torch.library.register_fake("amkl::attention_combine")
def _attention_combine_fake(out_partial, lse_partial, out_dtype):
    out = out_partial.new_empty(out_partial.shape[1:],
                                dtype=out_dtype if out_dtype is not None else out_partial.dtype)
    if lse_partial is None:
        return out, out_partial.new_empty((0,), dtype=torch.float32)
    return out, lse_partial.new_empty(lse_partial.shape[1:])


def _setup_context(ctx, inputs, output):
    q, k, v = inputs[:3]
    index_tensors = inputs[3:3 + _NUM_INDEX_TENSORS]
    ctx.rest = inputs[3 + _NUM_INDEX_TENSORS:]  # max_seqlen_*, then the options
    out, lse = output
    activation = ctx.rest[2]
    # Pointwise activations recompute P from Q and K; only softmax needs out and lse.
    if not _is_softmax(activation):
        out, lse = None, None
    ctx.save_for_backward(q, k, v, out, lse, *index_tensors)


def _backward(ctx, dout, _dlse):
    # _dlse is always unused: amkl.attention hands out the LSE detached, so no gradient can
    # reach it through the public API.
    q, k, v, out, lse, *index_tensors = ctx.saved_tensors
    if dout.stride(-1) != 1:  # e.g. the stride-0 gradient of a sum()
        dout = dout.contiguous()
    dq, dk, dv = ops.attention_bwd(dout, out, lse, q, k, v, *index_tensors, *ctx.rest)
    return (dq, dk, dv) + (None,) * (_NUM_INDEX_TENSORS + len(ctx.rest))


torch.library.register_autograd("amkl::attention_fwd", _backward, setup_context=_setup_context)


def attention_forward(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *,
    cu_seqlens_q: Optional[torch.Tensor], cu_seqlens_k: Optional[torch.Tensor],
    seqused_q: Optional[torch.Tensor], seqused_k: Optional[torch.Tensor],
    q_to_kv: Optional[torch.Tensor], max_seqlen_q: Optional[int], max_seqlen_k: Optional[int],
    activation: str, scale: Optional[float], out_scale: float, causal: bool,
    window: Tuple[int, int], mask_align: int, softcap: float, deterministic: bool,
    emulate: int = 0, validate_offsets: bool = True,
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Calls ``torch.ops.amkl.attention_fwd`` (differentiable); returns ``(out, lse)``.

    ``lse`` is an empty tensor for pointwise activations. ``emulate`` (CPU only): round like
    a bfloat16 (1) or float16 (2) GPU kernel, for computing test tolerances.
    ``validate_offsets``: see ``amkl.attention``.
    """
    return ops.attention_fwd(
        q, k, v, cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k, q_to_kv,
        max_seqlen_q, max_seqlen_k, activation, scale, float(out_scale), bool(causal),
        int(window[0]), int(window[1]), mask_align, float(softcap), bool(deterministic), emulate,
        bool(validate_offsets))


def attention_combine(out_partial: torch.Tensor, lse_partial: Optional[torch.Tensor],
                      out_dtype: Optional[torch.dtype]) -> Tuple[torch.Tensor, torch.Tensor]:
    """Calls ``torch.ops.amkl.attention_combine``; returns ``(out, lse)``."""
    return ops.attention_combine(out_partial, lse_partial, out_dtype)
