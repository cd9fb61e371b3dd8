"""``amkl.attention``: the one attention op, for softmax and GDPA activations alike."""

from typing import Optional, Tuple, Union

import torch

from . import _nested
from ._ops import attention_forward

_MASK_ALIGN = {"bottom_right": 0, "top_left": 1}


def _int32(t: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    # amkl takes int32 offsets; PyTorch code often carries int64 (e.g. nested offsets).
    return t if t is None or t.dtype == torch.int32 else t.to(torch.int32)


def attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    activation: str = "softmax",
    scale: Optional[float] = None,
    out_scale: float = 1.0,
    causal: bool = False,
    window: Tuple[int, int] = (-1, -1),
    softcap: float = 0.0,
    cu_seqlens_q: Optional[torch.Tensor] = None,
    cu_seqlens_k: Optional[torch.Tensor] = None,
    max_seqlen_q: Optional[int] = None,
    max_seqlen_k: Optional[int] = None,
    seqused_q: Optional[torch.Tensor] = None,
    seqused_k: Optional[torch.Tensor] = None,
    q_to_kv: Optional[torch.Tensor] = None,
    return_lse: bool = False,
    deterministic: bool = False,
    mask_align: str = "bottom_right",
    validate_offsets: bool = True,
) -> Union[torch.Tensor, Tuple[torch.Tensor, Optional[torch.Tensor]]]:
    """Attention with softmax or an element-wise activation (GDPA); differentiable.

    Computes, per sequence pair and head (``S`` in float32, float64 for float64 inputs)::

        S = scale * q @ k^T
        softmax:   P = softmax(S) over the allowed keys      (softcap > 0: S -> softcap*tanh(S/softcap))
        pointwise: P = out_scale * f(S) on allowed keys, 0 elsewhere (no normalization)
        out = P @ v

    Layouts (each of q and k/v independently):

    - dense ``[B, L, H, d]`` (no ``cu_seqlens`` for that side);
    - packed jagged ``[T, H, d]`` with ``cu_seqlens`` int32 ``[B+1]`` (sequence b is rows
      ``cu_seqlens[b]:cu_seqlens[b+1]``);
    - a ``torch.nested`` tensor with ``layout=torch.jagged`` and shape ``[B, j, H, d]``
      (then give no ``cu_seqlens``/``seqused`` for that side; ``max_seqlen`` is taken from
      the nested tensor when it has one cached). If q is nested, ``out`` is nested too.

    k and v have ``H_kv`` heads with ``H % H_kv == 0`` (GQA/MQA); v may have its own head dim
    ``d_v``. Strides are honoured (zero strides broadcast); the last dim must be contiguous.

    Args:
        q, k, v: float64, float32, float16 or bfloat16 (all the same), on CPU or CUDA.
            CUDA needs a Hopper GPU and float16 or bfloat16 with head dims (d, d_v) of (64, 64),
            (128, 128), (192, 128) or (256, 256); what its kernels do not cover raises
            NotImplementedError.
        activation: ``"softmax"`` (default) or a pointwise name: ``raw``, ``gelu``,
            ``gelu_approx``, ``fast_gelu``, ``leaky_relu``, ``relu``, ``fast_gelu_bf16``,
            ``silu``, ``fast_silu``, ``hardswish``, ``relu_square``, ``gelu_taylor``
            (alias ``fast_gelu_taylor_approx``), ``identity`` (= ``raw``).
        scale: logit scale; default ``1/sqrt(d)`` for softmax, 1.0 for pointwise.
        out_scale: multiplies ``f(S)``; pointwise only (must be 1.0 for softmax). Default 1.0.
        causal: key j visible to query i iff ``j <= i + offset`` (same as window right = 0).
        window: ``(left, right)`` sliding window, -1 = unbounded (so is any side of 2**62
            or more, or of at least the longest query plus the longest key sequence: it cuts
            no key). Default ``(-1, -1)``.
        mask_align: where the causal/window diagonal sits when ``Lq != Lk``:
            ``"bottom_right"`` (default; FlashAttention, offset = Lk - Lq) or ``"top_left"``
            (offset 0; GDPA's symmetric window).
        softcap: softmax only; 0 (default) disables.
        cu_seqlens_q, cu_seqlens_k: int32 ``[B+1]`` offsets for packed jagged q or k/v
            (int64 is converted).
        max_seqlen_q, max_seqlen_k: optional upper bounds of the sequence lengths; when given
            they must hold.
        seqused_q, seqused_k: optional int32 ``[B]``: only the first ``seqused[b]`` rows of
            each sequence are used.
        q_to_kv: optional int32 ``[B_q]``: query sequence b attends KV sequence ``q_to_kv[b]``.
        return_lse: also return the log-sum-exp (softmax only; ``None`` for pointwise).
        deterministic: bitwise reproducible backward.
        validate_offsets: check ``cu_seqlens``, ``seqused`` and ``q_to_kv`` (monotone, in
            range) before running. For CUDA tensors this copies them to the host (in one
            copy) and waits for the stream, so the GPU idles for a host round trip every call
            (measured on an H100 at B = 1152, L = 256: the checked call at 0.95 of the
            unchecked one's speed, bench/NOTES.md step 40); ``False`` skips the check (the
            caller guarantees the values), which is also what lets a jagged call be captured
            in a CUDA graph. CUDA then needs ``max_seqlen_q`` / ``max_seqlen_k`` for each
            jagged side. Default ``True``.

    Returns:
        ``out`` shaped like q with head dim ``d_v`` and q's dtype; with ``return_lse``,
        ``(out, lse)`` where ``lse`` is float32 ``[B, H, Lq]`` (dense q) or ``[H, Tq]``
        (jagged q), natural log, ``-inf`` for rows that see no key. The LSE is returned
        detached: it carries no gradient.

    Raises:
        ValueError: a bad argument (dtype, shape, device, stride, offsets, option);
        NotImplementedError: a valid request this build or GPU cannot run (e.g. the CUDA
        backward before it exists); RuntimeError: a device failure.
    """
    if mask_align not in _MASK_ALIGN:
        raise ValueError(f"amkl: mask_align: expected one of {sorted(_MASK_ALIGN)}, "
                         f"got {mask_align!r}")
    if len(window) != 2:
        raise ValueError(f"amkl: window: expected (left, right), got {window!r}")
    nested_q = nested_kv = None
    if _nested.is_jagged(q):
        if cu_seqlens_q is not None or seqused_q is not None:
            raise ValueError("amkl: q is a nested jagged tensor, which carries its own offsets; "
                             "do not also pass cu_seqlens_q or seqused_q")
        nested_q = _nested.unpack(q, "q")
        q, cu_seqlens_q, seqused_q = nested_q.values, nested_q.cu_seqlens, nested_q.seqused
        max_seqlen_q = max_seqlen_q if max_seqlen_q is not None else nested_q.max_seqlen
    if _nested.is_jagged(k) or _nested.is_jagged(v):
        if cu_seqlens_k is not None or seqused_k is not None:
            raise ValueError("amkl: k/v are nested jagged tensors, which carry their own "
                             "offsets; do not also pass cu_seqlens_k or seqused_k")
        # v must be packed like k; amkl checks that their row counts agree.
        nested_kv = _nested.unpack(k, "k")
        k, v = nested_kv.values, _nested.unpack(v, "v").values
        cu_seqlens_k, seqused_k = nested_kv.cu_seqlens, nested_kv.seqused
        max_seqlen_k = max_seqlen_k if max_seqlen_k is not None else nested_kv.max_seqlen

    out, lse = attention_forward(
        q, k, v,
        cu_seqlens_q=_int32(cu_seqlens_q), cu_seqlens_k=_int32(cu_seqlens_k),
        seqused_q=_int32(seqused_q), seqused_k=_int32(seqused_k), q_to_kv=_int32(q_to_kv),
        max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k,
        activation=activation, scale=scale, out_scale=out_scale, causal=causal,
        window=tuple(window), mask_align=_MASK_ALIGN[mask_align], softcap=softcap,
        deterministic=deterministic, validate_offsets=validate_offsets)

    if nested_q is not None:
        out = _nested.repack(out, nested_q)
    if not return_lse:
        return out
    return out, (lse.detach() if activation == "softmax" else None)
