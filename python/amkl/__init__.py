"""amkl: attention kernels (softmax and GDPA) for PyTorch, on CPU and Hopper GPUs.

Functions:
    attention                          the one op: softmax or pointwise activation, dense,
                                       packed jagged or nested jagged inputs; differentiable
    flash_attn_func, flash_attn_varlen_func   FlashAttention-3 drop-ins
    generalized_dot_product_attention  Triton GDPA drop-in
    attention_combine                  merge split-KV partial results
    nn.Attention, nn.GDPA              modules

Errors: ValueError for bad arguments, NotImplementedError (a RuntimeError) for valid
requests amkl cannot run (on this GPU or build), RuntimeError for device failures.
"""

from . import _ops  # noqa: F401  (registers fake kernels and autograd for the ops)
from . import nn
from ._library import ops as _lib_ops
from .attention import attention
from .combine import attention_combine
from .flash_attn import flash_attn_func, flash_attn_varlen_func
from .gdpa import generalized_dot_product_attention

__version__ = _lib_ops.version()


def built_with_cuda() -> bool:
    """True when this build of amkl contains the CUDA (Hopper) kernels."""
    return _lib_ops.built_with_cuda()


def gpu_supported(index: int = 0) -> bool:
    """True when CUDA device ``index`` is a GPU amkl's kernels target (Hopper, sm_90)."""
    return _lib_ops.gpu_supported(index)


def gpu_description(index: int = 0) -> str:
    """A one-line description of CUDA device ``index``, or why there is none."""
    return _lib_ops.gpu_description(index)


__all__ = [
    "attention", "attention_combine", "flash_attn_func", "flash_attn_varlen_func",
    "generalized_dot_product_attention", "nn", "built_with_cuda", "gpu_supported",
    "gpu_description", "__version__",
]
