"""Plain PyTorch implementation of amkl's attention math (DESIGN.md section 2), in float64,
one sequence and head at a time: the independent oracle for the Python front end's tests.
"""

import math

import torch

_SQRT_2_OVER_PI = 0.7978845608028654
_GELU_CUBIC = 0.044715
_TAYLOR = (0.3989422804014327, -0.06649038006690543, 0.00997355701003582)


def _f32(x):
    return torch.tensor(x, dtype=torch.float32).item()


def _bf16(x):
    return x.to(torch.bfloat16).to(x.dtype)


def _gelu_tanh(x, c=_SQRT_2_OVER_PI):
    return 0.5 * x * (1 + torch.tanh(c * x * (1 + _GELU_CUBIC * x * x)))


def _fast_gelu_bf16(x):
    xb = _bf16(x)
    u = _bf16(0.796875 * xb * (1 + _GELU_CUBIC * xb * xb))
    return _bf16(xb * 0.5 * (1 + _bf16(torch.tanh(u))))


ACTIVATIONS = {
    "raw": lambda x: x,
    "gelu": lambda x: 0.5 * x * (1 + torch.erf(x / math.sqrt(2))),
    "gelu_approx": _gelu_tanh,
    "fast_gelu": _gelu_tanh,
    "leaky_relu": lambda x: torch.where(x >= 0, x, 0.01 * x),
    "relu": lambda x: x.clamp(min=0),
    "fast_gelu_bf16": _fast_gelu_bf16,
    "silu": lambda x: x * torch.sigmoid(x),
    "fast_silu": lambda x: x * torch.sigmoid(x),
    "hardswish": lambda x: x * (x + 3).clamp(0, 6) / 6,
    "relu_square": lambda x: x.clamp(min=0) ** 2,
    "gelu_taylor": lambda x: 0.5 * x + x * x * (_TAYLOR[0] + x * x * (_TAYLOR[1] + x * x * _TAYLOR[2])),
}
POINTWISE = list(ACTIVATIONS)
ALL_ACTIVATIONS = POINTWISE + ["softmax"]


def _sequences(t, cu, used):
    """The per-sequence [L, H, d] slices of a dense [B, L, H, d] or jagged [T, H, d] side."""
    if cu is None:
        seqs = list(t)
    else:
        cu = cu.tolist()
        seqs = [t[cu[b]:cu[b + 1]] for b in range(len(cu) - 1)]
    if used is not None:
        seqs = [s[:n] for s, n in zip(seqs, used.tolist())]
    return seqs


def attention(q, k, v, *, activation="softmax", scale=None, out_scale=1.0, causal=False,
              window=(-1, -1), softcap=0.0, mask_align="bottom_right", cu_seqlens_q=None,
              cu_seqlens_k=None, seqused_q=None, seqused_k=None, q_to_kv=None,
              max_seqlen_q=None, max_seqlen_k=None, deterministic=False):
    """Returns (out, lse) in float64, laid out like amkl's (lse None for pointwise).
    Rows outside every query sequence are zero in out and -inf in lse. max_seqlen_* and
    deterministic are accepted for signature compatibility and do not change the math."""
    q, k, v = (t.detach().cpu().double() for t in (q, k, v))
    d, h, h_kv = q.shape[-1], q.shape[-2], k.shape[-2]
    softmax = activation == "softmax"
    if scale is None:
        scale = 1 / math.sqrt(d) if softmax else 1.0
    # amkl's kernels take these scalars in float32, also for float64 tensors.
    scale, out_scale, softcap = (_f32(x) for x in (scale, out_scale, softcap))
    qs = _sequences(q, cu_seqlens_q, seqused_q)
    ks = _sequences(k, cu_seqlens_k, seqused_k)
    vs = _sequences(v, cu_seqlens_k, seqused_k)
    kv_of = list(range(len(qs))) if q_to_kv is None else q_to_kv.tolist()
    outs, lses = [], []
    for b, qb in enumerate(qs):
        kb, vb = ks[kv_of[b]], vs[kv_of[b]]
        lq, lk = qb.shape[0], kb.shape[0]
        kb = kb.repeat_interleave(h // h_kv, dim=1)
        vb = vb.repeat_interleave(h // h_kv, dim=1)
        s = scale * torch.einsum("ihc,jhc->hij", qb, kb)
        i = torch.arange(lq).view(-1, 1)
        j = torch.arange(lk).view(1, -1)
        o = (lk - lq) if mask_align == "bottom_right" else 0
        left, right = window[0], 0 if causal else window[1]
        allowed = torch.ones(lq, lk, dtype=torch.bool)
        if left >= 0:
            allowed &= j >= i + o - left
        if right >= 0:
            allowed &= j <= i + o + right
        if softmax:
            if softcap > 0:
                s = softcap * torch.tanh(s / softcap)
            s = s.masked_fill(~allowed, -math.inf)
            lse = torch.logsumexp(s, dim=-1)  # [h, lq]
            p = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0)
            lses.append(lse)
        else:
            p = torch.where(allowed, out_scale * ACTIVATIONS[activation](s), 0.0)
        outs.append(torch.einsum("hij,jhc->ihc", p, vb))
    return _assemble(q, v, outs, lses if softmax else None, cu_seqlens_q)


def _assemble(q, v, outs, lses, cu):
    """Writes per-sequence results into amkl's out/lse layouts."""
    shape = (*q.shape[:-1], v.shape[-1])
    out = torch.zeros(shape, dtype=torch.float64)
    if cu is None:
        lse = torch.full((q.shape[0], q.shape[2], q.shape[1]), -math.inf, dtype=torch.float64)
        for b, o in enumerate(outs):
            out[b, :o.shape[0]] = o
            if lses is not None:
                lse[b, :, :o.shape[0]] = lses[b]
    else:
        lse = torch.full((q.shape[1], q.shape[0]), -math.inf, dtype=torch.float64)
        starts = cu.tolist()
        for b, o in enumerate(outs):
            out[starts[b]:starts[b] + o.shape[0]] = o
            if lses is not None:
                lse[:, starts[b]:starts[b] + o.shape[0]] = lses[b]
    return out, (lse if lses is not None else None)
