"""Drop-ins for FlashAttention 3's ``flash_attn_func`` and ``flash_attn_varlen_func``
(``flash_attn_interface`` of the ``flash_attn_3`` package): same arguments, defaults and
return values, computed by ``amkl.attention``.

Performance-only arguments amkl decides for itself are accepted: ``pack_gqa`` (any value),
``num_splits=1`` and ``sm_margin=0``. Arguments that amkl cannot honour (``qv``, the fp8
descales, ``attention_chunk != 0``, ``num_splits != 1``, ``sm_margin != 0``) raise
NotImplementedError naming them.
"""

from typing import Optional, Tuple

import torch

from ._unsupported import reject
from .attention import attention


def _reject_fa3(function, qv, q_descale, k_descale, v_descale, attention_chunk, num_splits,
                sm_margin):
    reject(function, qv=qv is not None, q_descale=q_descale is not None,
           k_descale=k_descale is not None, v_descale=v_descale is not None,
           attention_chunk=attention_chunk != 0, num_splits=num_splits != 1,
           sm_margin=sm_margin != 0)


def flash_attn_func(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    softmax_scale: Optional[float] = None,
    causal: bool = False,
    qv: Optional[torch.Tensor] = None,
    q_descale: Optional[torch.Tensor] = None,
    k_descale: Optional[torch.Tensor] = None,
    v_descale: Optional[torch.Tensor] = None,
    window_size: Tuple[int, int] = (-1, -1),
    attention_chunk: int = 0,
    softcap: float = 0.0,
    num_splits: int = 1,
    pack_gqa: Optional[bool] = None,
    deterministic: bool = False,
    sm_margin: int = 0,
    return_attn_probs: bool = False,
):
    """FlashAttention-3 ``flash_attn_func``: softmax attention on dense batches.

    Args:
        q: ``[B, Lq, H, d]``; k: ``[B, Lk, H_kv, d]``; v: ``[B, Lk, H_kv, d_v]``; float16,
            bfloat16 (also float32/float64, which amkl supports on the CPU).
        softmax_scale: default ``1/sqrt(d)``.
        causal: bottom-right aligned causal mask. window_size: ``(left, right)``, -1 unbounded.
        softcap: 0 disables. deterministic: bitwise reproducible backward.
        pack_gqa: accepted, no effect: amkl packs a KV head's query heads into one tile on its
            own, where the query sequences are shorter than a tile (``pack_gqa=False`` does
            not turn that off).
        qv, q_descale, k_descale, v_descale, attention_chunk, num_splits, sm_margin: only
            their defaults are supported.
        return_attn_probs: also return the softmax LSE (FA3's behaviour for this flag).

    Returns:
        ``out`` ``[B, Lq, H, d_v]`` (q's dtype), or ``(out, softmax_lse)`` with
        ``softmax_lse`` float32 ``[B, H, Lq]`` when ``return_attn_probs``.
    """
    _reject_fa3("flash_attn_func", qv, q_descale, k_descale, v_descale, attention_chunk,
                num_splits, sm_margin)
    return attention(q, k, v, scale=softmax_scale, causal=causal, window=window_size,
                     softcap=softcap, deterministic=deterministic, return_lse=return_attn_probs)


def flash_attn_varlen_func(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cu_seqlens_q: Optional[torch.Tensor],
    cu_seqlens_k: Optional[torch.Tensor],
    max_seqlen_q: Optional[int],
    max_seqlen_k: Optional[int],
    seqused_q: Optional[torch.Tensor] = None,
    seqused_k: Optional[torch.Tensor] = None,
    softmax_scale: Optional[float] = None,
    causal: bool = False,
    qv: Optional[torch.Tensor] = None,
    q_descale: Optional[torch.Tensor] = None,
    k_descale: Optional[torch.Tensor] = None,
    v_descale: Optional[torch.Tensor] = None,
    window_size: Tuple[int, int] = (-1, -1),
    attention_chunk: int = 0,
    softcap: float = 0.0,
    num_splits: int = 1,
    pack_gqa: Optional[bool] = None,
    deterministic: bool = False,
    sm_margin: int = 0,
    return_attn_probs: bool = False,
):
    """FlashAttention-3 ``flash_attn_varlen_func``: softmax attention on packed sequences.

    Args:
        q: ``[Tq, H, d]`` with ``cu_seqlens_q`` int32 ``[B+1]``; k, v: ``[Tk, H_kv, d]`` and
            ``[Tk, H_kv, d_v]`` with ``cu_seqlens_k``. A side whose ``cu_seqlens`` is None
            is dense (``[B, L, H, d]``), as in FA3.
        max_seqlen_q, max_seqlen_k: upper bounds of the lengths (may be None).
        seqused_q, seqused_k: optional int32 ``[B]`` used lengths.
        Others: as ``flash_attn_func``.

    Returns:
        ``out`` ``[Tq, H, d_v]``, or ``(out, softmax_lse)`` with ``softmax_lse`` float32
        ``[H, Tq]`` when ``return_attn_probs``.
    """
    _reject_fa3("flash_attn_varlen_func", qv, q_descale, k_descale, v_descale, attention_chunk,
                num_splits, sm_margin)
    return attention(q, k, v, scale=softmax_scale, causal=causal, window=window_size,
                     softcap=softcap, cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
                     max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k, seqused_q=seqused_q,
                     seqused_k=seqused_k, deterministic=deterministic,
                     return_lse=return_attn_probs)
