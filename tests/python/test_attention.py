"""amkl.attention forward against the plain PyTorch math (reference.py)."""

import pytest
import torch

import amkl
import helpers
import reference
from helpers import check_attention, offsets, randn

MASKS = {
    "none": {},
    "causal": {"causal": True},
    "window": {"window": (3, 1)},
    "causal_window": {"causal": True, "window": (2, -1)},
}


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("activation", reference.ALL_ACTIVATIONS)
def test_dense(activation, mask):
    # Lq != Lk puts the bottom-right diagonal off the main one; GQA with 4 -> 2 heads.
    q, k, v = randn(2, 9, 4, 16), randn(2, 13, 2, 16), randn(2, 13, 2, 16)
    check_attention(q, k, v, activation=activation, **MASKS[mask])


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("activation", ["softmax", "gelu", "relu"])
def test_jagged(activation, mask):
    # Ragged lengths incl. an empty and a single-row sequence; d_v != d.
    lq, lk = [5, 0, 1, 11], [7, 3, 0, 11]
    q, k, v = randn(sum(lq), 3, 8), randn(sum(lk), 1, 8), randn(sum(lk), 1, 12)
    check_attention(q, k, v, activation=activation, cu_seqlens_q=offsets(lq),
                    cu_seqlens_k=offsets(lk), max_seqlen_q=11, max_seqlen_k=11, **MASKS[mask])


@pytest.mark.parametrize("activation", ["softmax", "gelu"])
def test_windows_wider_than_any_sequence(activation):
    # A window side of 2**62 or more is unbounded. (Up to 2**63 - 1 the mask's row arithmetic
    # once overflowed int64, and rows silently lost keys: the reference, whose arithmetic
    # overflows the same way, cannot judge these, so they are compared with the plain masks.)
    q, k, v = randn(2, 9, 2, 16), randn(2, 13, 2, 16), randn(2, 13, 2, 16)
    huge = 2**63 - 1
    cases = [((-1, huge), {}), ((huge, -1), {}), ((huge, huge), {}), ((2**62, 2**62), {}),
             ((huge, 0), {"causal": True}), ((3, huge), {"window": (3, -1)})]
    for window, plain in cases:
        got = amkl.attention(q, k, v, activation=activation, window=window, return_lse=True)
        want = amkl.attention(q, k, v, activation=activation, return_lse=True, **plain)
        torch.testing.assert_close(got[0], want[0], rtol=0, atol=0, msg=str(window))
        if activation == "softmax":
            torch.testing.assert_close(got[1], want[1], rtol=0, atol=0, msg=str(window))
    # The backward resolves the window the same way.
    grads = []
    for window in [(huge, huge), (-1, -1)]:
        qg, kg, vg = (t.detach().clone().requires_grad_() for t in (q, k, v))
        with helpers.unsupported_on_gpu_skips():  # no GPU backward yet
            amkl.attention(qg, kg, vg, activation=activation, window=window).sum().backward()
        grads.append([qg.grad, kg.grad, vg.grad])
    for g_huge, g_plain in zip(*grads):
        torch.testing.assert_close(g_huge, g_plain, rtol=0, atol=0)


@pytest.mark.parametrize("activation", ["softmax", "gelu"])
def test_windows_past_the_longest_sequences(activation):
    # A side of at least max len_q + max len_k cuts no key and is unbounded. What this guards
    # is the GPU (--device cuda), whose masked path takes sides up to 2^30 only: it rejected
    # these before they were dropped. Compared with the plain masks bitwise; a side just below
    # that (which cuts nothing either, but stays a window) with the oracle.
    q, k, v = randn(2, 9, 2, 16), randn(2, 13, 2, 16), randn(2, 13, 2, 16)
    for window, plain in [((22, 22), {}), ((2**40, 2**31), {}), ((2**40, 0), {"causal": True}),
                          ((2**33, 5), {"window": (-1, 5)})]:
        got = amkl.attention(q, k, v, activation=activation, window=window)
        want = amkl.attention(q, k, v, activation=activation, **plain)
        torch.testing.assert_close(got, want, rtol=0, atol=0, msg=str(window))
    check_attention(q, k, v, activation=activation, window=(21, 21))
    # Jagged: the bounds come from the validated offsets, or from the caller's max_seqlen.
    lq, lk = [5, 0, 9], [13, 4, 7]
    qj, kj, vj = randn(sum(lq), 2, 16), randn(sum(lk), 2, 16), randn(sum(lk), 2, 16)
    jag = dict(cu_seqlens_q=offsets(lq), cu_seqlens_k=offsets(lk))
    want = amkl.attention(qj, kj, vj, activation=activation, **jag)
    for extra in [{}, {"validate_offsets": False, "max_seqlen_q": 9, "max_seqlen_k": 13}]:
        got = amkl.attention(qj, kj, vj, activation=activation, window=(2**35, 22), **jag,
                             **extra)
        torch.testing.assert_close(got, want, rtol=0, atol=0, msg=str(extra))


@pytest.mark.parametrize("activation", ["softmax", "silu"])
def test_top_left_alignment(activation):
    q, k, v = randn(2, 6, 2, 8), randn(2, 10, 2, 8), randn(2, 10, 2, 8)
    check_attention(q, k, v, activation=activation, window=(2, 2), mask_align="top_left")


def test_scales_and_softcap():
    q, k, v = randn(2, 7, 2, 8), randn(2, 7, 2, 8), randn(2, 7, 2, 8)
    check_attention(q, k, v, activation="gelu", scale=0.3, out_scale=0.5)
    check_attention(q, k, v, scale=0.7, softcap=2.0)


def test_seqused_and_q_to_kv():
    lq, lk = [4, 6, 3], [5, 8]
    q, k, v = randn(sum(lq), 2, 8), randn(sum(lk), 2, 8), randn(sum(lk), 2, 8)
    q_to_kv = torch.tensor([1, 0, 1], dtype=torch.int32, device=helpers.DEVICE)
    seqused_k = torch.tensor([5, 6], dtype=torch.int32, device=helpers.DEVICE)
    for activation in ("softmax", "gelu_approx"):
        check_attention(q, k, v, activation=activation, cu_seqlens_q=offsets(lq),
                        cu_seqlens_k=offsets(lk), q_to_kv=q_to_kv, seqused_k=seqused_k)


def test_int64_offsets_are_accepted():
    lq = [3, 4]
    q, k, v = randn(7, 2, 8), randn(7, 2, 8), randn(7, 2, 8)
    cu = offsets(lq).long()
    check_attention(q, k, v, cu_seqlens_q=cu, cu_seqlens_k=cu)


def test_strided_and_broadcast_inputs():
    # A non-contiguous q (a slice of a wider tensor) and a k/v broadcast over the batch.
    d = helpers.head_dim(16)
    wide = randn(2, 6, 2, d + 8, widen=False)
    q = wide[..., 4:4 + d]
    k = randn(1, 9, 2, d).expand(2, 9, 2, d)
    v = randn(1, 9, 2, d).expand(2, 9, 2, d)
    assert not q.is_contiguous() and k.stride(0) == 0
    check_attention(q, k, v)
    check_attention(q, k, v, activation="fast_gelu")


def test_head_major_storage():
    # q, k, v stored [B, H, L, d] (SDPA's layout) and passed as [B, L, H, d] views: a head
    # stride above the row stride. With GQA and short queries, the path that packs query
    # heads into one tile on the GPU; with long ones, the ordinary one.
    d = helpers.head_dim(16)

    def head_major(b, length, h):
        return randn(b, h, length, d).transpose(1, 2)

    for lq, lk, h, h_kv, causal in ((5, 40, 8, 2, False), (3, 7, 4, 1, True),
                                    (70, 90, 4, 4, True), (150, 150, 4, 2, False)):
        q, k, v = head_major(2, lq, h), head_major(2, lk, h_kv), head_major(2, lk, h_kv)
        assert q.stride(2) > q.stride(1)
        check_attention(q, k, v, causal=causal)
        check_attention(q, k, v, activation="fast_gelu", causal=causal)


def test_lse_only_for_softmax():
    q = randn(1, 4, 1, 8)
    out, lse = amkl.attention(q, q, q, return_lse=True)
    assert lse.shape == (1, 1, 4) and lse.dtype == torch.float32 and not lse.requires_grad
    out, lse = amkl.attention(q, q, q, activation="relu", return_lse=True)
    assert lse is None


@pytest.mark.parametrize("activation", ["softmax", "gelu"])
def test_nested_jagged(activation):
    lengths = [3, 1, 6]
    seqs = [randn(n, 2, 8) for n in lengths]
    q = torch.nested.nested_tensor(seqs, layout=torch.jagged)
    kseqs = [randn(n + 2, 2, 8) for n in lengths]
    k = torch.nested.nested_tensor(kseqs, layout=torch.jagged)
    v = torch.nested.nested_tensor([t * 2 for t in kseqs], layout=torch.jagged)
    with helpers.unsupported_on_gpu_skips():
        out = amkl.attention(q, k, v, activation=activation, causal=True)
    assert out.is_nested and out.layout == torch.jagged
    assert torch.equal(out.offsets(), q.offsets())
    # The same computation on the packed layout.
    packed = amkl.attention(q.values(), k.values(), v.values(), activation=activation,
                            causal=True, cu_seqlens_q=offsets(lengths),
                            cu_seqlens_k=offsets([n + 2 for n in lengths]))
    assert torch.equal(out.values(), packed)
    ref, _ = reference.attention(q.values(), k.values(), v.values(), activation=activation,
                                 causal=True, cu_seqlens_q=offsets(lengths, "cpu"),
                                 cu_seqlens_k=offsets([n + 2 for n in lengths], "cpu"))
    if not helpers.on_gpu():
        helpers.assert_close_to_reference(out.values(), ref)


def test_nested_jagged_gradients_flow():
    seqs = [randn(n, 2, 8) for n in (2, 5)]
    q = torch.nested.nested_tensor(seqs, layout=torch.jagged, requires_grad=True)
    with helpers.unsupported_on_gpu_skips():
        out = amkl.attention(q, q, q)
        out.values().sum().backward()
    assert q.grad is not None and q.grad.is_nested
    assert torch.isfinite(q.grad.values()).all()


def test_combine_matches_full_attention():
    q, k, v = randn(2, 5, 2, 8), randn(2, 12, 2, 8), randn(2, 12, 2, 8)
    halves = [(k[:, :7], v[:, :7]), (k[:, 7:], v[:, 7:])]
    for activation in ("softmax", "relu"):
        with helpers.unsupported_on_gpu_skips():
            full = amkl.attention(q, k, v, activation=activation, scale=0.3)
            parts = [amkl.attention(q, kh, vh, activation=activation, scale=0.3,
                                    return_lse=True) for kh, vh in halves]
            out_partial = torch.stack([o.float() for o, _ in parts])
            if activation == "softmax":
                # amkl's LSE is [B, H, L]; combine wants [S, B, L, H] like out_partial.
                lse_partial = torch.stack([lse.transpose(1, 2) for _, lse in parts])
            else:
                lse_partial = None
            out, lse = amkl.attention_combine(out_partial, lse_partial, out_dtype=q.dtype)
        tol = 2e-2 if helpers.on_gpu() else 1e-6
        assert (out.double() - full.double()).abs().max().item() <= tol
        assert (lse is None) == (activation != "softmax")
