#!/usr/bin/env python3
"""Splits the Hopper forward's time into a fixed cost per query tile and a cost per key block.

The kernel's time on a shape is about  tiles_per_SM * (c_tile + c_block * key_blocks_per_tile).
This script times amkl's forward at one query shape for several key lengths (1, 2, 4, 8 key
blocks of 128 per tile), fits that line by least squares and prints c_tile and c_block in
microseconds, for the GDPA workload (jagged Q, B=1152, H=4, d=128, fast_gelu) and for dense
softmax (B=32, H=16, d=128). A large c_tile is time the kernel spends per tile outside its
mainloop (prologue, epilogue, tile hand-off, load latency the pipeline does not hide).

Usage: python3 bench/tile_cost.py [--out FILE.json]
       python3 bench/tile_cost.py --case gdpa:256:256 --iters 5   # one shape, for a profiler
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import amkl  # noqa: E402
from triton.testing import do_bench  # noqa: E402

KEY_BLOCK = 128
QUERY_TILE = 128


def make_case(kind, lq, lk):
    """Inputs and the forward call for one (kind, query length, key length)."""
    torch.manual_seed(0)
    if kind == "gdpa":
        B, H, d = 1152, 4, 128
        cu = torch.arange(B + 1, dtype=torch.int32, device="cuda") * lq
        q = torch.randn(B * lq, H, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, lk, H, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, lk, H, d, device="cuda", dtype=torch.bfloat16)
        fn = lambda: amkl.attention(q, k, v, activation="fast_gelu", cu_seqlens_q=cu,  # noqa: E731
                                    max_seqlen_q=lq)
    else:
        B, H, d = 32, 16, 128
        q = torch.randn(B, lq, H, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, lk, H, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, lk, H, d, device="cuda", dtype=torch.bfloat16)
        fn = lambda: amkl.attention(q, k, v)  # noqa: E731
    tiles = B * H * ((lq + QUERY_TILE - 1) // QUERY_TILE)
    return fn, tiles, 4 * B * H * d * lq * lk


def fit(points):
    """Least squares of us_per_tile = c_tile + c_block * blocks."""
    n = len(points)
    sx = sum(p[0] for p in points)
    sy = sum(p[1] for p in points)
    sxx = sum(p[0] * p[0] for p in points)
    sxy = sum(p[0] * p[1] for p in points)
    c_block = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    return (sy - c_block * sx) / n, c_block


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="write the measurements and fits as JSON")
    ap.add_argument("--case", default=None, help="kind:lq:lk, run it --iters times and exit")
    ap.add_argument("--iters", type=int, default=3)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("tile_cost.py needs a CUDA GPU")
    if args.case:
        kind, lq, lk = args.case.split(":")
        fn, _, _ = make_case(kind, int(lq), int(lk))
        for _ in range(args.iters):
            fn()
        torch.cuda.synchronize()
        return
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    results = {"gpu": torch.cuda.get_device_name(0), "sms": sms, "series": []}
    for kind, lq in (("gdpa", 256), ("gdpa", 1024), ("softmax", 512)):
        points = []
        for lk in (128, 256, 512, 1024):
            fn, tiles, flops = make_case(kind, lq, lk)
            ms = do_bench(fn, warmup=50, rep=300, return_mode="median")
            us_per_tile = ms * 1e3 / (tiles / sms)
            points.append((lk // KEY_BLOCK, us_per_tile))
            print(f"{kind:8s} Lq={lq:5d} Lk={lk:5d} tiles={tiles:6d} {ms * 1e3:9.1f} us "
                  f"{flops / ms / 1e9:6.1f} TFLOP/s  {us_per_tile:6.2f} us/tile", flush=True)
            del fn
            torch.cuda.empty_cache()
        c_tile, c_block = fit(points)
        print(f"  -> {kind} Lq={lq}: c_tile {c_tile:.2f} us, c_block {c_block:.2f} us", flush=True)
        results["series"].append({"kind": kind, "lq": lq, "points": points, "c_tile_us": c_tile,
                                  "c_block_us": c_block})
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
