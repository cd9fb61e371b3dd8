#!/usr/bin/env python3
"""Where the Hopper forward's time goes, phase by phase, from a trace build of amkl
(-DAMKL_SM90_TRACE: src/cuda/sm90/fwd_trace.h). One call of one case is traced; every
interval between two consecutive stamps of a role (the producer thread, consumer warpgroups
0, 1 and, in kernels with three, 2) is named by its two events, e.g. "IssueEnd->SReady"
(waiting for S) or "SReady->ActDone" (the score policy), and summed over all CTAs. The table
shows each interval's share of the role's time and its mean length in cycles; the plot shows a
few CTAs' timelines, and the CTAs' spans say how much of the kernel they idle waiting for the
last one (the tail). The stamps cost a little (a store each, some spills): compare phases with
each other, not the traced time with an untraced run.

Usage (GPU machine, repository root):
  bash bench/ab_build.sh /tmp/ab trace . -DAMKL_SM90_TRACE
  PYTHONPATH=/tmp/ab/trace python3 bench/trace_tiles.py --case gdpa:256:256 --out /tmp/trace_l256
Cases as in bench/ab_compare.py. Writes OUT.json and OUT.png, and with --raw the whole stamp
buffer as OUT.npz (compressed), which --from-npz OUT.npz analyses again without a GPU;
--by-length adds the consumers' time per tile length (key blocks), each CTA's first tile
apart (the launch's cold start).
"""
import argparse
import collections
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_compare import make_case  # noqa: E402

EVENTS = {1: "TileStart", 2: "IssueBegin", 3: "IssueEnd", 4: "SReady", 5: "ActDone",
          6: "PvReady", 7: "EpilogueBegin", 8: "EpilogueEnd", 9: "Fetched", 10: "LoadK",
          11: "LoadV", 12: "LoadQ", 13: "OScaled", 14: "OStaged", 15: "OStoreIssued",
          16: "QReady", 17: "KReady"}
# kTraceRoles slots per CTA (fwd_trace.h): "producer" is the K loading thread, "loader_v" and
# "loader_q" the V and Q ones (traces taken before session 41 have every load on "producer";
# session 41's builds loaded Q and V from one thread, in role 4, and had five roles).
ROLES = ["producer", "consumer0", "consumer1", "consumer2", "loader_v", "loader_q"]
CONSUMERS = ("consumer0", "consumer1", "consumer2")
EVENTS_PER_ROLE = 8192  # kTraceEventsPerRole in fwd_trace.h
CLOCK_MASK = (1 << 40) - 1


def decode(words, ctas):
    """{(cta, role): [(cycle, event name, arg), ...]} from the raw buffer."""
    out = {}
    for cta in range(ctas):
        for r, role in enumerate(ROLES):
            base = (cta * len(ROLES) + r) * EVENTS_PER_ROLE
            stream = []
            for w in words[base:base + EVENTS_PER_ROLE]:
                if w == 0:
                    break
                stream.append((w & CLOCK_MASK, EVENTS.get((w >> 40) & 0xFF, "?"),
                               (w >> 48) & 0xFFFF))
            out[(cta, role)] = stream
    return out


def steps(ev):
    """('A->B', cycles) for each pair of consecutive stamps of one stream."""
    for (t0, e0, _), (t1, e1, _) in zip(ev, ev[1:]):
        yield f"{e0}->{e1}", (t1 - t0) & CLOCK_MASK


def intervals(streams):
    """Per role: total cycles and counts of each 'A->B' interval."""
    total = {role: collections.Counter() for role in ROLES}
    count = {role: collections.Counter() for role in ROLES}
    span = collections.Counter()
    for (cta, role), ev in streams.items():
        for key, d in steps(ev):
            total[role][key] += d
            count[role][key] += 1
        if len(ev) > 1:
            span[role] += (ev[-1][0] - ev[0][0]) & CLOCK_MASK
    return total, count, span


def tile_spans(streams, role):
    """Per CTA of one consumer role: (cta, its stamps, the [start, end) stamp indices of each
    tile) (from its TileStart to the next; a CTA's last tile, without a TileStart after it, is
    left out)."""
    for (cta, r), ev in streams.items():
        if r != role:
            continue
        starts = [i for i, e in enumerate(ev) if e[1] == "TileStart"]
        yield cta, ev, list(zip(starts, starts[1:]))


def tile_means(spans):
    """(tiles, mean cycles per tile, {interval: mean cycles per tile}) over (stamps, a, b)."""
    tiles, cycles, parts = 0, 0, collections.Counter()
    for ev, a, b in spans:
        tiles += 1
        cycles += (ev[b][0] - ev[a][0]) & CLOCK_MASK
        for key, d in steps(ev[a:b + 1]):
            parts[key] += d
    return tiles, cycles / max(tiles, 1), {k: v / max(tiles, 1) for k, v in parts.items()}


def by_tile_length(streams, role):
    """{tile length (key blocks, TileStart's argument): (tiles, mean cycles from one TileStart
    to the next, {interval: mean cycles per tile})} for one consumer role, over every CTA's
    tiles but its first (first_tile's: a cold start, 2-3x a later tile of its length) and its
    last."""
    groups = collections.defaultdict(list)
    for _, ev, spans in tile_spans(streams, role):
        for a, b in spans[1:]:
            groups[ev[a][2]].append((ev, a, b))
    return {n: tile_means(groups[n]) for n in sorted(groups)}


def first_tile(streams, role):
    """(tiles, mean cycles, {interval: mean cycles}) of each CTA's first tile for one consumer
    role: the launch's cold start (instruction fetch, the first loads of every SM at once;
    bench/NOTES.md step 32). A CTA with a single tile has none (its end is not stamped)."""
    return tile_means([(ev, *spans[0]) for _, ev, spans in tile_spans(streams, role) if spans])


def next_q_timing(streams, role):
    """{tile length: {"tiles", "s_ready_to_load", "load_to_last_issue"[, "load_to_q_ready",
    "q_ready_to_issue"]}} (mean cycles) for one consumer role: from the tile's first SReady to
    the producer's load of the next tile's Q, and from that load to the tile's last IssueBegin
    (P V with the next tile's first S, which needs that Q). Where the trace has the QReady
    stamp (the next Q landed, before the turn barrier), the second part is split there: the
    Q's latency as the consumers see it, and the turn. Where the second part is long and the
    tile's own work short, the next Q paces the tiles (short causal tiles; bench/NOTES.md step
    35). The Q loader's k-th LoadQ is taken to be the CTA's k-th tile's: CTAs whose count of
    LoadQ stamps differs from their count of tiles (tiles without keys load no Q) are left
    out, and so is each CTA's first tile."""
    groups = collections.defaultdict(list)
    for cta, ev, spans in tile_spans(streams, role):
        loads = [t for t, e, _ in streams[(cta, "loader_q")] if e == "LoadQ"] or \
            [t for t, e, _ in streams[(cta, "producer")] if e == "LoadQ"]
        if len(loads) != sum(1 for e in ev if e[1] == "TileStart"):
            continue
        for k, (a, b) in enumerate(spans):
            if k == 0:
                continue
            tile = ev[a:b]
            s_ready = next((t for t, e, _ in tile if e == "SReady"), None)
            epi = next((t for t, e, _ in tile if e == "EpilogueBegin"), None)
            if s_ready is None or epi is None:
                continue
            issues = [t for t, e, _ in tile if e == "IssueBegin" and t < epi]
            ready = [t for t, e, _ in tile if e == "QReady" and t < epi]
            if not issues:
                continue
            load = loads[k + 1]
            row = {"s_ready_to_load": (load - s_ready) & CLOCK_MASK,
                   "load_to_last_issue": (issues[-1] - load) & CLOCK_MASK}
            if ready:
                row["load_to_q_ready"] = (ready[-1] - load) & CLOCK_MASK
                row["q_ready_to_issue"] = (issues[-1] - ready[-1]) & CLOCK_MASK
            groups[ev[a][2]].append(row)
    out = {}
    for n, rows in sorted(groups.items()):
        keys = [k for k in rows[0] if all(k in r for r in rows)]
        out[n] = {"tiles": len(rows), **{k: sum(r[k] for r in rows) / len(rows) for k in keys}}
    return out


def cta_spans(streams, role="consumer0"):
    """{"mean", "max", "min", "idle_share"} of each CTA's span (its role's first stamp to its
    last, in cycles of its own SM's clock): idle_share = the mean of (max - span) / max, the
    share of the kernel the CTAs spend done and waiting for the last one (the tail). The
    CTAs' start skew is not in it (each span starts at the CTA's own first stamp)."""
    spans = [(ev[-1][0] - ev[0][0]) & CLOCK_MASK
             for (cta, r), ev in streams.items() if r == role and len(ev) > 1]
    if not spans:
        return {}
    top = max(spans)
    return {"mean": sum(spans) / len(spans), "max": top, "min": min(spans),
            "idle_share": sum(top - s for s in spans) / len(spans) / max(top, 1)}


def plot(streams, roles, ctas, path, window):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    colors = {}
    palette = plt.get_cmap("tab20").colors
    fig, ax = plt.subplots(figsize=(14, 0.6 * len(ctas) * len(roles) + 1.5))
    y = 0
    labels = []
    for cta in ctas:
        t_ref = min(ev[0][0] for (c, _), ev in streams.items() if c == cta and ev)
        for role in roles:
            ev = streams[(cta, role)]
            for (t0, e0, _), (t1, e1, _) in zip(ev, ev[1:]):
                a, b = t0 - t_ref, t1 - t_ref
                if a > window:
                    break
                key = f"{e0}->{e1}"
                if key not in colors:
                    colors[key] = palette[len(colors) % len(palette)]
                ax.broken_barh([(a, b - a)], (y, 0.8), color=colors[key], label=key)
            labels.append(f"CTA {cta} {role}")
            y += 1
    handles, names = ax.get_legend_handles_labels()
    uniq = dict(zip(names, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize=6, ncol=4, loc="upper right")
    ax.set_yticks([i + 0.4 for i in range(y)])
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlim(0, window)
    ax.set_xlabel("SM clock cycles from the CTA's first stamp")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", default="gdpa:256:256")
    ap.add_argument("--out", required=True, help="path prefix for OUT.json and OUT.png")
    ap.add_argument("--plot-ctas", default="0,1,2")
    ap.add_argument("--window", type=int, default=200000, help="cycles shown in the plot")
    ap.add_argument("--raw", action="store_true", help="also write the stamp buffer to OUT.npz")
    ap.add_argument("--from-npz", help="analyse a buffer written by --raw (no GPU, no run; "
                    "--case then only labels the report)")
    ap.add_argument("--by-length", action="store_true",
                    help="also break the consumers' time down by tile length (key blocks)")
    args = ap.parse_args()
    if args.from_npz:
        import numpy as np
        saved = np.load(args.from_npz)
        sms = int(saved["sms"])
        raw = saved["words"].tolist()
    else:
        fn, flops = make_case(args.case)
        fn()  # warm-up, untraced
        torch.cuda.synchronize()
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        buf = torch.zeros(sms * len(ROLES) * EVENTS_PER_ROLE, dtype=torch.int64, device="cuda")
        os.environ["AMKL_SM90_TRACE_BUFFER"] = hex(buf.data_ptr())
        try:
            fn()
            torch.cuda.synchronize()
        finally:
            del os.environ["AMKL_SM90_TRACE_BUFFER"]
        host = buf.cpu()
        if args.raw:
            import numpy as np
            np.savez_compressed(args.out + ".npz", words=host.numpy(), sms=sms)
        raw = host.tolist()
    words = [int(w) & ((1 << 64) - 1) for w in raw]
    if not any(words):
        sys.exit("no stamps: is this a -DAMKL_SM90_TRACE build? (bench/ab_build.sh ... "
                 "-DAMKL_SM90_TRACE)")
    streams = decode(words, sms)
    # The kernel's roles: a kernel with two consumer warpgroups leaves consumer2 empty.
    roles = [r for r in ROLES if any(streams[(c, r)] for c in range(sms))]
    total, count, span = intervals(streams)
    tiles = sum(1 for (c, r), ev in streams.items() if r == "consumer0"
                for e in ev if e[1] == "TileStart")
    report = {"case": args.case, "sms": sms, "tiles_traced": tiles, "roles": {}}
    print(f"{args.case}: {tiles} tiles traced on {sms} SMs")
    for role in roles:
        rows = []
        for key, cyc in total[role].most_common(12):
            rows.append({"interval": key, "share": cyc / max(span[role], 1),
                         "mean_cycles": cyc / count[role][key], "count": count[role][key]})
        report["roles"][role] = {"span_cycles": span[role], "intervals": rows}
        print(f"  {role} (sum of spans {span[role]:.3g} cycles)")
        for r in rows:
            print(f"    {r['interval']:28s} {100 * r['share']:5.1f}%  mean {r['mean_cycles']:8.0f}"
                  f"  x{r['count']}")
    spans = cta_spans(streams)
    if spans:
        report["cta_spans"] = spans
        print(f"  CTA spans (consumer0): mean {spans['mean']:.0f}, max {spans['max']}, min "
              f"{spans['min']} cycles; idle waiting for the last CTA "
              f"{100 * spans['idle_share']:.2f}%")
    if args.by_length:
        report["by_tile_length"] = {}
        for role in (r for r in roles if r in CONSUMERS):
            lengths = by_tile_length(streams, role)
            report["by_tile_length"][role] = {
                str(n): {"tiles": t, "mean_cycles": c, "intervals": parts}
                for n, (t, c, parts) in lengths.items()}
            t, c, parts = first_tile(streams, role)
            report["by_tile_length"][role]["first"] = {"tiles": t, "mean_cycles": c,
                                                       "intervals": parts}
            print(f"  {role} by tile length (mean cycles per tile; the largest intervals)")
            for n, (t, c, parts) in [("first", (t, c, parts))] + list(lengths.items()):
                top = sorted(parts.items(), key=lambda kv: -kv[1])[:6]
                label = "first tile" if n == "first" else f"{n:3d} blocks"
                print(f"    {label} x{t:5d}: {c:8.0f}  " +
                      "  ".join(f"{k} {v:.0f}" for k, v in top))
            timing = next_q_timing(streams, role)
            report["by_tile_length"][role]["next_q"] = {str(n): v for n, v in timing.items()}
            print(f"  {role}: the next tile's Q (mean cycles: first SReady -> its LoadQ -> "
                  "the tile's last IssueBegin; with QReady stamps that last part split)")
            for n, v in timing.items():
                split = (f"  (QReady {v['load_to_q_ready']:.0f}, turn {v['q_ready_to_issue']:.0f})"
                         if "load_to_q_ready" in v else "")
                print(f"    {n:3d} blocks x{v['tiles']:5d}: {v['s_ready_to_load']:8.0f} "
                      f"{v['load_to_last_issue']:8.0f}{split}")
    with open(args.out + ".json", "w") as f:
        json.dump(report, f, indent=1)
    plot(streams, roles, [int(c) for c in args.plot_ctas.split(",") if int(c) < sms],
         args.out + ".png", args.window)
    print(f"wrote {args.out}.json and {args.out}.png")


if __name__ == "__main__":
    main()
