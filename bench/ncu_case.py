#!/usr/bin/env python3
"""One case of bench/ab_compare.py (same spec syntax), called a few times and nothing else, for
a profiler to capture one of its calls. For example (bench/NOTES.md step 16):

  AMKL_SM90_SECTION_PAIRS=4 ncu --clock-control none -k regex:attention_fwd_sm90 \\
    --launch-skip 2 -c 1 --metrics gpc__cycles_elapsed.max,lts__t_sector_hit_rate.pct,\\
lts__t_sectors_srcunit_ltcfabric.sum,lts__t_bytes.sum,dram__bytes_read.sum \\
    python3 bench/ncu_case.py --case softmax:2:16:8192:causal

(--launch-skip 2 skips the warm-up calls; a jagged case with a tile list launches two small
kernels before each forward, which the -k filter leaves out.)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_compare import make_case  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description="One ab_compare.py case, called a few times, for a "
                                             "profiler to capture.")
    ap.add_argument("--case", required=True, help="an ab_compare.py case, e.g. softmax:8:16:2048")
    ap.add_argument("--calls", type=int, default=3, help="calls in all (warm-up included)")
    args = ap.parse_args()
    import torch
    fn, _ = make_case(args.case)
    for _ in range(args.calls):
        fn()
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
