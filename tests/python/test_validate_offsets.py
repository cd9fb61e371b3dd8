"""amkl.attention(validate_offsets=False): the offsets are trusted instead of checked on the
host, which is what makes a jagged call on CUDA tensors free of host synchronization (and so
capturable in a CUDA graph). Results and gradients do not change; CUDA then needs the length
bounds."""

import pytest
import torch

import amkl
import helpers
from helpers import randn

LENS_Q, LENS_K = [5, 0, 13, 1], [7, 9, 0, 12]


def _jagged(requires_grad=False):
    d = helpers.head_dim(16)
    q = randn(sum(LENS_Q), 2, d, requires_grad=requires_grad)
    k = randn(sum(LENS_K), 2, d, requires_grad=requires_grad)
    v = randn(sum(LENS_K), 2, d, requires_grad=requires_grad)
    return q, k, v, helpers.offsets(LENS_Q), helpers.offsets(LENS_K)


@pytest.mark.parametrize("activation", ["softmax", "fast_gelu"])
def test_unvalidated_call_matches_validated(activation):
    torch.manual_seed(0)
    q, k, v, cu_q, cu_k = _jagged(requires_grad=not helpers.on_gpu())
    kw = dict(activation=activation, causal=True, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
              max_seqlen_q=max(LENS_Q), max_seqlen_k=max(LENS_K))
    with helpers.unsupported_on_gpu_skips():
        checked = amkl.attention(q, k, v, **kw)
        trusted = amkl.attention(q, k, v, validate_offsets=False, **kw)
    assert torch.equal(checked, trusted)
    if helpers.on_gpu():
        return  # the CUDA backward does not exist yet
    grads_checked = torch.autograd.grad(checked.square().sum(), (q, k, v))
    grads_trusted = torch.autograd.grad(trusted.square().sum(), (q, k, v))
    for a, b in zip(grads_checked, grads_trusted):
        assert torch.equal(a, b)


def test_unvalidated_cuda_call_needs_length_bounds():
    if not helpers.on_gpu():
        pytest.skip("the bound is required on CUDA only (pytest --device cuda)")
    q, k, v, cu_q, cu_k = _jagged()
    with pytest.raises(ValueError, match="max_seqlen_q: required for jagged CUDA inputs"):
        amkl.attention(q, k, v, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_k=12,
                       validate_offsets=False)


@pytest.mark.parametrize("activation", ["softmax", "fast_gelu"])
def test_jagged_forward_replays_in_cuda_graph(activation):
    """Replaying a captured jagged call on new inputs gives what an eager call gives, bit for
    bit (a tile's result does not depend on which CTA computed it)."""
    if not helpers.on_gpu():
        pytest.skip("CUDA graphs need the GPU (pytest --device cuda)")
    torch.manual_seed(0)
    lens_q, lens_k = [5, 0, 130, 257, 1], [64, 300, 0, 129, 200]
    cu_q, cu_k = helpers.offsets(lens_q), helpers.offsets(lens_k)
    q = torch.randn(sum(lens_q), 2, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(sum(lens_k), 2, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(sum(lens_k), 2, 128, device="cuda", dtype=torch.bfloat16)

    def run():
        return amkl.attention(q, k, v, activation=activation, causal=activation == "softmax",
                              cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_q=max(lens_q),
                              max_seqlen_k=max(lens_k), validate_offsets=False)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture, as torch.cuda.graph asks
        run()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = run()
    for t in (q, k, v):
        t.copy_(torch.randn_like(t))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(captured, run())
    assert captured[:lens_q[0]].abs().sum() > 0  # the replay computed something
