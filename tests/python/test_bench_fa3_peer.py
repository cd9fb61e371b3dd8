"""bench/fa3_peer.py: how the FlashAttention-3 peer is found and called (no GPU, no FA3: a fake
interface module stands in for it)."""

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import fa3_peer  # noqa: E402

FAKE = '''
calls = []
def flash_attn_func(q, k, v, causal=False):
    calls.append(("dense", q.shape, k.shape, causal))
    return q * 2, "lse"
def flash_attn_varlen_func(q, k, v, cu_q, cu_k, max_q, max_k, causal=False):
    calls.append(("varlen", int(cu_q[-1]), int(cu_k[-1]), max_q, max_k, causal))
    return q + 1
'''


@pytest.fixture
def no_fa3(monkeypatch):
    for name in fa3_peer.MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys, "path", [p for p in sys.path])
    return monkeypatch


def test_a_missing_fa3_says_what_it_looked_for(no_fa3, tmp_path):
    no_fa3.setenv("AMKL_FA3_PATH", str(tmp_path))  # an empty folder
    if any(_importable(n) for n in fa3_peer.MODULES):
        pytest.skip("an FA3 build is installed here")
    with pytest.raises(ImportError) as e:
        fa3_peer.load()
    for name in fa3_peer.MODULES:
        assert name in str(e.value)


def _importable(name):
    import importlib.util
    return importlib.util.find_spec(name) is not None


def test_the_folder_named_by_the_environment_is_searched_first(no_fa3, tmp_path):
    (tmp_path / "fa3_fwd_interface.py").write_text(FAKE)
    no_fa3.setenv("AMKL_FA3_PATH", str(tmp_path))
    if _importable("flash_attn_interface"):
        pytest.skip("an upstream FA3 build is installed here and comes first")
    fa3 = fa3_peer.load()
    assert fa3.__file__ == str(tmp_path / "fa3_fwd_interface.py")
    q, k = torch.ones(2, 5, 4, 8), torch.ones(2, 7, 2, 8)
    out = fa3_peer.dense_call(fa3, q, k, k, causal=True)()
    assert torch.equal(out, q * 2)  # the output, not (out, lse)
    assert fa3.calls[-1] == ("dense", q.shape, k.shape, True)
    cu_q, cu_k = torch.tensor([0, 3, 5]), torch.tensor([0, 4, 8])
    out = fa3_peer.varlen_call(fa3, q[0], k[0], k[0], cu_q, cu_k, 3, 4)()
    assert torch.equal(out, q[0] + 1)
    assert fa3.calls[-1] == ("varlen", 5, 8, 3, 4, False)
