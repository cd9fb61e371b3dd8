"""Shared pieces of the Python tests: the device under test, inputs, the accuracy rule."""

import contextlib

import pytest
import torch

import amkl
import reference

DEVICE = "cpu"  # set by conftest.py from --device / AMKL_TEST_DEVICE


def on_gpu() -> bool:
    return DEVICE == "cuda"


def dtype() -> torch.dtype:
    """float64 on the CPU (exact comparisons, gradcheck); bfloat16 on the GPU."""
    return torch.bfloat16 if on_gpu() else torch.float64


# The smallest head dim the Hopper kernels are built for. The tests are written with tiny
# head dims (fast on the CPU, float64 gradcheck); on the GPU, randn widens a head dim below
# it to it, so the same tests run real kernels instead of skipping as "not built".
GPU_MIN_HEAD_DIM = 64


def head_dim(d: int) -> int:
    """A test's head dim d on the CPU; at least GPU_MIN_HEAD_DIM on the GPU."""
    return max(d, GPU_MIN_HEAD_DIM) if on_gpu() else d


def randn(*shape, requires_grad=False, dtype_=None, std=1.0, widen=True):
    """Random float64 values cast to the test dtype on the test device. With widen (the
    default) the last dim is a head dim: see GPU_MIN_HEAD_DIM; pass widen=False for other
    tensors (module inputs, pre-sliced storage)."""
    if widen and on_gpu() and len(shape) >= 3 and shape[-1] < GPU_MIN_HEAD_DIM:
        shape = (*shape[:-1], GPU_MIN_HEAD_DIM)
    t = (std * torch.randn(*shape, dtype=torch.float64)).to(device=DEVICE, dtype=dtype_ or dtype())
    return t.requires_grad_(requires_grad)


def offsets(lengths, device=None):
    """int32 cumulative offsets [B+1] of the given lengths."""
    cu = [0]
    for n in lengths:
        cu.append(cu[-1] + n)
    return torch.tensor(cu, dtype=torch.int32, device=device or DEVICE)


@contextlib.contextmanager
def unsupported_on_gpu_skips():
    """On the GPU, amkl's NotImplementedError (a documented 'not implemented on this GPU
    yet') skips the test, with amkl's message; on the CPU everything must be implemented,
    so it fails the test as any other error does."""
    try:
        yield
    except NotImplementedError as e:
        if on_gpu():
            pytest.skip(f"not implemented on the GPU yet: {e}")
        raise


def assert_close_to_reference(actual, ref64, emulated=None, rel=1e-9):
    """CPU (float64): within `rel` (relative to max|ref64|) of the float64 reference. GPU: DESIGN.md section 4,
    |gpu - ref64| <= 2 * |emul - ref64| + 1e-5 in max norm, where `emulated` is the CPU
    backend's result with the kernel's roundings."""
    actual = actual.detach().cpu().double()
    ref64 = ref64.detach().cpu().double()
    assert actual.shape == ref64.shape
    err = (actual - ref64).abs().max().item() if actual.numel() else 0.0
    if emulated is None:
        bound = rel * max(1.0, ref64.abs().max().item() if ref64.numel() else 1.0)
    else:
        emul_err = (emulated.detach().cpu().double() - ref64).abs().max().item()
        bound = 2 * emul_err + 1e-5
    assert err <= bound, f"max error {err:.3g} exceeds {bound:.3g}"


def emulated_forward(q, k, v, **kw):
    """amkl's CPU backend on bf16 copies of the inputs with bf16 rounding emulation (the
    error a correct bf16 GPU kernel is allowed), as float64 (out, lse)."""
    from amkl._ops import attention_forward
    # The raw op takes int32 index tensors (amkl.attention converts int64 ones before it).
    cpu = {key: (val.cpu().int() if val.dtype == torch.int64 else val.cpu())
           if isinstance(val, torch.Tensor) else val for key, val in kw.items()}
    out, lse = attention_forward(q.detach().cpu(), k.detach().cpu(), v.detach().cpu(),
                                 emulate=1, **cpu)
    return out.double(), lse.double()


def op_options(**overrides):
    """The full keyword set of amkl._ops.attention_forward with amkl.attention's defaults."""
    opts = dict(cu_seqlens_q=None, cu_seqlens_k=None, seqused_q=None, seqused_k=None,
                q_to_kv=None, max_seqlen_q=None, max_seqlen_k=None, activation="softmax",
                scale=None, out_scale=1.0, causal=False, window=(-1, -1), mask_align=0,
                softcap=0.0, deterministic=False)
    opts.update(overrides)
    return opts


def check_attention(q, k, v, **kw):
    """Runs amkl.attention(q, k, v, **kw) with return_lse and compares out (and lse) with the
    reference on the current device's accuracy rule. Returns amkl's out."""
    with unsupported_on_gpu_skips():
        result = amkl.attention(q, k, v, return_lse=True, **kw)
    out, lse = result
    ref_out, ref_lse = reference.attention(q, k, v, **kw)
    emul_out = emul_lse = None
    if on_gpu():
        align = {"bottom_right": 0, "top_left": 1}[kw.pop("mask_align", "bottom_right")]
        kw.pop("return_lse", None)
        emul_out, emul_lse = emulated_forward(q, k, v, **op_options(mask_align=align, **kw))
    assert out.dtype == q.dtype and out.device == q.device
    assert_close_to_reference(out, ref_out, emul_out)
    if ref_lse is None:
        assert lse is None
    else:
        finite = torch.isfinite(ref_lse)
        assert torch.equal(torch.isfinite(lse.cpu()), finite), "lse: -inf rows differ"
        # The LSE is float32 on every backend.
        assert_close_to_reference(lse.cpu()[finite], ref_lse[finite],
                                  None if emul_lse is None else emul_lse[finite], rel=1e-6)
    return out
