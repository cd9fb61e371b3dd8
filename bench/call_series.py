#!/usr/bin/env python3
"""The time of every single call in a long run, against the SM clock at that moment: whether a
spread between calls (the benchmark's 20th percentile against its median) comes from the clock
(power or thermal steps, which move every provider's calls alike and in runs) or from the call
itself (the order tiles happen to be taken in, which moves single calls at random).

Each call is timed as triton.testing.do_bench times it (256 MB zeroed before every call to flush
L2, CUDA events around the call alone). Providers alternate in chunks of --chunk-ms on the same
inputs; nvidia-smi samples the clock and power every 20 ms meanwhile, and each call is placed on
the GPU's time line through the events.

Usage (GPU machine): PYTHONPATH=<amkl python dir> python3 bench/call_series.py \
    --cases softmax:8:16:2048,gdpa:512:256 --chunks 3 --chunk-ms 1500 --out FILE.json
Cases as in bench/ab_compare.py; the peer is SDPA's cuDNN backend on the same inputs (dense
softmax on padded queries for gdpa cases, as bench/attention_fwd.py runs it).
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_compare import (GDPA_B, GDPA_D, GDPA_H, make_case, softmax_flops,  # noqa: E402
                        softmax_query_len, softmax_shape)
from attention_fwd import sdpa  # noqa: E402
from gpu_clock import ClockSampler, clock_at, summarize as clock_summary  # noqa: E402


def timed_calls(fn, ms_budget, cache):
    """Per-call ms and each call's start on the host clock (unix seconds), do_bench style."""
    ref = torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    # Calls to fill the budget, from a short estimate.
    # (After 5 warm-up calls: the first chunk of a run read a few times too long without them.)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for i in range(15):
        if i == 5:
            s.record()
        cache.zero_()
        fn()
    e.record()
    torch.cuda.synchronize()
    n = max(10, int(ms_budget / (s.elapsed_time(e) / 10)))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ref.record()
    ref.synchronize()
    t_ref = time.time()  # the host clock when ref had run (within the sync's latency)
    for i in range(n):
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    ms = [starts[i].elapsed_time(ends[i]) for i in range(n)]
    at = [t_ref + ref.elapsed_time(starts[i]) * 1e-3 for i in range(n)]
    return ms, at


def cudnn_case(spec):
    """SDPA cuDNN (bench/attention_fwd.py's call) on inputs of the case's shape (fresh random
    data; same shapes and layout)."""
    f = spec.split(":")
    if f[0] == "softmax":
        B, H, L, causal, d, h_kv = softmax_shape(spec)
        lq, lk = softmax_query_len(spec), L
        flops = softmax_flops(B, H, d, lq, lk, causal)
    elif f[0] == "gdpa":
        lq, lk = int(f[1]), int(f[2])
        B, H, d = GDPA_B, GDPA_H, GDPA_D
        causal, h_kv = False, H
        flops = None  # reported as the amkl case's (real tokens), as the benchmark does
    else:
        raise ValueError(f"no cuDNN peer for {spec}")
    q = torch.randn(B, lq, H, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    k, v = (torch.randn(B, lk, h_kv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
            for _ in range(2))
    cudnn = sdpa("cudnn")
    return (lambda: cudnn(q, k, v, causal, h_kv != H)), flops


def summary(ms, clocks_at):
    med = statistics.median(ms)
    srt = sorted(ms)
    fast = [x for x in ms if x < 0.96 * med]
    lag1 = 0.0
    if len(ms) > 2:
        m = statistics.fmean(ms)
        var = sum((x - m) ** 2 for x in ms)
        lag1 = sum((ms[i] - m) * (ms[i + 1] - m) for i in range(len(ms) - 1)) / var if var else 0.0
    busy = [c for c in clocks_at if c is not None]
    corr = None
    if len(busy) == len(ms) and len(set(busy)) > 1:
        mc, mm = statistics.fmean(busy), statistics.fmean(ms)
        cov = sum((c - mc) * (x - mm) for c, x in zip(busy, ms))
        sc = sum((c - mc) ** 2 for c in busy) ** 0.5
        sx = sum((x - mm) ** 2 for x in ms) ** 0.5
        corr = cov / (sc * sx) if sc and sx else None
    # Cycles per call (ms x the clock at the call): comparable across clocks, and so across
    # providers that run at different clocks under the power cap.
    cycles = sorted(x * c * 1e3 for x, c in zip(ms, clocks_at) if c is not None)
    return {"calls": len(ms), "median_ms": med, "p20_ms": srt[len(srt) // 5],
            "mcycles_median": cycles[len(cycles) // 2] / 1e6 if cycles else None,
            "p80_ms": srt[4 * len(srt) // 5], "min_ms": srt[0],
            "share_below_0.96_median": len(fast) / len(ms), "lag1_autocorr": lag1,
            "corr_ms_vs_clock": corr,
            "clock_mhz_median": statistics.median(busy) if busy else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--chunks", type=int, default=3, help="chunks per provider, alternating")
    ap.add_argument("--chunk-ms", type=float, default=1500.0)
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    cache = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    report = {"gpu": torch.cuda.get_device_name(), "args": vars(args), "cases": {}}
    for spec in args.cases.split(","):
        providers = {"amkl": make_case(spec)}
        if not args.no_peer:
            fn, flops = cudnn_case(spec)
            providers["sdpa_cudnn"] = (fn, flops or providers["amkl"][1])
        series = {p: {"ms": [], "at": []} for p in providers}
        smi = ClockSampler()
        time.sleep(0.2)
        for _ in range(args.chunks):
            for p, (fn, _) in providers.items():
                ms, at = timed_calls(fn, args.chunk_ms, cache)
                series[p]["ms"] += ms
                series[p]["at"] += at
        samples = smi.stop()
        case = {"flops": providers["amkl"][1], "providers": {}}
        for p in providers:
            clk = [clock_at(samples, t) for t in series[p]["at"]]
            s = summary(series[p]["ms"], clk)
            s["tflops_median"] = providers[p][1] / (s["median_ms"] * 1e-3) / 1e12
            s["tflops_p20"] = providers[p][1] / (s["p20_ms"] * 1e-3) / 1e12
            case["providers"][p] = {"summary": s, "ms": [round(x, 4) for x in series[p]["ms"]],
                                    "at": [round(x, 4) for x in series[p]["at"]],
                                    "clock_mhz": clk}
            print(f"{spec} {p}: " + ", ".join(
                f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in s.items()),
                flush=True)
        case["smi"] = [list(x) for x in samples]
        case["clock"] = clock_summary(samples)
        report["cases"][spec] = case
        del providers
        torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump(report, f)
    plot(report, os.path.splitext(args.out)[0] + ".png")


def plot(report, path):
    """Per case: every call's ms over time (one colour per provider) and the SM clock."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cases = list(report["cases"])
    fig, axes = plt.subplots(len(cases), 1, figsize=(12, 3.2 * len(cases)), squeeze=False)
    for ax, spec in zip(axes[:, 0], cases):
        c = report["cases"][spec]
        t0 = min(min(v["at"]) for v in c["providers"].values())
        for p, v in c["providers"].items():
            ax.plot([t - t0 for t in v["at"]], v["ms"], ".", ms=1.5, label=p)
        ax.set_ylabel("ms per call")
        ax.set_title(spec, fontsize=9)
        if c["smi"]:
            ax2 = ax.twinx()
            ax2.plot([s[0] - t0 for s in c["smi"]], [s[1] for s in c["smi"]], "k-", lw=0.6)
            ax2.set_ylabel("SM MHz")
        ax.legend(loc="upper left", fontsize=8, markerscale=6)
    axes[-1, 0].set_xlabel("seconds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
