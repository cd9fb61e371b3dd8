#!/usr/bin/env python3
"""Whether variants of amkl give bitwise the same outputs: a check for changes that should move
only timing (where O is stored from, the order of stores), before an A/B run measures them.
Every variant runs every case once in a process of its own, on the same seeded inputs (cases
as in bench/ab_compare.py); outputs (and the LSE where there is one) are compared with the
first variant's. Not a substitute for the GPU tests against the CPU oracle.

Usage (GPU machine, repository root):
  python3 bench/ab_same.py --variant base=DIR_A --variant new=DIR_B [--cases ...]
Exit status 1 when any output differs.
"""
import argparse
import os
import subprocess
import sys
import tempfile

DEFAULT_CASES = ("gdpa:256:256,gdpa:512:512:0.5,gdpa:1024:1024:0.3,gdpa:2048:256,"
                 "gdpa:300:200:0.6,softmax:4:3:700,softmax:4:3:700:causal,softmax:2:8:1000:kv2")


def worker(cases, out_path):
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ab_compare import make_case
    outs = {}
    for spec in cases:
        torch.manual_seed(1234)  # the same inputs in every variant's process
        fn, _ = make_case(spec)
        r = fn()
        outs[spec] = [t.cpu() for t in (r if isinstance(r, (tuple, list)) else (r,))]
        torch.cuda.synchronize()
    torch.save(outs, out_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", action="append", default=[], help="NAME=PYDIR")
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    cases = args.cases.split(",")
    if args.worker:
        worker(cases, args.worker)
        return 0
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ab_compare import parse_variants
    variants = parse_variants(ap, args.variant)
    import torch
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, pydir in variants:
            path = os.path.join(tmp, name + ".pt")
            env = dict(os.environ, PYTHONPATH=os.path.abspath(pydir))
            res = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", path,
                                  "--cases", ",".join(cases)], env=env, capture_output=True,
                                 text=True)
            if res.returncode != 0:
                print(f"{name}: failed\n{res.stderr[-2000:]}")
                return 1
            results[name] = torch.load(path)
    first = variants[0][0]
    bad = 0
    for name, _ in variants[1:]:
        for spec in cases:
            a, b = results[first][spec], results[name][spec]
            same = len(a) == len(b) and all(
                x.shape == y.shape and torch.equal(x.contiguous().view(torch.uint8), y.contiguous().view(torch.uint8))
                for x, y in zip(a, b))
            bad += not same
            print(f"{name} vs {first} {spec}: {'same' if same else 'DIFFERENT'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
