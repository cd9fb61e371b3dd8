"""FlashAttention-3 (Hopper, Dao-AILab/flash-attention's hopper/) as a benchmark peer.

FA3 has no official wheel. Two builds of its Python interface are looked for, in this order:
  flash_attn_interface  the upstream hopper/ build (python setup.py install in hopper/)
  fa3_fwd_interface     the forward-only wheel `fa3-fwd` on PyPI (bf16 only, no window; built on
                        torch's stable ABI, so it loads under torch 2.11)
AMKL_FA3_PATH (a folder, e.g. an unzipped fa3-fwd wheel) is put first on sys.path. The GPU
machine has no network: carry the wheel and unzip it there (bench/NOTES.md, step 24).

Both take [B, L, H, d] tensors (amkl's dense layout) and align a causal mask bottom-right, as
amkl does; GQA through fewer KV heads. Calls run under torch.no_grad() (no autograd record).
"""
import importlib
import os
import sys

import torch

MODULES = ("flash_attn_interface", "fa3_fwd_interface")


def load():
    """The FA3 interface module; ImportError with every reason when none imports."""
    path = os.environ.get("AMKL_FA3_PATH")
    if path and path not in sys.path:
        sys.path.insert(0, path)
    reasons = []
    for name in MODULES:
        try:
            return importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - a broken build is as absent as a missing one
            reasons.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
    raise ImportError("FlashAttention-3 not found (" + "; ".join(reasons) + ")")


def _first(out):
    # Some FA3 versions return (out, lse) from flash_attn_func, others out alone.
    return out[0] if isinstance(out, tuple) else out


def dense_call(fa3, q, k, v, causal):
    """A callable running FA3's forward on dense [B, L, H, d] q and [B, L, H_kv, d] k, v."""
    def f():
        with torch.no_grad():
            return _first(fa3.flash_attn_func(q, k, v, causal=causal))
    return f


def varlen_call(fa3, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                causal=False):
    """A callable running FA3's jagged forward on packed [T, H, d] q and [T_k, H_kv, d] k, v."""
    def f():
        with torch.no_grad():
            return _first(fa3.flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k,
                                                     max_seqlen_q, max_seqlen_k, causal=causal))
    return f
