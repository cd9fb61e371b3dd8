#!/usr/bin/env python3
"""A/B comparison of amkl builds on the same GPU in one run: each variant (a directory holding
an amkl package, i.e. a copy of python/ with its _C.so) runs in its own process (every build
registers the same torch ops), variants alternate (A B, then B A, ...) so that clock and thermal
drift hit all alike, each round with the cases in a rotated order (a worker's first case runs
at a higher clock), and the median over rounds is reported per case. Runs on different
machines or days differ by up to 10% on the same build (bench/NOTES.md), so a kernel change is
judged against its baseline measured this way, side by side.

Cases (comma-separated --cases):
  gdpa:LQ:LK[:FILL][:ACT]  jagged Q, B=1152, H=4, d=128, KV dense of length LK (default
                           fill 1.0, activation fast_gelu)
  varkv:LQ:LK              Q and KV both jagged, B=1152, H=4, d=128, fast_gelu, lengths
                           uniform in [1, LQ] and [1, LK] (tiles of unequal cost)
  softmax:B:H:L[:causal][:dD][:kvH][:qN]
                           dense bf16, layout [B, L, H, d], d = 128 unless dD (e.g. d64),
                           H KV heads unless kvH (GQA, e.g. kv8), queries of length N
                           instead of L with qN (e.g. q16: short queries, L keys)
A jagged case (gdpa, varkv) runs with validate_offsets=False (the kernel's time, not the host
check's copy of the offsets and stream sync, which costs 0.1-0.3 ms per call: bench/NOTES.md
step 9); the suffix ":validated" (e.g. gdpa:256:256:validated) measures the default call.

Usage: python3 bench/ab_compare.py --variant base=DIR_A --variant new=DIR_B
       [--cases gdpa:256:256,softmax:32:16:512] [--rounds 3] [--rep 100] [--out FILE.json]
       [--sustain-ms 2000]   (measure at the power-capped clock: bench/gpu_clock.py)
       [--variant-cases NAME=CASE+CASE ...]   (that variant runs only these of the cases, e.g.
       a build specialised for one activation runs only that activation's case)
       [--variant-env NAME=VAR=VALUE ...]   (an environment variable for that variant's
       processes, e.g. one build as two variants: AMKL_SM90_CONSUMER_WARPGROUPS=2 and =3)
       [--worker-timeout 300]   (a variant whose worker fails or takes longer for a round's
       cases is dropped from the rounds after, and the others go on; exit status 1)
A variant NAME=@sdpa_cudnn is the peer instead of a build: PyTorch SDPA on its cuDNN backend,
for softmax cases only (with [B, H, L, d] views of the same inputs, as bench/attention_fwd.py
calls it), so that a kernel change and its ratio to cuDNN come out of one run. NAME=@fa3 is
FlashAttention-3 (bench/fa3_peer.py; AMKL_FA3_PATH names an unzipped build) on softmax cases.
In the first round every amkl variant's first call of each case is checked against amkl's CPU
backend (the oracle, DESIGN.md section 4) on a slice of the case (oracle_slices): a variant
whose error passes ORACLE_TOL is reported as a MISMATCH, and its numbers are not to be used.
"""
import argparse
import json
import os
import subprocess
import sys

DEFAULT_CASES = ("gdpa:256:256,gdpa:512:512,gdpa:1024:1024,gdpa:2048:2048,gdpa:2048:2048:0.5,"
                 "gdpa:512:256,gdpa:2048:256,softmax:32:16:512,softmax:8:16:2048,"
                 "softmax:8:16:2048:causal")


# The GDPA workload's batch, heads and head dim (gdpa and varkv cases).
GDPA_B, GDPA_H, GDPA_D = 1152, 4, 128

# The CPU check of each amkl variant (first round): the last ORACLE_ROWS query rows of a dense
# case's last batch (the last KV head's query heads), or the last ORACLE_SEQS sequences of a
# jagged one: the tiles handed out last, where the last wave's split and d = 64's rows past
# the last 192-row tile run; max |gpu - cpu| / max |cpu| above ORACLE_TOL is a mismatch (a
# correct bf16 kernel stays near 1e-3: bf16 outputs and P; a wrong tile or mask is far off).
ORACLE_ROWS, ORACLE_SEQS, ORACLE_TOL = 384, 2, 2e-2

# The peers a --variant NAME=@PEER may name (softmax cases only).
PEERS = ("sdpa_cudnn", "fa3")


def softmax_shape(spec):
    """(B, H, L, causal, d, h_kv) of a softmax:B:H:L[:causal][:dD][:kvH][:qN] case (L: the key
    length; the query length is softmax_query_len's)."""
    f = spec.split(":")
    B, H, L = int(f[1]), int(f[2]), int(f[3])
    causal, d, h_kv = False, 128, H
    for opt in f[4:]:
        if opt == "causal":
            causal = True
        elif opt.startswith("d"):
            d = int(opt[1:])
        elif opt.startswith("kv"):
            h_kv = int(opt[2:])
        elif opt.startswith("q"):
            int(opt[1:])  # softmax_query_len
        else:
            raise ValueError(f"unknown option {opt!r} in case {spec}")
    return B, H, L, causal, d, h_kv


def softmax_query_len(spec):
    """The query length of a softmax case: N with :qN, else L."""
    f = spec.split(":")
    for opt in f[4:]:
        if opt.startswith("q"):
            return int(opt[1:])
    return int(f[3])


def softmax_flops(B, H, d, lq, lk, causal):
    """Forward FLOPs of dense softmax attention: 4 B H d per (query, key) pair computed. Causal
    with lq == lk counts half of lq * lk, as the benchmark does (bench/attention_fwd.py); with
    lq != lk, the pairs of the bottom-right mask exactly."""
    if not causal:
        return 4 * B * H * d * lq * lk
    if lq == lk:
        return 4 * B * H * d * lq * lk * 0.5
    pairs = sum(min(max(i + lk - lq + 1, 0), lk) for i in range(lq))
    return 4 * B * H * d * pairs


def make_case(spec):
    """(callable, flop count) for one case spec; inputs are made once, on the GPU."""
    import torch
    peer = os.environ.get("AB_PROVIDER")
    if peer is None:
        import amkl
    elif peer not in PEERS or not spec.startswith("softmax:"):
        raise ValueError(f"peer {peer}: only {', '.join(PEERS)}, on softmax cases")
    f = spec.split(":")
    validate = f[-1] == "validated"
    if validate:
        f = f[:-1]
    if f[0] == "gdpa":
        lq, lk = int(f[1]), int(f[2])
        fill = float(f[3]) if len(f) > 3 else 1.0
        act = f[4] if len(f) > 4 else "fast_gelu"
        B, H, d = GDPA_B, GDPA_H, GDPA_D
        gen = torch.Generator().manual_seed(2025)
        if fill >= 0.5:
            low, high = max(int((2 * fill - 1) * lq), 1), lq
        else:
            low, high = 1, int(2 * fill * lq)
        lens = torch.randint(low, high + 1, (B,), generator=gen)
        cu = torch.zeros(B + 1, dtype=torch.int32)
        cu[1:] = torch.cumsum(lens, 0)
        q = torch.randn(int(cu[-1]), H, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, lk, H, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, lk, H, d, device="cuda", dtype=torch.bfloat16)
        cu = cu.cuda()
        flops = 4 * H * d * float((lens.double() * lk).sum())
        fn = (lambda: amkl.attention(q, k, v, activation=act, cu_seqlens_q=cu,
                                     max_seqlen_q=lq, validate_offsets=validate))
        fn.oracle_error = lambda: oracle_error(
            fn(), oracle_slices(q, k, v, cu_seqlens_q=cu), dict(activation=act, max_seqlen_q=lq))
        return fn, flops
    if f[0] == "varkv":
        lq, lk = int(f[1]), int(f[2])
        B, H, d = GDPA_B, GDPA_H, GDPA_D
        gen = torch.Generator().manual_seed(2025)
        lens_q = torch.randint(1, lq + 1, (B,), generator=gen)
        lens_k = torch.randint(1, lk + 1, (B,), generator=gen)
        cu_q, cu_k = (torch.nn.functional.pad(torch.cumsum(x, 0), (1, 0)).to(torch.int32).cuda()
                      for x in (lens_q, lens_k))
        q = torch.randn(int(lens_q.sum()), H, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(int(lens_k.sum()), H, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(int(lens_k.sum()), H, d, device="cuda", dtype=torch.bfloat16)
        flops = 4 * H * d * float((lens_q.double() * lens_k.double()).sum())
        fn = (lambda: amkl.attention(q, k, v, activation="fast_gelu", cu_seqlens_q=cu_q,
                                     cu_seqlens_k=cu_k, max_seqlen_q=lq,
                                     max_seqlen_k=lk, validate_offsets=validate))
        fn.oracle_error = lambda: oracle_error(
            fn(), oracle_slices(q, k, v, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k),
            dict(activation="fast_gelu", max_seqlen_q=lq, max_seqlen_k=lk))
        return fn, flops
    if f[0] == "softmax":
        B, H, L, causal, d, h_kv = softmax_shape(":".join(f))
        lq = softmax_query_len(":".join(f))
        q = torch.randn(B, lq, H, d, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(B, L, h_kv, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        flops = softmax_flops(B, H, d, lq, L, causal)
        if peer == "fa3":
            import fa3_peer
            return fa3_peer.dense_call(fa3_peer.load(), q, k, v, causal), flops
        if peer is not None:
            return sdpa_cudnn_call(q, k, v, causal, gqa=h_kv != H), flops
        fn = (lambda: amkl.attention(q, k, v, causal=causal))
        fn.oracle_error = lambda: oracle_error(fn(), oracle_slices(q, k, v), dict(causal=causal))
        return fn, flops
    raise ValueError(f"unknown case {spec}")


def oracle_slices(q, k, v, cu_seqlens_q=None, cu_seqlens_k=None, rows=ORACLE_ROWS,
                  seqs=ORACLE_SEQS):
    """(index of the output, inputs) of the part of a case the CPU check recomputes, as a call
    of its own whose output equals that part of the whole call's. Dense [B, L, H, d]: the last
    batch, its last `rows` queries (a bottom-right causal mask gives them the keys they have in
    the whole call) of the last KV head's query heads (H / H_kv of them). Jagged queries
    [T, H, d] (cu_seqlens_q) over dense or jagged keys: the last `seqs` sequences."""
    if cu_seqlens_q is None:
        g, r = q.shape[2] // k.shape[2], min(rows, q.shape[1])
        idx = (slice(q.shape[0] - 1, None), slice(q.shape[1] - r, None),
               slice(q.shape[2] - g, None))
        return idx, dict(q=q[idx], k=k[-1:, :, -1:], v=v[-1:, :, -1:])
    n = cu_seqlens_q.numel() - 1
    s0 = max(n - seqs, 0)
    cu_q = cu_seqlens_q[s0:]
    idx = (slice(int(cu_q[0]), int(cu_q[-1])),)
    part = dict(q=q[idx], cu_seqlens_q=cu_q - cu_q[0])
    if cu_seqlens_k is None:
        part.update(k=k[s0:], v=v[s0:])
    else:
        cu_k = cu_seqlens_k[s0:]
        keys = slice(int(cu_k[0]), int(cu_k[-1]))
        part.update(k=k[keys], v=v[keys], cu_seqlens_k=cu_k - cu_k[0])
    return idx, part


def oracle_error(out, sliced, kwargs):
    """max |out[idx] - cpu| / max |cpu|, cpu = amkl's CPU backend on the slice (float32)."""
    import amkl
    idx, part = sliced
    ref = amkl.attention(**{n: t.cpu() for n, t in part.items()}, **kwargs).float()
    got = out[idx].float().cpu()
    return float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30))


def sdpa_cudnn_call(q, k, v, causal, gqa):
    """bench/attention_fwd.py's SDPA call on its cuDNN backend, on [B, H, L, d] views of
    [B, L, H, d] inputs. Causal with fewer queries than keys would be top-left aligned there
    (amkl's is bottom-right), so such cases are refused rather than compared."""
    from attention_fwd import sdpa
    if causal and q.shape[1] != k.shape[1]:
        raise ValueError("sdpa_cudnn: causal cases need as many queries as keys")
    qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    cudnn = sdpa("cudnn")
    return lambda: cudnn(qt, kt, vt, causal, gqa)


def worker(cases, rep, sustain_ms, check):
    import torch
    from triton.testing import do_bench
    from gpu_clock import measure_sampled, power_field
    power_field()  # its query now, not in the first case's gap between sustain and measurement
    # Triton's first do_bench sets up its driver helpers (up to seconds with the GPU idle):
    # inside the first case's measurement window, that idle time was in its clock and power
    # samples (126 W against ~650 W in session 40's A/B).
    do_bench(torch.cuda.synchronize, warmup=1, rep=1)
    out, clocks, errors = {}, {}, {}
    for spec in cases:
        fn, flops = make_case(spec)
        if check and hasattr(fn, "oracle_error"):  # an amkl variant, not a peer
            errors[spec] = fn.oracle_error()
        fn()
        torch.cuda.synchronize()
        ms, clocks[spec] = measure_sampled(
            fn, lambda: do_bench(fn, warmup=25, rep=rep, return_mode="median"), sustain_ms)
        out[spec] = flops / (ms * 1e-3) / 1e12
        del fn
        torch.cuda.empty_cache()
    print("RESULT " + json.dumps(out))
    print("CLOCKS " + json.dumps(clocks))
    print("ERRORS " + json.dumps(errors))


def parse_variants(ap, specs):
    """[name, package dir or @peer] of each --variant NAME=PYDIR; at least two."""
    variants = [v.split("=", 1) for v in specs]
    if len(variants) < 2 or any(len(v) != 2 for v in variants):
        ap.error("give at least two --variant NAME=PYDIR")
    return variants


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", action="append", default=[], help="NAME=PYDIR")
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rep", type=int, default=100, help="do_bench rep (ms) per case")
    ap.add_argument("--sustain-ms", type=int, default=0,
                    help="untimed calls for this long before each case's measurement: ~2000 "
                         "measures at the power-capped clock the benchmark's bars are judged "
                         "at; 0 (default) mostly at boost clock (bench/gpu_clock.py)")
    ap.add_argument("--out", default=None, help="write samples and medians as JSON")
    ap.add_argument("--variant-env", action="append", default=[],
                    help="NAME=VAR=VALUE: set VAR for this variant's processes")
    ap.add_argument("--variant-cases", action="append", default=[],
                    help="NAME=CASE+CASE: the cases (of --cases) this variant runs")
    ap.add_argument("--worker-timeout", type=int, default=300,
                    help="seconds one variant's worker may take for its cases of a round; one "
                         "that takes longer (a hung kernel) or fails is dropped from the "
                         "remaining rounds, and the others go on")
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--check", action="store_true", help=argparse.SUPPRESS)  # worker: CPU check
    args = ap.parse_args()
    cases = args.cases.split(",")
    if args.worker:
        worker(cases, args.rep, args.sustain_ms, args.check)
        return 0
    variants = parse_variants(ap, args.variant)
    own = {n: c.split("+") for n, c in (x.split("=", 1) for x in args.variant_cases)}
    for n, cs in own.items():
        if n not in dict(variants) or not set(cs) <= set(cases):
            ap.error(f"--variant-cases {n}: not a variant, or cases not in --cases")
    runs = {name: own.get(name, cases) for name, _ in variants}
    for name, pydir in variants:
        if pydir.startswith("@") and (pydir[1:] not in PEERS or any(
                not c.startswith("softmax:") for c in runs[name])):
            ap.error(f"--variant {name}={pydir}: the peers are "
                     f"{' and '.join('@' + p for p in PEERS)}, for softmax cases (limit it with "
                     "--variant-cases)")
    extra_env = {name: {} for name, _ in variants}
    for x in args.variant_env:
        name, _, assignment = x.partition("=")
        var, eq, value = assignment.partition("=")
        if name not in extra_env or not var or not eq:
            ap.error(f"--variant-env {x}: expected NAME=VAR=VALUE with NAME a variant")
        extra_env[name][var] = value
    samples = {name: {c: [] for c in runs[name]} for name, _ in variants}
    clocks = {name: {c: [] for c in runs[name]} for name, _ in variants}
    errors = {name: {} for name, _ in variants}  # the first round's CPU checks
    header = {"unit": "TFLOP/s (do_bench median, L2 flushed)", "variants": dict(variants),
              "variant_env": extra_env, "rep_ms": args.rep, "sustain_ms": args.sustain_ms,
              "oracle_tol": ORACLE_TOL, "gpu": gpu_name() if args.out else None}
    # Variants whose worker failed or hung, with why: dropped from the rounds after, so that
    # one broken build does not cost the others' measurements (a device call is scarce).
    dropped = {}
    header["dropped"] = dropped
    for r in range(args.rounds):
        # Each round rotates the variants' order and the cases' order: a worker's first case
        # and the variant that runs first in a round come after an idle moment and run at a
        # higher clock (bench/NOTES.md steps 15-16), so no variant or case keeps that place.
        for name, pydir in rotated(variants, r):
            if name in dropped:
                continue
            if pydir.startswith("@"):  # a peer: no amkl package of its own
                env = dict(os.environ, AB_PROVIDER=pydir[1:], **extra_env[name])
            else:
                env = dict(os.environ, PYTHONPATH=os.path.abspath(pydir), **extra_env[name])
            try:
                res = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker",
                                      "--cases", ",".join(rotated(runs[name], r)),
                                      "--rep", str(args.rep),
                                      "--sustain-ms", str(args.sustain_ms)] +
                                     (["--check"] if r == 0 else []),
                                     env=env, capture_output=True, text=True,
                                     timeout=args.worker_timeout)
            except subprocess.TimeoutExpired:
                dropped[name] = f"round {r + 1}: no result within {args.worker_timeout} s"
                print(f"{name}: DROPPED, {dropped[name]}", flush=True)
                continue
            line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
            if res.returncode != 0 or not line:
                dropped[name] = f"round {r + 1}: worker failed (exit {res.returncode})"
                print(f"{name}: DROPPED, {dropped[name]}\n{res.stderr[-2000:]}", flush=True)
                continue
            result = json.loads(line[0][7:])
            for c, tf in result.items():
                samples[name][c].append(tf)
            for x in res.stdout.splitlines():
                if x.startswith("CLOCKS "):
                    for c, clk in json.loads(x[7:]).items():
                        clocks[name][c].append(clk)
                elif x.startswith("ERRORS "):
                    errors[name].update(json.loads(x[7:]))
            print(f"round {r + 1}/{args.rounds} {name}: " +
                  " ".join(f"{c}={tf:.1f}" for c, tf in result.items()), flush=True)
            for _, c in oracle_mismatches({name: errors[name]}) if r == 0 else ():
                print(f"  MISMATCH {name} {c}: relative error {errors[name][c]:.3e}", flush=True)
            if args.out:  # what a run cut off (a device call's time limit) leaves behind
                header["rounds_done"] = r
                with open(args.out, "w") as fh:
                    json.dump(dict(header, partial=True, samples=samples, clocks=clocks,
                                   oracle_error=errors), fh, indent=1)
    names = [n for n, _ in variants]
    medians = medians_over_rounds(samples, names, cases)
    # ratio: the last variant that ran the case against the first
    print(f"{'case':28s} " + " ".join(f"{n:>9s}" for n in names) + "   last/first")
    for c in cases:
        m = medians[c]
        ran = [n for n in names if n in m]
        ratio = f"   {m[ran[-1]] / m[ran[0]]:.3f}" if ran else ""
        print(f"{c:28s} " + " ".join(f"{m[n]:9.1f}" if n in m else f"{'-':>9s}" for n in names) +
              ratio)
    for name, why in dropped.items():
        print(f"DROPPED {name} ({why}): its medians, if any, are over the rounds before")
    report_oracle_errors(errors)
    mhz = {c: {n: median_of(clocks[n].get(c, []), "sm_mhz_median") for n in names}
           for c in cases}
    if any(v is not None for m in mhz.values() for v in m.values()):
        print("median SM MHz while measuring:")
        for c in cases:
            print(f"{c:28s} " + " ".join(f"{mhz[c][n]:9.0f}" if mhz[c][n] is not None
                                         else f"{'-':>9s}" for n in names))
        # At the power cap a kernel's speed is the power it may draw over its energy per
        # FLOP (bench/NOTES.md step 26): GFLOP per joule compares what a clock table cannot.
        print("GFLOP per joule (median TFLOP/s over the median board power):")
        for c in cases:
            print(f"{c:28s} " + " ".join(
                f"{v:9.3f}" if v is not None else f"{'-':>9s}"
                for v in (gflop_per_joule(medians[c].get(n),
                                          median_of(clocks[n].get(c, []), "power_w_median"))
                          for n in names)))
    if args.out:
        header["rounds_done"] = args.rounds
        with open(args.out, "w") as fh:
            json.dump(dict(header, clocks=clocks, samples=samples, medians=medians,
                           oracle_error=errors), fh, indent=1)
        plot(medians, names, os.path.splitext(args.out)[0] + ".png")
    return 1 if dropped else 0


def medians_over_rounds(samples, names, cases):
    """{case: {variant: median over its rounds}}, for the variants with a sample of the case
    (one dropped in round 1, or not running the case, has none)."""
    return {c: {n: sorted(samples[n][c])[len(samples[n][c]) // 2] for n in names
                if samples[n].get(c)} for c in cases}


def oracle_mismatches(errors):
    """The (variant, case) pairs whose CPU-check error is above ORACLE_TOL (or NaN)."""
    return [(n, c) for n, e in errors.items() for c, x in e.items() if not x <= ORACLE_TOL]


def report_oracle_errors(errors):
    """Prints each variant's largest CPU-check error and a MISMATCH line per case above
    ORACLE_TOL."""
    for n, e in errors.items():
        if e:
            print(f"CPU check {n}: max relative error {max(e.values()):.2e} over {len(e)} cases")
    for n, c in oracle_mismatches(errors):
        print(f"MISMATCH {n} {c}: relative error {errors[n][c]:.3e} > {ORACLE_TOL} "
              "(this variant's numbers for the case are not to be used)")


def rotated(seq, r):
    """seq started at its element r (mod its length): round r's order."""
    k = r % len(seq) if seq else 0
    return list(seq[k:]) + list(seq[:k])


def median_of(case_clocks, key):
    """The median over rounds of one of each round's clock-sample medians (gpu_clock.py's
    "sm_mhz_median", "power_w_median"); None without samples."""
    v = sorted(c[key] for c in case_clocks if c and c.get(key) is not None)
    return v[len(v) // 2] if v else None


def gflop_per_joule(tflops, watts):
    """TFLOP/s over W, in GFLOP/J (None where either is missing)."""
    return tflops * 1e3 / watts if tflops and watts else None


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def plot(medians, names, path):
    """Grouped bars: one group per case, one bar per variant (TFLOP/s)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cases = list(medians)
    width = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(cases)), 4.5))
    for j, n in enumerate(names):
        ax.bar([i + j * width for i in range(len(cases))],
               [medians[c].get(n, 0.0) for c in cases], width, label=n)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cases))])
    ax.set_xticklabels(cases, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s")
    ax.set_title("amkl A/B (medians over alternating rounds)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
