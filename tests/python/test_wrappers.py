"""The drop-in APIs (FlashAttention 3, Triton GDPA) and the nn modules against the math."""

import pytest
import torch

import amkl
import helpers
import reference
from helpers import offsets, randn


def _compare(actual, expected, rel=1e-9):
    """Wrapper outputs vs reference.attention outputs (GPU: a bf16-sized tolerance, as the
    kernels' accuracy itself is covered by test_attention)."""
    actual, expected = actual.detach().cpu().double(), expected.detach().cpu().double()
    tol = (3e-2 if helpers.on_gpu() else rel) * max(1.0, expected.abs().max().item())
    assert actual.shape == expected.shape
    assert (actual - expected).abs().max().item() <= tol


# ---------------------------------------------------------------- FlashAttention 3

def test_flash_attn_func():
    q, k, v = randn(2, 7, 4, 16), randn(2, 9, 2, 16), randn(2, 9, 2, 16)
    with helpers.unsupported_on_gpu_skips():
        out = amkl.flash_attn_func(q, k, v, softmax_scale=0.2, causal=True, window_size=(4, -1))
        out2, lse = amkl.flash_attn_func(q, k, v, softcap=3.0, return_attn_probs=True,
                                         pack_gqa=True)
    _compare(out, reference.attention(q, k, v, scale=0.2, causal=True, window=(4, -1))[0])
    ref_out, ref_lse = reference.attention(q, k, v, softcap=3.0)
    _compare(out2, ref_out)
    _compare(lse, ref_lse, rel=1e-6)  # float32
    assert lse.shape == (2, 4, 7)


def test_flash_attn_varlen_func():
    lq, lk = [3, 8], [6, 8]
    q, k, v = randn(11, 2, 16), randn(14, 2, 16), randn(14, 2, 16)
    cu_q, cu_k = offsets(lq), offsets(lk)
    seqused_k = torch.tensor([4, 8], dtype=torch.int32, device=helpers.DEVICE)
    with helpers.unsupported_on_gpu_skips():
        out, lse = amkl.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 8, 8, seqused_k=seqused_k,
                                               causal=True, return_attn_probs=True)
    ref_out, ref_lse = reference.attention(q, k, v, causal=True, cu_seqlens_q=cu_q.cpu(),
                                           cu_seqlens_k=cu_k.cpu(), seqused_k=seqused_k.cpu())
    _compare(out, ref_out)
    _compare(lse, ref_lse, rel=1e-6)  # float32
    assert lse.shape == (2, 11)


# ---------------------------------------------------------------- Triton GDPA

def _gdpa_ref(q, k, v, lq, lk, activation, qk_scale=1.0, window=None, q_to_kv=None):
    window = (-1, -1) if window is None else (window, window)
    return reference.attention(q, k, v, activation=activation, scale=1.0, out_scale=qk_scale,
                               window=window, mask_align="top_left",
                               cu_seqlens_q=offsets(lq, "cpu"), cu_seqlens_k=offsets(lk, "cpu"),
                               q_to_kv=q_to_kv)[0]


@pytest.mark.parametrize("activation", ["raw", "fast_gelu", "fast_gelu_taylor_approx", "relu"])
def test_gdpa(activation):
    lq, lk = [4, 7, 1], [9, 3, 5]
    q, k, v = randn(12, 4, 16), randn(17, 2, 16), randn(17, 2, 16)
    with helpers.unsupported_on_gpu_skips():
        out = amkl.generalized_dot_product_attention(
            q, k, v, offsets(lq), offsets(lk), 7, 9, qk_scale=0.25, window_size=2,
            activation=activation, enable_tma=True, seq_index=None)
    ref_act = "gelu_taylor" if activation == "fast_gelu_taylor_approx" else activation
    _compare(out, _gdpa_ref(q, k, v, lq, lk, ref_act, qk_scale=0.25, window=2))


def test_gdpa_fused_qkv_and_kv():
    lens = [5, 3]
    qkv = randn(8, 2, 3 * helpers.head_dim(16), widen=False)
    q, k, v = qkv.chunk(3, dim=-1)
    with helpers.unsupported_on_gpu_skips():
        fused = amkl.generalized_dot_product_attention(qkv, None, None, offsets(lens), None, 5, 5,
                                                       activation="gelu")
        kv = torch.cat([k, v], dim=-1)
        fused_kv = amkl.generalized_dot_product_attention(q, kv, None, offsets(lens),
                                                          offsets(lens), 5, 5, activation="gelu")
    ref = _gdpa_ref(q, k, v, lens, lens, "gelu")
    _compare(fused, ref)
    _compare(fused_kv, ref)


def test_gdpa_ad_to_request():
    lq, lk = [2, 3, 4], [6, 5]
    q, k, v = randn(9, 2, 16), randn(11, 2, 16), randn(11, 2, 16)
    ad_to_request = torch.tensor([1, 1, 0], dtype=torch.int32, device=helpers.DEVICE)
    with helpers.unsupported_on_gpu_skips():
        out = amkl.generalized_dot_product_attention(q, k, v, offsets(lq), offsets(lk), 4, 6,
                                                     ad_to_request_offset=ad_to_request,
                                                     activation="silu")
    _compare(out, _gdpa_ref(q, k, v, lq, lk, "silu", q_to_kv=ad_to_request.cpu()))


def test_gdpa_broadcast_q_and_output_offset():
    t_q, lk = 4, [5, 2, 6]
    q, k, v = randn(t_q, 2, 16), randn(13, 2, 16), randn(13, 2, 16)
    with helpers.unsupported_on_gpu_skips():
        out = amkl.generalized_dot_product_attention(q, k, v, offsets([t_q]), offsets(lk),
                                                     t_q, 6, broadcast_q=True, activation="gelu")
        # The same output with the sequences stored in reverse order.
        rev = torch.tensor([2 * t_q, t_q, 0, 3 * t_q], dtype=torch.int32, device=helpers.DEVICE)
        placed = amkl.generalized_dot_product_attention(
            q, k, v, offsets([t_q]), offsets(lk), t_q, 6, broadcast_q=True, activation="gelu",
            output_offset=rev)
    assert out.shape == (3 * t_q, 2, helpers.head_dim(16))
    q3 = q.repeat(3, 1, 1)
    ref = _gdpa_ref(q3, k, v, [t_q] * 3, lk, "gelu")
    _compare(out, ref)
    _compare(placed, ref.unflatten(0, (3, t_q)).flip(0).flatten(0, 1))


def test_gdpa_output_offset_jagged():
    lq, lk = [2, 3], [4, 4]
    q, k, v = randn(5, 1, 8), randn(8, 1, 8), randn(8, 1, 8)
    out_off = torch.tensor([3, 0, 5], dtype=torch.int32, device=helpers.DEVICE)
    with helpers.unsupported_on_gpu_skips():
        out = amkl.generalized_dot_product_attention(q, k, v, offsets(lq), offsets(lk), 3, 4,
                                                     output_offset=out_off)
    ref = _gdpa_ref(q, k, v, lq, lk, "raw")
    _compare(out, torch.cat([ref[2:5], ref[0:2]]))


# ---------------------------------------------------------------- nn modules

def test_attention_module_dense_jagged_nested():
    torch.manual_seed(0)
    dim = 4 * helpers.head_dim(8)
    module = amkl.nn.Attention(dim, 4, 2, causal=True).to(device=helpers.DEVICE, dtype=helpers.dtype())
    x = randn(2, 6, dim, widen=False)
    with helpers.unsupported_on_gpu_skips():
        dense = module(x)
        packed = module(x.flatten(0, 1), cu_seqlens_q=offsets([6, 6]), max_seqlen_q=6)
        nested = module(torch.nested.nested_tensor(list(x), layout=torch.jagged))
    assert dense.shape == (2, 6, dim)
    _compare(packed, dense.flatten(0, 1))
    _compare(nested.values(), dense.flatten(0, 1))


def test_gdpa_module_cross_attention_matches_math():
    torch.manual_seed(0)
    d = helpers.head_dim(8)
    module = amkl.nn.GDPA(2 * d, 2, kv_dim=8, activation="gelu", out_scale=0.5, window_size=3,
                          bias=False).to(device=helpers.DEVICE, dtype=helpers.dtype())
    x, ctx = randn(3, 5, 2 * d, widen=False), randn(3, 7, 8, widen=False)
    with helpers.unsupported_on_gpu_skips():
        out = module(x, ctx)
    q = module.q_proj(x).unflatten(-1, (2, d))
    k = module.k_proj(ctx).unflatten(-1, (2, d))
    v = module.v_proj(ctx).unflatten(-1, (2, d))
    attn, _ = reference.attention(q, k, v, activation="gelu", scale=1.0, out_scale=0.5,
                                  window=(3, 3), mask_align="top_left")
    expected = module.out_proj(attn.to(device=helpers.DEVICE, dtype=helpers.dtype()).flatten(-2))
    _compare(out, expected)
    with pytest.raises(ValueError, match="activation must be pointwise"):
        amkl.nn.GDPA(16, 2, activation="softmax")
