#!/usr/bin/env python3
"""How much of a causal dense call's time the tile order's tail costs, by a model: the Hopper
forward's longest-first order in sections of P (sequence, head) pairs (TileScheduler with
reverse_m and sections), handed out dynamically to 132 CTAs, each tile costing its key blocks
plus a fixed per-tile overhead (in key blocks). Prints the makespan over the perfectly
balanced time for each section size: 1.000 means no tail at all. It models neither L2 nor
memory, so a measured difference between section sizes that this does not show lies there
(bench/NOTES.md step 16).

Usage: python3 bench/section_tail_sim.py [--overhead 3] [--sms 132]
"""
import argparse
import heapq

# (name, (sequence, head) pairs, query blocks of 128 rows per pair): issue 3's causal rows
# and the longer ones of step 16.
CASES = [("causal (2,16,8192)", 32, 64), ("causal (1,16,16384)", 16, 128),
         ("causal (8,16,2048)", 128, 16), ("causal (16,16,1024)", 256, 8),
         ("causal (32,16,512)", 512, 4), ("GQA causal (2,32,4096)", 64, 32)]


def tile_costs(pairs, m_blocks, section, overhead):
    """Tile costs in hand-out order: per section, every pair's last query block (the
    heaviest: m + 1 key blocks under a bottom-right causal mask) first, then the one before."""
    costs = []
    for first in range(0, pairs, section):
        in_section = min(section, pairs - first)
        for level in range(m_blocks):
            costs += [m_blocks - level + overhead] * in_section
    return costs


def makespan_ratio(pairs, m_blocks, section, sms, overhead):
    ends = [(0.0, i) for i in range(sms)]  # (time the CTA is free, CTA)
    heapq.heapify(ends)
    costs = tile_costs(pairs, m_blocks, section, overhead)
    for c in costs:
        free, cta = heapq.heappop(ends)
        heapq.heappush(ends, (free + c, cta))
    return max(t for t, _ in ends) / (sum(costs) / sms)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--overhead", type=float, default=3.0, help="per-tile cost in key blocks")
    ap.add_argument("--sms", type=int, default=132)
    args = ap.parse_args()
    for name, pairs, m_blocks in CASES:
        sizes = sorted({s for s in (2, 4, 8, 12, 16, 32) if s < pairs} | {pairs})
        print(f"{name:24s}", " ".join(
            f"p{s}:{makespan_ratio(pairs, m_blocks, s, args.sms, args.overhead):.3f}"
            for s in sizes))


if __name__ == "__main__":
    main()
