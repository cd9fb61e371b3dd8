"""bench/ab_compare.py's round order, case shapes, CPU check and the handling of failed
workers (no GPU: workers not run, or faked)."""

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import ab_compare  # noqa: E402


def test_each_round_starts_one_further():
    cases = ["a", "b", "c"]
    assert [ab_compare.rotated(cases, r) for r in range(4)] == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]]
    assert cases == ["a", "b", "c"]  # not changed in place


def test_every_element_leads_equally_often():
    variants = [["base", "dir1"], ["new", "dir2"]]
    firsts = [ab_compare.rotated(variants, r)[0][0] for r in range(4)]
    assert firsts == ["base", "new", "base", "new"]
    assert ab_compare.rotated([], 3) == []


def test_softmax_cases_take_a_query_length():
    spec = "softmax:2:32:4096:causal:d64:kv8:q16"
    assert ab_compare.softmax_shape(spec) == (2, 32, 4096, True, 64, 8)
    assert ab_compare.softmax_query_len(spec) == 16
    assert ab_compare.softmax_query_len("softmax:2:32:4096:kv8") == 4096


def test_softmax_flops_count_the_pairs_computed():
    f = ab_compare.softmax_flops
    assert f(1, 1, 1, 3, 5, False) == 4 * 15
    assert f(2, 3, 4, 8, 8, True) == 4 * 2 * 3 * 4 * 32  # the benchmark's half of L * L
    # Bottom-right causal, 3 queries over 5 keys: rows see 3, 4 and 5 keys.
    assert f(1, 1, 1, 3, 5, True) == 4 * 12
    # More queries than keys: the first rows see none.
    assert f(1, 1, 1, 5, 3, True) == 4 * (0 + 0 + 1 + 2 + 3)


def _perturbed(out, idx):
    bad = out.clone()
    bad[idx] += 0.5 * out.abs().max()
    return bad


def test_oracle_slice_of_a_dense_case_is_the_whole_calls_part():
    # Causal, GQA (4 query heads over 2 KV heads), more queries than the slice: the slice's
    # rows are the last ones, where the bottom-right mask is the same as in the whole call, of
    # the last batch and the last KV head's query heads.
    import amkl
    import torch
    g = torch.Generator().manual_seed(7)
    q = torch.randn(2, 40, 4, 16, generator=g)
    k, v = (torch.randn(2, 50, 2, 16, generator=g) for _ in range(2))
    out = amkl.attention(q, k, v, causal=True)
    sliced = ab_compare.oracle_slices(q, k, v, rows=8)
    assert sliced[1]["q"].shape == (1, 8, 2, 16)
    assert torch.equal(sliced[1]["q"], q[1:, 32:, 2:]) and torch.equal(sliced[1]["k"], k[1:, :, 1:])
    assert ab_compare.oracle_error(out, sliced, dict(causal=True)) < 1e-5
    assert ab_compare.oracle_error(_perturbed(out, sliced[0]), sliced,
                                   dict(causal=True)) > ab_compare.ORACLE_TOL
    # a different mask is caught as well
    assert ab_compare.oracle_error(amkl.attention(q, k, v), sliced,
                                   dict(causal=True)) > ab_compare.ORACLE_TOL


def test_oracle_slice_of_jagged_cases_is_their_first_sequences():
    import amkl
    import torch
    g = torch.Generator().manual_seed(8)
    cu_q = torch.tensor([0, 5, 12, 30], dtype=torch.int32)
    q = torch.randn(30, 2, 16, generator=g)
    k, v = (torch.randn(3, 20, 2, 16, generator=g) for _ in range(2))  # dense keys
    kw = dict(activation="fast_gelu", max_seqlen_q=18)
    out = amkl.attention(q, k, v, cu_seqlens_q=cu_q, **kw)
    sliced = ab_compare.oracle_slices(q, k, v, cu_seqlens_q=cu_q, seqs=2)
    assert torch.equal(sliced[1]["q"], q[5:]) and torch.equal(sliced[1]["k"], k[1:])
    assert sliced[1]["cu_seqlens_q"].tolist() == [0, 7, 25]
    assert ab_compare.oracle_error(out, sliced, kw) < 1e-5
    assert ab_compare.oracle_error(_perturbed(out, sliced[0]), sliced, kw) > ab_compare.ORACLE_TOL
    cu_k = torch.tensor([0, 9, 20, 33], dtype=torch.int32)  # jagged keys
    kj, vj = (torch.randn(33, 2, 16, generator=g) for _ in range(2))
    kw = dict(activation="fast_gelu", max_seqlen_q=18, max_seqlen_k=13)
    out = amkl.attention(q, kj, vj, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, **kw)
    sliced = ab_compare.oracle_slices(q, kj, vj, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, seqs=2)
    assert torch.equal(sliced[1]["k"], kj[9:]) and sliced[1]["cu_seqlens_k"].tolist() == [0, 11, 24]
    assert ab_compare.oracle_error(out, sliced, kw) < 1e-5


def test_median_of_a_clock_field_over_rounds():
    rounds = [{"sm_mhz_median": 1785.0, "power_w_median": 688.0}, {},
              {"sm_mhz_median": 1740.0, "power_w_median": 697.0},
              {"sm_mhz_median": 1890.0, "power_w_median": 679.0}]
    assert ab_compare.median_of(rounds, "sm_mhz_median") == 1785.0
    assert ab_compare.median_of(rounds, "power_w_median") == 688.0
    assert ab_compare.median_of([{}, {}], "power_w_median") is None


def test_gflop_per_joule():
    assert ab_compare.gflop_per_joule(600.0, 700.0) == pytest.approx(857.142857)
    assert ab_compare.gflop_per_joule(None, 700.0) is None
    assert ab_compare.gflop_per_joule(600.0, None) is None


def test_a_failed_or_hung_variant_is_dropped_and_the_others_go_on(monkeypatch, tmp_path, capsys):
    # The workers are faked: "hung" times out, "broken" exits 1, "good" returns its cases.
    calls = []
    real_run = subprocess.run

    def fake_run(cmd, **kw):
        if cmd[0] == "nvidia-smi":
            return subprocess.CompletedProcess(cmd, 0, "a GPU\n", "")
        if "--worker" not in cmd:  # anyone else's (matplotlib's font cache, say)
            return real_run(cmd, **kw)
        name = os.path.basename(kw["env"]["PYTHONPATH"])
        calls.append(name)
        if name == "hung":
            raise subprocess.TimeoutExpired(cmd, kw["timeout"])
        if name == "broken":
            return subprocess.CompletedProcess(cmd, 1, "", "illegal memory access")
        cases = cmd[cmd.index("--cases") + 1].split(",")
        out = ("RESULT " + json.dumps({c: 100.0 + len(calls) for c in cases}) +
               "\nCLOCKS {}\nERRORS {}\n")
        return subprocess.CompletedProcess(cmd, 0, out, "")

    monkeypatch.setattr(ab_compare.subprocess, "run", fake_run)
    out_json = tmp_path / "ab.json"
    monkeypatch.setattr(sys, "argv", [
        "ab_compare.py", "--variant", f"good={tmp_path}/good", "--variant",
        f"hung={tmp_path}/hung", "--variant", f"broken={tmp_path}/broken", "--rounds", "3",
        "--cases", "softmax:1:2:128,softmax:1:2:256", "--worker-timeout", "5",
        "--out", str(out_json)])
    assert ab_compare.main() == 1  # something was dropped: not a clean run
    assert calls.count("good") == 3 and calls.count("hung") == 1 and calls.count("broken") == 1
    printed = capsys.readouterr().out
    assert "hung: DROPPED, round 1: no result within 5 s" in printed
    assert "broken: DROPPED, round 1: worker failed (exit 1)" in printed
    data = json.loads(out_json.read_text())
    assert set(data["dropped"]) == {"hung", "broken"}
    assert len(data["samples"]["good"]["softmax:1:2:128"]) == 3
    assert set(data["medians"]["softmax:1:2:128"]) == {"good"}


def test_medians_over_rounds_skip_variants_without_samples():
    samples = {"a": {"x": [3.0, 1.0, 2.0]}, "b": {"x": []}, "c": {}}
    assert ab_compare.medians_over_rounds(samples, ["a", "b", "c"], ["x"]) == {"x": {"a": 2.0}}
