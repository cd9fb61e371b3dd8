#!/usr/bin/env python3
"""The cost of choosing the pointwise activation at run time (issue 3: "under 3% against a
kernel built for one"). Times GDPA fast_gelu (jagged Q, B=1152, H=4, d=128, KV dense, fill 1)
with two builds of amkl, each in its own process (both register the same torch ops):
  - the normal build (the activation is a run-time switch, once per key block), and
  - a measurement build compiled with -DAMKL_SM90_SINGLE_ACTIVATION=FastGelu, whose kernel
    evaluates fast_gelu without the switch.
Variants alternate (A B A B ...) so clock drift hits both alike.

Usage: python3 bench/activation_choice.py --variant runtime=PYDIR_A --variant single=PYDIR_B
       [--rounds 3] [--out DIR]
PYDIR is a directory holding the amkl package (a copy of python/ with its _C.so).
Writes DIR/activation_choice_h200.json.
"""
import argparse
import json
import os
import subprocess
import sys


def worker(lengths, rep):
    import torch
    import amkl
    from triton.testing import do_bench
    B, H, d = 1152, 4, 128
    out = {}
    for L in lengths:
        cu = (torch.arange(B + 1, dtype=torch.int32) * L).cuda()
        q = torch.randn(B * L, H, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, L, H, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, L, H, d, device="cuda", dtype=torch.bfloat16)
        fn = lambda: amkl.attention(q, k, v, activation="fast_gelu", cu_seqlens_q=cu,  # noqa: E731
                                    max_seqlen_q=L)
        fn()
        torch.cuda.synchronize()
        ms = do_bench(fn, warmup=25, rep=rep, return_mode="median")
        out[str(L)] = {"ms": ms, "tflops": 4 * H * d * B * L * L / (ms * 1e-3) / 1e12}
        del q, k, v
    print("RESULT " + json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", action="append", default=[], help="NAME=PYDIR")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lengths", default="1024,2048")
    ap.add_argument("--rep", type=int, default=200)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "results"))
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    if args.worker:
        worker(lengths, args.rep)
        return
    variants = [v.split("=", 1) for v in args.variant]
    samples = {name: {str(L): [] for L in lengths} for name, _ in variants}
    for r in range(args.rounds):
        for name, pydir in variants:
            env = dict(os.environ, PYTHONPATH=pydir)
            res = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker",
                                  "--lengths", args.lengths, "--rep", str(args.rep)],
                                 env=env, capture_output=True, text=True)
            line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
            if res.returncode != 0 or not line:
                print(f"{name}: failed\n{res.stderr[-2000:]}")
                return 1
            for L, v in json.loads(line[0][7:]).items():
                samples[name][L].append(v["tflops"])
            print(f"round {r + 1}/{args.rounds} {name}: {line[0][7:]}", flush=True)
    summary = {}
    for L in map(str, lengths):
        med = {name: sorted(samples[name][L])[len(samples[name][L]) // 2] for name, _ in variants}
        summary[L] = med
        names = [n for n, _ in variants]
        if len(names) == 2:
            a, b = med[names[0]], med[names[1]]
            print(f"L={L}: {names[0]} {a:.0f} TFLOP/s, {names[1]} {b:.0f} TFLOP/s, "
                  f"{names[0]}/{names[1]} = {a / b:.3f}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "activation_choice_h200.json"), "w") as f:
        json.dump({"samples_tflops": samples, "median_tflops": summary,
                   "variants": dict(variants)}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
