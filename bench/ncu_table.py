#!/usr/bin/env python3
"""Side-by-side table of chosen metrics from several ncu raw-page exports (one kernel each), so
that amkl's kernel and a peer's (cuDNN, FA3) profiled in one run can be compared line by line.

Export (GPU machine), one report per provider, e.g. (bench/ncu_case.py drives one case):
  ncu --clock-control none --set full --import-source no -k regex:attention_fwd_sm90 \\
      --launch-skip 2 -c 1 -o REP python3 bench/ncu_case.py --case softmax:32:16:512
  ncu -i REP.ncu-rep --page raw --csv > NAME.raw.csv
Usage: python3 bench/ncu_table.py amkl=A.raw.csv cudnn=B.raw.csv [...] [--match REGEX ...]
  Without --match, DEFAULT_MATCH picks the metrics (time, clock, cycles, instructions, issue,
  pipes, stalls, memory). A metric missing from an export shows as '-'.
"""
import argparse
import csv
import re
import sys

# Metric-name patterns of the default table (re.search on the raw page's column names).
DEFAULT_MATCH = (
    r"^gpu__time_duration\.sum$",
    r"^sm__cycles_elapsed\.avg\.per_second$",
    r"^smsp__cycles_active\.avg$",
    r"^smsp__inst_executed\.sum$",
    r"^smsp__issue_active\.avg\.pct_of_peak_sustained_active$",
    r"^smsp__warps_eligible\.avg\.per_cycle_active$",
    r"^sm__warps_active\.avg\.pct_of_peak_sustained_active$",
    r"^sm__pipe_tensor.*cycles_active\.avg\.pct_of_peak_sustained_active$",
    r"^sm__inst_executed_pipe_(alu|fma|fmaheavy|xu|uniform|lsu)\.avg\.pct_of_peak_sustained_active$",
    r"^launch__(grid_size|block_size|registers_per_thread|shared_mem_per_block_dynamic)$",
    r"^lts__t_sector_hit_rate\.pct$",
    r"^dram__bytes_read\.sum$",
    r"^l1tex__data_bank_conflicts_pipe_lsu_mem_shared\.sum$",
    r"^smsp__pcsamp_warps_issue_stalled_[a-z_]+$",
)


def read_raw(path):
    """{metric: 'value unit'} of the first kernel in an `ncu --page raw --csv` export."""
    rows = [r for r in csv.reader(open(path, newline="")) if r]
    if len(rows) < 3:
        raise ValueError(f"{path}: expected a header, a units row and a kernel row, got "
                         f"{len(rows)} rows (did ncu profile a kernel?)")
    names, units, values = rows[0], rows[1], rows[2]
    out = {}
    for name, unit, value in zip(names, units, values):
        out[name] = f"{value} {unit}".strip() if unit else value
    return out


def table(columns, patterns):
    """Lines of the table: one metric per line, one column per (label, metrics) of columns."""
    regexes = [re.compile(p) for p in patterns]
    names = []
    for _, metrics in columns:
        for name in metrics:
            if name not in names and any(r.search(name) for r in regexes):
                names.append(name)
    # Keep the patterns' order, then the name: related metrics stay together.
    names.sort(key=lambda n: (next(i for i, r in enumerate(regexes) if r.search(n)), n))
    width = max([len(n) for n in names] + [6])
    colw = [max([len(label)] + [len(m.get(n, "-")) for n in names]) for label, m in columns]
    lines = ["metric".ljust(width) + "".join("  " + label.rjust(w)
                                             for (label, _), w in zip(columns, colw))]
    for n in names:
        lines.append(n.ljust(width) + "".join("  " + m.get(n, "-").rjust(w)
                                              for (_, m), w in zip(columns, colw)))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("exports", nargs="+", help="LABEL=FILE.raw.csv, one per kernel")
    ap.add_argument("--match", action="append", default=None,
                    help="a metric-name regex (repeatable); replaces the default set")
    args = ap.parse_args(argv)
    columns = []
    for spec in args.exports:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            ap.error(f"expected LABEL=FILE, got {spec!r}")
        columns.append((label, read_raw(path)))
    print("\n".join(table(columns, args.match or DEFAULT_MATCH)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
