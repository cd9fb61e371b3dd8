"""``amkl.nn``: multi-head attention modules built on ``amkl.attention``.

``Attention`` is softmax (or any activation) multi-head attention with GQA, for self- or
cross-attention, on dense ``[B, L, E]``, packed jagged ``[T, E]`` (with ``cu_seqlens``) or
nested jagged ``[B, j, E]`` inputs. ``GDPA`` is the same module with GDPA's conventions:
a pointwise activation, logit scale 1.0, ``out_scale`` after the activation and a symmetric
top-left window.
"""

from typing import Optional, Tuple

import torch
from torch import nn

from . import _nested
from .attention import attention


def _to_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """[..., heads * d] -> [..., heads, d] (a view)."""
    return x.unflatten(-1, (heads, -1))


class Attention(nn.Module):
    """Multi-head attention: ``out_proj(attention(q_proj(x), k_proj(kv), v_proj(kv)))``.

    Args:
        embed_dim: E, the model width (input and output).
        num_heads: H, query heads; ``head_dim = embed_dim // num_heads`` (must divide).
        num_kv_heads: H_kv for grouped-query attention (default H; must divide H).
        kv_dim: width of the key/value input for cross-attention (default E).
        bias: whether the projections have biases (default True).
        activation, scale, out_scale, causal, window, softcap, mask_align: as in
            ``amkl.attention`` (defaults: softmax, default scale, 1.0, False, (-1, -1), 0.0,
            "bottom_right").
        device, dtype: of the parameters.

    forward(x, kv=None, *, cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=None,
    max_seqlen_k=None):
        x: ``[B, L, E]``, ``[T, E]`` with ``cu_seqlens_q``, or a nested jagged ``[B, j, E]``.
        kv: the key/value input (default x, with ``cu_seqlens_k`` defaulting to
            ``cu_seqlens_q``), in any of the same layouts with width ``kv_dim``.
        Returns the output in x's layout, width E.
    """

    def __init__(self, embed_dim: int, num_heads: int, num_kv_heads: Optional[int] = None, *,
                 kv_dim: Optional[int] = None, bias: bool = True, activation: str = "softmax",
                 scale: Optional[float] = None, out_scale: float = 1.0, causal: bool = False,
                 window: Tuple[int, int] = (-1, -1), softcap: float = 0.0,
                 mask_align: str = "bottom_right", device=None, dtype=None):
        super().__init__()
        num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        if embed_dim % num_heads or num_heads % num_kv_heads:
            raise ValueError(f"amkl.nn.Attention: need num_heads | embed_dim and num_kv_heads | "
                             f"num_heads, got embed_dim={embed_dim}, num_heads={num_heads}, "
                             f"num_kv_heads={num_kv_heads}")
        head_dim = embed_dim // num_heads
        kv_dim = embed_dim if kv_dim is None else kv_dim
        factory = dict(device=device, dtype=dtype)
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.q_proj = nn.Linear(embed_dim, num_heads * head_dim, bias=bias, **factory)
        self.k_proj = nn.Linear(kv_dim, num_kv_heads * head_dim, bias=bias, **factory)
        self.v_proj = nn.Linear(kv_dim, num_kv_heads * head_dim, bias=bias, **factory)
        self.out_proj = nn.Linear(num_heads * head_dim, embed_dim, bias=bias, **factory)
        self.options = dict(activation=activation, scale=scale, out_scale=out_scale,
                            causal=causal, window=tuple(window), softcap=softcap,
                            mask_align=mask_align)

    def forward(self, x: torch.Tensor, kv: Optional[torch.Tensor] = None, *,
                cu_seqlens_q: Optional[torch.Tensor] = None,
                cu_seqlens_k: Optional[torch.Tensor] = None,
                max_seqlen_q: Optional[int] = None,
                max_seqlen_k: Optional[int] = None) -> torch.Tensor:
        if kv is None:
            kv, cu_seqlens_k = x, cu_seqlens_q if cu_seqlens_k is None else cu_seqlens_k
            max_seqlen_k = max_seqlen_q if max_seqlen_k is None else max_seqlen_k
        # Linear layers and the head split act on the last dim, which nested jagged tensors
        # support directly; amkl.attention unpacks them.
        q = _to_heads(self.q_proj(x), self.num_heads)
        k = _to_heads(self.k_proj(kv), self.num_kv_heads)
        v = _to_heads(self.v_proj(kv), self.num_kv_heads)
        out = attention(q, k, v, cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
                        max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k, **self.options)
        return self.out_proj(out.flatten(-2))


class GDPA(Attention):
    """Multi-head GDPA: ``Attention`` with GDPA's conventions.

    Args:
        embed_dim, num_heads, num_kv_heads, kv_dim, bias, causal, device, dtype: as
            ``Attention``.
        activation: a pointwise activation (default ``"fast_gelu"``); see ``amkl.attention``.
        out_scale: GDPA's ``qk_scale``, applied after the activation (default 1.0).
        window_size: W for the symmetric window ``|i - j| <= W`` (default None: no window).

    The logit scale is 1.0 and masks are aligned top-left, as in GDPA.
    """

    def __init__(self, embed_dim: int, num_heads: int, num_kv_heads: Optional[int] = None, *,
                 kv_dim: Optional[int] = None, bias: bool = True,
                 activation: str = "fast_gelu", out_scale: float = 1.0,
                 window_size: Optional[int] = None, causal: bool = False, device=None,
                 dtype=None):
        if activation == "softmax":
            raise ValueError("amkl.nn.GDPA: activation must be pointwise; use "
                             "amkl.nn.Attention for softmax")
        window = (-1, -1) if window_size is None else (window_size, window_size)
        super().__init__(embed_dim, num_heads, num_kv_heads, kv_dim=kv_dim, bias=bias,
                         activation=activation, scale=1.0, out_scale=out_scale, causal=causal,
                         window=window, mask_align="top_left", device=device, dtype=dtype)
