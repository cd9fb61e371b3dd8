"""bench/attention_fwd.py: how a provider is measured (no GPU: bench() is replaced by a fake)."""

import os
import sys
import types

import pytest

pytest.importorskip("triton")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import attention_fwd  # noqa: E402


@pytest.fixture
def fake_bench(monkeypatch):
    calls = []

    def bench(fn, warmup, rep, sustain_ms):
        calls.append(sustain_ms)
        return {"ms": 2.0 if len(calls) == 1 else 1.0, "clock": None}
    monkeypatch.setattr(attention_fwd, "bench", bench)
    monkeypatch.setattr(attention_fwd.torch.cuda, "empty_cache", lambda: None)
    return calls


ARGS = types.SimpleNamespace(warmup=1, rep=1, sustain_ms=1000, first_sustain_ms=15000)


def test_the_runs_first_measurement_is_taken_twice(fake_bench):
    row = {"providers": {}}
    attention_fwd.run_provider([], row, "amkl", lambda: None, 1e12, ARGS)
    r = row["providers"]["amkl"]
    assert fake_bench == [15000, 1000]  # the long sustain, then an ordinary measurement
    assert r["ms"] == 1.0 and r["first_pass"]["ms"] == 2.0  # the second is the one reported
    assert r["tflops"] == pytest.approx(1000.0)


def test_later_measurements_are_taken_once(fake_bench):
    row = {"providers": {"amkl": {}}}
    attention_fwd.run_provider([], row, "sdpa_cudnn", lambda: None, 1e12, ARGS)
    attention_fwd.run_provider([row], {"providers": {}}, "amkl", lambda: None, 1e12, ARGS)
    assert fake_bench == [1000, 1000]
    assert "first_pass" not in row["providers"]["sdpa_cudnn"]


def test_short_runs_do_not_repeat_the_first(fake_bench):
    short = types.SimpleNamespace(warmup=1, rep=1, sustain_ms=0, first_sustain_ms=0)
    row = {"providers": {}}
    attention_fwd.run_provider([], row, "amkl", lambda: None, 1e12, short)
    assert fake_bench == [0]


def test_results_are_named_after_the_gpu_they_ran_on():
    assert attention_fwd.gpu_tag("NVIDIA H100 80GB HBM3") == "h100"
    assert attention_fwd.gpu_tag("NVIDIA H200") == "h200"
    assert attention_fwd.gpu_tag("NVIDIA GeForce RTX 4090") == "nvidia_geforce_rtx_4090"
