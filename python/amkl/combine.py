"""``amkl.attention_combine``: merge the partial results of a split-KV attention."""

from typing import Optional, Tuple

import torch

from ._ops import attention_combine as _combine_op


def attention_combine(
    out_partial: torch.Tensor,
    lse_partial: Optional[torch.Tensor] = None,
    *,
    out_dtype: Optional[torch.dtype] = None,
) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """Combines S partial attention results computed over disjoint key ranges.

    Args:
        out_partial: float32 ``[S, rows..., H, d_v]`` (float64 allowed on the CPU); the
            ``rows...`` dims are e.g. ``[B, L]`` or ``[T]``.
        lse_partial: float32 ``[S, rows..., H]`` for softmax partials, whose combination is
            ``lse = log sum_s exp(lse_s)``, ``out = sum_s exp(lse_s - lse) * out_s`` (a split
            with ``lse_s = -inf`` contributes nothing). ``None`` for pointwise activations:
            ``out = sum_s out_s``.
        out_dtype: dtype of ``out`` (float32, float64, float16 or bfloat16); default that of
            ``out_partial``.

    Returns:
        ``(out, lse)``: ``out`` ``[rows..., H, d_v]``; ``lse`` float32 ``[rows..., H]``, or
        ``None`` without ``lse_partial``. Not differentiable.
    """
    out, lse = _combine_op(out_partial, lse_partial, out_dtype)
    return out, (lse if lse_partial is not None else None)
