#!/usr/bin/env python3
"""Where one amkl call's time goes outside and inside its kernels: the host time per call
(calls queued without synchronizing), do_bench's median (what the benchmark reports), the GPU
time of each kernel of a call (torch.profiler), and the SM clock and power while the case
runs (nvidia-smi, sampled every 100 ms). Answers: is a row bound by the host, by the small
kernels around the attention kernel (tile list, memset), or by the attention kernel itself,
and at what clock does that kernel run (the trace's cycle counts convert to time with it).

Usage (GPU machine): PYTHONPATH=<amkl python dir> python3 bench/call_profile.py \
    --cases gdpa:256:256,gdpa:2048:2048 --out FILE.json
Cases as in bench/ab_compare.py; with AB_PROVIDER=sdpa_cudnn (softmax cases) the peer's call is
profiled instead of amkl's.
"""
import argparse
import collections
import json
import os
import sys
import time

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_compare import make_case  # noqa: E402
from gpu_clock import ClockSampler, summarize as clock_summary  # noqa: E402


def host_us_per_call(fn, calls=200):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def kernel_times(fn, calls=20):
    """Mean GPU microseconds per call of each kernel (and memset / copy) a call launches, and
    the GPU's time per call with the calls back to back (and how much of it was idle)."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    total = collections.Counter()
    count = collections.Counter()
    spans = []
    for e in prof.events():
        if e.device_type.name != "CUDA":
            continue
        total[e.name] += e.device_time
        count[e.name] += 1
        spans.append((e.time_range.start, e.time_range.end))
    kernels = {name[:120]: {"us_per_call": total[name] / calls,
                            "launches_per_call": count[name] / calls}
               for name in sorted(total, key=lambda n: -total[n])}
    # The calls ran back to back: the GPU's time per call from the first operation's start to
    # the last one's end, and how much of it no operation ran (launch gaps between a call's
    # kernels and memsets, and between calls).
    spans.sort()
    busy, reach = 0.0, spans[0][0]
    for start, end in spans:
        busy += max(0.0, end - max(start, reach))
        reach = max(reach, end)
    period = (reach - spans[0][0]) / calls
    return kernels, {"gpu_us_per_call": period, "idle_us_per_call": period - busy / calls}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--rep", type=int, default=300, help="do_bench rep (ms)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    report = {}
    for spec in args.cases.split(","):
        fn, flops = make_case(spec)
        fn()
        torch.cuda.synchronize()
        host = host_us_per_call(fn)
        smi = ClockSampler()
        time.sleep(0.3)
        ms = do_bench(fn, warmup=50, rep=args.rep, return_mode="median")
        clocks = clock_summary(smi.stop())
        kernels, timeline = kernel_times(fn)
        report[spec] = {"do_bench_us": ms * 1e3, "tflops": flops / (ms * 1e-3) / 1e12,
                        "host_us_per_call": host, "kernels": kernels, "smi": clocks, **timeline}
        print(f"{spec}: do_bench {ms * 1e3:.1f} us ({report[spec]['tflops']:.0f} TFLOP/s), "
              f"host {host:.1f} us/call, back to back {timeline['gpu_us_per_call']:.1f} us/call "
              f"of which idle {timeline['idle_us_per_call']:.1f}, clocks {clocks}")
        for name, k in kernels.items():
            print(f"    {k['us_per_call']:9.1f} us  x{k['launches_per_call']:.0f}  {name}")
        del fn
        torch.cuda.empty_cache()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
