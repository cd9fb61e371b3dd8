"""Drop-in for the Triton ``generalized_dot_product_attention`` (Meta's GDPA; see
shared/specs/gdpa.md section 3.2): same arguments and defaults, computed by ``amkl.attention``.

Mapping onto amkl: ``qk_scale`` is amkl's ``out_scale`` (applied after the activation) with a
logit scale of 1.0; ``window_size=W`` is the window ``(W, W)`` aligned top-left (``|i - j| <= W``
on in-sequence indices); ``ad_to_request_offset`` is ``q_to_kv``; ``broadcast_q`` is a dense q
with batch stride 0.

Performance switches that do not change results are accepted and have no effect (amkl
schedules its own kernels): ``allow_tf32``, ``enable_persistent``, ``enable_tma``,
``enable_ws``, ``use_dq_atomic_add``, ``bwd_opt_tech`` and ``seq_index`` (a permutation of the
batch). Everything else amkl does not implement raises NotImplementedError naming it.
"""

from typing import List, Optional

import torch

from ._unsupported import reject
from .attention import attention

_ENCODINGS = ("ts_encoding_params", "ts_event_request_even_params",
              "ts_event_request_log_params", "ts_adjacent_event_log_params", "pos_emb_params")


def _split_fused(query, key, value):
    """q, k, v from the fused layouts: qkv ``[T, H, 3D]`` or kv ``[T_k, H_kv, 2D]``."""
    if key is None and value is None:
        if query.shape[-1] % 3:
            raise ValueError(f"amkl.generalized_dot_product_attention: fused qkv (key=value="
                             f"None) needs query [T, H, 3D], got shape {tuple(query.shape)}")
        return query.chunk(3, dim=-1)
    if key is None:
        raise ValueError("amkl.generalized_dot_product_attention: key is None but value is "
                         "given; pass key=value=None (fused qkv) or value=None (fused kv)")
    if value is None:
        if key.shape[-1] % 2:
            raise ValueError(f"amkl.generalized_dot_product_attention: fused kv (value=None) "
                             f"needs key [T_k, H_kv, 2D], got shape {tuple(key.shape)}")
        k, v = key.chunk(2, dim=-1)
        return query, k, v
    return query, key, value


def _place_rows(out, query_offset, output_offset, broadcast_len):
    """Moves each query sequence's output rows to start at ``output_offset[b]``.

    ``out`` is ``[N, H, D]`` with sequence b at rows ``query_offset[b]:query_offset[b+1]``,
    or, with ``broadcast_len`` = Lq, at rows ``b*Lq : b*Lq + Lq``. The result has N rows too;
    rows no sequence maps to are zero. Index arithmetic only: no host synchronization.
    """
    n = out.shape[0]
    rows = torch.arange(n, device=out.device)
    offsets = output_offset.to(device=out.device, dtype=torch.int64)
    if broadcast_len is not None:
        seq, row_in_seq = rows // broadcast_len, rows % broadcast_len
        valid = seq < offsets.shape[0]
    else:
        starts = query_offset.to(device=out.device, dtype=torch.int64)
        seq = torch.searchsorted(starts[1:], rows, right=True)
        valid = (rows >= starts[0]) & (rows < starts[-1])
        row_in_seq = rows - starts[seq.clamp(max=starts.shape[0] - 1)]
    dest = torch.where(valid, offsets[seq.clamp(max=offsets.shape[0] - 1)] + row_in_seq, n)
    placed = out.new_zeros((n + 1, *out.shape[1:]))  # row n catches the unmapped rows
    return placed.index_copy(0, dest, out)[:n]


def generalized_dot_product_attention(
    query: torch.Tensor,
    key: Optional[torch.Tensor],
    value: Optional[torch.Tensor],
    query_offset: torch.Tensor,
    key_offset: Optional[torch.Tensor],
    max_seq_len_q: int,
    max_seq_len_kv: int,
    ad_to_request_offset: Optional[torch.Tensor] = None,
    attn_mask: Optional[torch.Tensor] = None,
    attn_offset: Optional[torch.Tensor] = None,
    is_causal: bool = False,
    qk_scale: Optional[float] = None,
    seq_index: Optional[torch.Tensor] = None,
    allow_tf32: bool = True,
    output_offset: Optional[torch.Tensor] = None,
    use_start_end_offsets: bool = False,
    window_size: Optional[int] = None,
    broadcast_q: bool = False,
    activation: str = "raw",
    enable_persistent: bool = False,
    enable_tma: bool = False,
    enable_ws: bool = False,
    use_dq_atomic_add: bool = False,
    total_num_objects: Optional[int] = None,
    ts_encoding_params=None,
    ts_event_request_even_params=None,
    ts_event_request_log_params=None,
    ts_adjacent_event_log_params=None,
    pos_emb_params=None,
    bwd_opt_tech: str = "base",
    ensemble_activation_list: Optional[List[int]] = None,
    **bucket_values,
) -> torch.Tensor:
    """GDPA on jagged batches: ``out = qk_scale * f(Q K^T) V`` per sequence, no normalization.

    Args:
        query: ``[T_q, H, D]`` jagged by ``query_offset``; with ``key=value=None`` the fused
            ``[T_q, H, 3D]`` (q, k, v side by side in the last dim).
        key: ``[T_k, H_kv, D]`` jagged by ``key_offset``; with ``value=None`` the fused
            ``[T_k, H_kv, 2D]`` (k, v side by side). ``H % H_kv == 0``.
        value: ``[T_k, H_kv, D]``.
        query_offset, key_offset: int32/int64 ``[B+1]`` cumulative offsets. ``key_offset``
            None (fused qkv) means ``query_offset``.
        max_seq_len_q, max_seq_len_kv: upper bounds of the sequence lengths. Unlike Triton,
            which silently leaves rows beyond ``max_seq_len_q`` unwritten, a longer sequence
            is an error.
        ad_to_request_offset: int ``[B_q]``: query sequence b attends KV sequence
            ``ad_to_request_offset[b]``.
        is_causal: Triton rejects it; here causal aligned top-left (key j <= query i).
        qk_scale: multiplies ``f(S)`` (post-activation); None = 1.0.
        output_offset: int ``[B+1]``: output sequence b starts at row ``output_offset[b]``
            (default: where its queries start; ``b * T_q`` with ``broadcast_q``).
        window_size: W: keys with ``|i - j| <= W`` (in-sequence indices); None = all.
        broadcast_q: ``query`` ``[T_q, H, D]`` is one query sequence
            (``query_offset = [0, T_q]``) shared by all ``B = len(key_offset) - 1`` KV
            sequences; the output is ``[B * T_q, H, D]``.
        activation: ``"raw"`` (default), ``gelu``, ``gelu_approx``, ``fast_gelu``,
            ``leaky_relu``, ``relu``, ``fast_gelu_bf16``, ``silu``, ``fast_silu``,
            ``hardswish``, ``relu_square``, ``fast_gelu_taylor_approx``.
        attn_mask, attn_offset, use_start_end_offsets, total_num_objects, the ts_*/pos_emb
            encodings and their ``*_bucket_values``, ensemble_activation_list: not supported
            (raise unless left at their defaults).

    Returns:
        ``out`` ``[T_q, H, D]`` (``[B * T_q, H, D]`` with ``broadcast_q``), query's dtype.
    """
    unknown = [name for name in bucket_values if not name.endswith("_bucket_values")]
    if unknown:
        raise TypeError(f"generalized_dot_product_attention() got unexpected keyword "
                        f"arguments {unknown}")
    encodings = dict(zip(_ENCODINGS, (ts_encoding_params, ts_event_request_even_params,
                                      ts_event_request_log_params, ts_adjacent_event_log_params,
                                      pos_emb_params)))
    reject("generalized_dot_product_attention",
           attn_mask=attn_mask is not None, attn_offset=attn_offset is not None,
           use_start_end_offsets=bool(use_start_end_offsets),
           total_num_objects=total_num_objects is not None,
           ensemble_activation_list=ensemble_activation_list is not None,
           **{name: value is not None for name, value in {**encodings, **bucket_values}.items()})

    q, k, v = _split_fused(query, key, value)
    if key_offset is None:
        key_offset = query_offset
    window = (-1, -1) if window_size is None else (int(window_size), int(window_size))
    common = dict(activation=activation, scale=1.0, out_scale=1.0 if qk_scale is None else qk_scale,
                  causal=is_causal, window=window, mask_align="top_left",
                  cu_seqlens_k=key_offset, max_seqlen_k=max_seq_len_kv,
                  q_to_kv=ad_to_request_offset)
    if broadcast_q:
        batch, t_q = key_offset.shape[0] - 1, q.shape[0]
        # One dense query sequence seen by every batch entry through a zero batch stride.
        used = (query_offset[1:2] - query_offset[0:1]).to(torch.int32).repeat(batch)
        out = attention(q.unsqueeze(0).expand(batch, *q.shape), k, v, seqused_q=used,
                        max_seqlen_q=max_seq_len_q, **common)
        out = out.reshape(batch * t_q, *out.shape[2:])
    else:
        t_q = None
        out = attention(q, k, v, cu_seqlens_q=query_offset, max_seqlen_q=max_seq_len_q, **common)
    if output_offset is not None:
        out = _place_rows(out, query_offset, output_offset, t_q)
    return out
