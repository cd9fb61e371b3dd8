#!/usr/bin/env python3
"""Warp-stall summary of one kernel from an ncu source-page export: the stall reasons over the
whole kernel and the SASS lines with the most samples (each with its two main reasons).

Export (GPU machine; ncu reads the hardware counters there, METHOD.md: leave clocks alone):
  ncu --clock-control none --set full --import-source no -k regex:attention_fwd_sm90 \
      --launch-skip 1 -c 1 -o /tmp/rep python3 -c "<one call of the case, twice>"
  ncu --import /tmp/rep.ncu-rep --page source --csv --print-source sass > SOURCE.csv
Usage: python3 bench/ncu_stalls.py SOURCE.csv [--top 30] > SUMMARY.txt
"""
import argparse
import collections
import csv

SAMPLES = "Warp Stall Sampling (All Samples)"


def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    rows = list(csv.reader(open(args.csv)))
    kernel, hdr, data = rows[0], rows[1], rows[2:]
    ix = {h: i for i, h in enumerate(hdr)}
    stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    total = sum(num(r[ix[SAMPLES]]) for r in data) or 1.0
    print(f"kernel: {kernel[1] if len(kernel) > 1 else kernel[0]}")
    print(f"samples: {total:.0f}; stall reasons over the kernel:")
    agg = collections.Counter()
    for r in data:
        for h in stalls:
            agg[h] += num(r[ix[h]])
    for h, v in agg.most_common(12):
        print(f"  {h[6:]:20s} {v / total * 100:5.1f}%")
    print(f"top {args.top} SASS lines (share of all samples; two main reasons):")
    top = sorted(data, key=lambda r: -num(r[ix[SAMPLES]]))[:args.top]
    for r in top:
        main_two = sorted(((num(r[ix[h]]), h[6:]) for h in stalls), reverse=True)[:2]
        reasons = " ".join(f"{n}={v / total * 100:.2f}" for v, n in main_two)
        print(f"  {r[0][-6:]:>6s} {num(r[ix[SAMPLES]]) / total * 100:5.2f}%  "
              f"{r[1].strip()[:64]:64s} {reasons}")


if __name__ == "__main__":
    main()
