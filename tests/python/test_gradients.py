"""Backward: torch.autograd.gradcheck in float64 on the CPU for every activation and mask;
on the GPU, the bf16 gradients against the CPU float64 ones (DESIGN.md section 4 rule)."""

import pytest
import torch

import amkl
import helpers
import reference
from helpers import offsets, randn

MASKS = {
    "none": {},
    "causal": {"causal": True},
    "window": {"window": (2, 1)},
    "top_left_window": {"window": (1, 1), "mask_align": "top_left"},
}
# fast_gelu_bf16 rounds its input to bf16, so it is piecewise constant: finite differences
# see zero, while its backward (like the GDPA reference's) uses the smooth GELU derivative.
SMOOTH = [a for a in reference.ALL_ACTIVATIONS if a != "fast_gelu_bf16"]


def _grads(fn, inputs):
    out = fn(*inputs)
    grad_out = torch.randn_like(out, dtype=torch.float64).to(out.dtype)
    return torch.autograd.grad(out, inputs, grad_out), grad_out


def _check(fn, inputs):
    if not helpers.on_gpu():
        assert torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-7, rtol=1e-5)
        return
    # GPU: compare with float64 CPU gradients of the same function and cotangent, allowing
    # twice the error of the CPU backend run on bf16 inputs (fp32 accumulation) + 1e-5.
    with helpers.unsupported_on_gpu_skips():
        gpu_grads, grad_out = _grads(fn, inputs)
    ref_inputs = [x.detach().cpu().double().requires_grad_() for x in inputs]
    ref = torch.autograd.grad(fn(*ref_inputs), ref_inputs, grad_out.cpu().double())
    bf_inputs = [x.detach().cpu().requires_grad_() for x in inputs]
    emul = torch.autograd.grad(fn(*bf_inputs), bf_inputs, grad_out.cpu())
    for g, r, e in zip(gpu_grads, ref, emul):
        helpers.assert_close_to_reference(g, r, e)


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("activation", SMOOTH)
def test_dense(activation, mask):
    # GQA (4 -> 2 heads), Lq != Lk, d_v != d; small enough for finite differences. std 0.5
    # keeps |S| ~ 1: polynomial activations (gelu_taylor ~ S^6) would otherwise make outputs
    # so large that finite-difference roundoff exceeds gradcheck's tolerance.
    q = randn(2, 4, 4, 4, requires_grad=True, std=0.5)
    k = randn(2, 6, 2, 4, requires_grad=True, std=0.5)
    v = randn(2, 6, 2, 3, requires_grad=True)
    out_scale = 1.0 if activation == "softmax" else 0.7
    _check(lambda q, k, v: amkl.attention(q, k, v, activation=activation, out_scale=out_scale,
                                          **MASKS[mask]), (q, k, v))


@pytest.mark.parametrize("activation", ["softmax", "gelu", "relu_square"])
def test_jagged_seqused_q_to_kv(activation):
    lq, lk = [3, 0, 4], [5, 2]
    q = randn(sum(lq), 2, 4, requires_grad=True)
    k = randn(sum(lk), 1, 4, requires_grad=True)
    v = randn(sum(lk), 1, 4, requires_grad=True)
    kw = dict(cu_seqlens_q=offsets(lq), cu_seqlens_k=offsets(lk),
              q_to_kv=torch.tensor([1, 0, 0], dtype=torch.int32, device=helpers.DEVICE),
              seqused_k=torch.tensor([4, 2], dtype=torch.int32, device=helpers.DEVICE),
              activation=activation, causal=True)
    _check(lambda q, k, v: amkl.attention(q, k, v, **kw), (q, k, v))


def test_softcap():
    q, k, v = (randn(1, 5, 2, 4, requires_grad=True) for _ in range(3))
    _check(lambda q, k, v: amkl.attention(q, k, v, softcap=1.5, scale=0.9), (q, k, v))


def test_broadcast_q_gradient_is_reduced():
    # A stride-0 batch dim on q: its gradient is the sum over the batch (autograd's expand).
    q = randn(1, 3, 2, 4, requires_grad=True)
    k = randn(3, 5, 2, 4, requires_grad=True)
    v = randn(3, 5, 2, 4, requires_grad=True)
    _check(lambda q, k, v: amkl.attention(q.expand(3, -1, -1, -1), k, v, activation="silu"),
           (q, k, v))


def test_deterministic_backward_is_bitwise_reproducible():
    q, k, v = (randn(2, 16, 2, 8, requires_grad=True) for _ in range(3))
    fn = lambda q, k, v: amkl.attention(q, k, v, causal=True, deterministic=True)  # noqa: E731
    with helpers.unsupported_on_gpu_skips():
        torch.manual_seed(0)
        first, _ = _grads(fn, (q, k, v))
        torch.manual_seed(0)
        second, _ = _grads(fn, (q, k, v))
    for a, b in zip(first, second):
        assert torch.equal(a, b)
