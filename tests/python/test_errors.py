"""Every unsupported argument and bad input raises, with a message naming it."""

import pytest
import torch

import amkl
import helpers
from helpers import offsets, randn


def _qkv():
    return randn(1, 4, 2, 8), randn(1, 4, 2, 8), randn(1, 4, 2, 8)


@pytest.mark.parametrize("name,value", [
    ("qv", "tensor"), ("q_descale", "tensor"), ("k_descale", "tensor"), ("v_descale", "tensor"),
    ("attention_chunk", 128), ("num_splits", 2), ("sm_margin", 4)])
@pytest.mark.parametrize("varlen", [False, True])
def test_flash_attn_unsupported_arguments(name, value, varlen):
    q, k, v = _qkv()
    if value == "tensor":
        value = torch.ones(1, 2, device=helpers.DEVICE)
    if varlen:
        q, k, v = q[0], k[0], v[0]
        cu = offsets([4])
        fn = lambda: amkl.flash_attn_varlen_func(q, k, v, cu, cu, 4, 4, **{name: value})  # noqa: E731
        fname = "flash_attn_varlen_func"
    else:
        fn = lambda: amkl.flash_attn_func(q, k, v, **{name: value})  # noqa: E731
        fname = "flash_attn_func"
    with pytest.raises(NotImplementedError, match=f"amkl.{fname}: {name} is not supported"):
        fn()


@pytest.mark.parametrize("name,value", [
    ("attn_mask", "tensor"), ("attn_offset", "tensor"), ("use_start_end_offsets", True),
    ("total_num_objects", 10), ("ensemble_activation_list", [1, 2]),
    ("ts_encoding_params", "tensor"), ("ts_event_request_even_params", "tensor"),
    ("ts_event_request_log_params", "tensor"), ("ts_adjacent_event_log_params", "tensor"),
    ("pos_emb_params", "tensor"), ("ts_encoding_bucket_values", "tensor")])
def test_gdpa_unsupported_arguments(name, value):
    q = randn(4, 2, 8)
    if value == "tensor":
        value = torch.ones(4, device=helpers.DEVICE)
    with pytest.raises(NotImplementedError,
                       match=f"amkl.generalized_dot_product_attention: {name} is not supported"):
        amkl.generalized_dot_product_attention(q, q, q, offsets([4]), offsets([4]), 4, 4,
                                               **{name: value})


def test_gdpa_several_unsupported_are_all_named():
    q = randn(4, 2, 8)
    with pytest.raises(NotImplementedError, match="attn_mask, total_num_objects are not"):
        amkl.generalized_dot_product_attention(q, q, q, offsets([4]), offsets([4]), 4, 4,
                                               attn_mask=q, total_num_objects=3)


def test_gdpa_unknown_keyword_is_a_type_error():
    q = randn(4, 2, 8)
    with pytest.raises(TypeError, match="no_such_arg"):
        amkl.generalized_dot_product_attention(q, q, q, offsets([4]), offsets([4]), 4, 4,
                                               no_such_arg=1)


@pytest.mark.parametrize("kwargs,match", [
    (dict(activation="tanh"), "activation: unknown name 'tanh'"),
    (dict(activation="gelu", softcap=1.0), "softcap: applies to softmax only"),
    (dict(out_scale=2.0), "out_scale: applies to pointwise activations only"),
    (dict(window=(-2, 0)), "window: each side must be >= -1"),
    (dict(window=(1, 2, 3)), "window: expected \\(left, right\\)"),
    (dict(causal=True, window=(-1, 3)), "causal=true means window_right = 0"),
    (dict(mask_align="center"), "mask_align: expected one of"),
])
def test_bad_options_are_value_errors(kwargs, match):
    q, k, v = _qkv()
    with pytest.raises(ValueError, match=match):
        amkl.attention(q, k, v, **kwargs)


def test_bad_inputs_are_value_errors():
    q, k, v = _qkv()
    with pytest.raises(ValueError, match="k: expected dtype"):
        amkl.attention(q, k.float(), v)
    with pytest.raises(ValueError, match="k: the number of query heads"):
        amkl.attention(randn(1, 4, 3, 8), k, v)
    with pytest.raises(ValueError, match="q: expected a dense tensor"):
        amkl.attention(q[0], k, v)
    with pytest.raises(ValueError, match="q has dtype"):
        amkl.attention(q.to(torch.int8), k, v)
    with pytest.raises(ValueError, match="last"):
        amkl.attention(q.transpose(2, 3).contiguous().transpose(2, 3), k, v)
    with pytest.raises(ValueError, match="cu_seqlens_q"):
        amkl.attention(q[0], k[0], v[0], cu_seqlens_q=offsets([5]), cu_seqlens_k=offsets([4]))


def test_nested_rejects_extra_offsets_and_wrong_ragged_dim():
    nt = torch.nested.nested_tensor([randn(3, 2, 8), randn(2, 2, 8)], layout=torch.jagged)
    with pytest.raises(ValueError, match="do not also pass cu_seqlens_q"):
        amkl.attention(nt, nt, nt, cu_seqlens_q=offsets([3, 2]))
    with pytest.raises(ValueError, match="ragged dim at 1"):
        t = nt.transpose(1, 2)
        amkl.attention(t, t, t)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_gpu_backward_is_not_silently_replaced():
    """Until the GPU backward exists it must raise NotImplementedError (never fall back)."""
    q, k, v = (torch.randn(1, 64, 2, 64, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    try:
        out = amkl.attention(q, k, v)
    except NotImplementedError:
        pytest.skip("no GPU forward for this case either")
    try:
        out.sum().backward()
    except NotImplementedError as e:
        assert "amkl" in str(e)
    else:
        assert q.grad is not None  # the GPU backward exists: covered by test_gradients
