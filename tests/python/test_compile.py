"""torch.compile(fullgraph=True) traces amkl's ops (fake kernels, autograd) without graph
breaks, forward and backward, and matches eager."""

import torch

import amkl
import helpers
from helpers import randn


class TinyModel(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = amkl.nn.Attention(dim, 2, causal=True)
        self.gdpa = amkl.nn.GDPA(dim, 2, activation="gelu", window_size=2)

    def forward(self, x):
        x = x + self.attn(x)
        return x + self.gdpa(x)


def test_compile_fullgraph_forward_and_backward():
    torch.manual_seed(0)
    dim = 2 * helpers.head_dim(8)
    model = TinyModel(dim).to(device=helpers.DEVICE, dtype=helpers.dtype())
    x = randn(2, 5, dim, widen=False)
    with helpers.unsupported_on_gpu_skips():
        eager_out = model(x)
        eager_out.square().sum().backward()
    eager_grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()

    torch._dynamo.reset()
    # aot_eager traces through dynamo and AOTAutograd (fake kernels, the registered
    # backward) like inductor does, without spending minutes generating C++ on 2 cores.
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    out = compiled(x)
    out.square().sum().backward()
    tol = 1e-10 if not helpers.on_gpu() else 0.0
    assert (out - eager_out).abs().max().item() <= tol
    for p, g in zip(model.parameters(), eager_grads):
        assert (p.grad - g).abs().max().item() <= tol


def test_compile_inductor_jagged_and_combine():
    """Inductor on the raw ops with jagged offsets and the LSE."""
    torch._dynamo.reset()
    cu = helpers.offsets([3, 5])

    @torch.compile(fullgraph=True)
    def f(q, k, v):
        out, lse = amkl.attention(q, k, v, cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=5,
                                  max_seqlen_k=5, return_lse=True)
        return out * 2, lse.exp()

    q, k, v = randn(8, 2, 8), randn(8, 2, 8), randn(8, 2, 8)
    with helpers.unsupported_on_gpu_skips():
        out, lse = f(q, k, v)
        ref_out, ref_lse = amkl.attention(q, k, v, cu_seqlens_q=cu, cu_seqlens_k=cu,
                                          return_lse=True)
    assert torch.equal(out, ref_out * 2)
    assert torch.allclose(lse, ref_lse.exp())
