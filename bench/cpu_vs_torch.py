#!/usr/bin/env python3
"""amkl's CPU attention forward vs PyTorch's CPU scaled_dot_product_attention.

Runs build*/bench/cpu_attention_bench (our forward, dense [B, L, H, d] inputs) and torch SDPA
([B, H, L, d] inputs, its native layout) on the same shapes, dtypes and thread count, then
writes bench/results/cpu_attention_vs_torch.json (machine, versions, command, raw samples,
medians, ratios) and bench/results/cpu_attention_vs_torch.png.

  .venv/bin/python bench/cpu_vs_torch.py [--bench PATH] [--threads 2] [--min-time 3] [--rounds 3]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]

# (B, H, L, d, causal, dtype)
CASES = [
    (1, 8, 2048, 128, False, "float32"),
    (1, 8, 2048, 128, True, "float32"),
    (4, 8, 1024, 64, False, "float32"),
    (4, 8, 1024, 64, True, "float32"),
    (1, 8, 2048, 128, False, "bfloat16"),
    (1, 8, 2048, 128, True, "bfloat16"),
    (4, 8, 1024, 64, False, "bfloat16"),
    (4, 8, 1024, 64, True, "bfloat16"),
    (1, 1, 32768, 128, False, "float32"),
]


def flops(b, h, l, d, causal):
    return 4.0 * b * h * l * l * d * (0.5 if causal else 1.0)


def time_torch(b, h, l, d, causal, dtype, min_time, min_reps):
    dt = getattr(torch, dtype)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(b, h, l, d, generator=g).to(dt) for _ in range(3))
    with torch.no_grad():
        F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # warm-up
        samples = []
        while len(samples) < min_reps or sum(samples) < min_time:
            t0 = time.perf_counter()
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            samples.append(time.perf_counter() - t0)
    return samples


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def find_bench():
    for build in sorted(ROOT.glob("build*")):
        p = build / "bench" / "cpu_attention_bench"
        if p.exists():
            return p
    return None


def plot(result, path):
    """Bar chart of GFLOP/s per case, amkl next to torch, with the speed ratio on top."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = result["cases"]
    threads = result["machine"]["threads"]
    names = [r["name"].replace("_fwd", "") for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(12, 5))
    ax.bar([i - 0.2 for i in x], [r["amkl"]["gflops"] for r in rows], 0.4, label="amkl CPU")
    ax.bar([i + 0.2 for i in x], [r["torch_sdpa"]["gflops"] for r in rows], 0.4, label="torch SDPA (CPU)")
    for i, r in enumerate(rows):
        ax.text(i, max(r["amkl"]["gflops"], r["torch_sdpa"]["gflops"]) * 1.02,
                f"{r['speed_ratio_amkl_over_torch']:.2f}x", ha="center", fontsize=8)
    ax.set_xticks(list(x))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("GFLOP/s (median)")
    ax.set_title(f"CPU attention forward, {threads} threads, {result['machine']['cpu']}")
    ax.set_ylim(0, 1.15 * max(max(r["amkl"]["gflops"], r["torch_sdpa"]["gflops"]) for r in rows))
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, default=find_bench())
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--min-time", type=float, default=3.0, help="seconds per case and side")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per case")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "cpu_attention_vs_torch")
    ap.add_argument("--plot-only", action="store_true", help="redraw the PNG from the JSON")
    args = ap.parse_args()
    if args.plot_only:
        plot(json.loads(args.out.with_suffix(".json").read_text()), args.out.with_suffix(".png"))
        return
    if args.bench is None or not args.bench.exists():
        sys.exit("cpu_attention_bench not found: build it (cmake --build build --target cpu_attention_bench)")
    torch.set_num_threads(args.threads)

    rows = []
    for (b, h, l, d, causal, dtype) in CASES:
        # The two run in alternating rounds, so that load from other processes on a shared
        # machine hits both alike.
        cmd = [str(args.bench), "--case", f"{b},{h},{l},{d},{int(causal)},{dtype}",
               "--threads", str(args.threads), "--min-time", str(args.min_time / args.rounds),
               "--min-reps", "1"]
        ours, theirs, name = [], [], None
        for _ in range(args.rounds):
            out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            ours += out["cases"][0]["samples_s"]
            name = out["cases"][0]["name"]
            theirs += time_torch(b, h, l, d, causal, dtype, args.min_time / args.rounds, 1)
        o_med, t_med = statistics.median(ours), statistics.median(theirs)
        f = flops(b, h, l, d, causal)
        row = {
            "name": name, "B": b, "H": h, "L": l, "d": d, "causal": causal, "dtype": dtype,
            "amkl": {"median_s": o_med, "gflops": f / o_med * 1e-9, "samples_s": ours},
            "torch_sdpa": {"median_s": t_med, "gflops": f / t_med * 1e-9, "samples_s": theirs},
        }
        row["speed_ratio_amkl_over_torch"] = t_med / o_med
        rows.append(row)
        print(f"{row['name']:40s} amkl {row['amkl']['gflops']:7.1f} GF/s   torch "
              f"{row['torch_sdpa']['gflops']:7.1f} GF/s   ratio {row['speed_ratio_amkl_over_torch']:.2f}",
              flush=True)

    result = {
        "benchmark": "CPU attention forward: amkl vs torch.nn.functional.scaled_dot_product_attention",
        "flops": "4 * B * H * L^2 * d, halved for causal",
        "command": " ".join([Path(sys.executable).name, "bench/cpu_vs_torch.py"] + sys.argv[1:]),
        "machine": {"cpu": cpu_model(), "logical_cpus": os.cpu_count(), "threads": args.threads,
                    "platform": platform.platform(),
                    "load_average_at_end": os.getloadavg()},
        "versions": {"torch": torch.__version__, "python": platform.python_version(),
                     "torch_cpu_capability": torch.backends.cpu.get_cpu_capability()},
        "layout": "q, k, v, out in PyTorch's [B, H, L, d] memory order for both (amkl reads it as a strided [B, L, H, d] view)",
        "min_time_s": args.min_time, "rounds": args.rounds,
        "cases": rows,
        "geomean_speed_ratio": statistics.geometric_mean(r["speed_ratio_amkl_over_torch"] for r in rows),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")

    plot(result, args.out.with_suffix(".png"))
    print(f"wrote {args.out.with_suffix('.json')} and .png; geomean ratio {result['geomean_speed_ratio']:.2f}")


if __name__ == "__main__":
    main()
