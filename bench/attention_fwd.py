#!/usr/bin/env python3
"""Forward attention benchmark (issue 3 section 5): amkl's Hopper kernel against PyTorch SDPA
(cuDNN and flash backends), FlexAttention, FlashAttention-3 where it is installed (bench/fa3_peer.py;
softmax only: on the GDPA rows its jagged softmax on the same tokens, as a reference) and a naive
compiled PyTorch GDPA, in one run on the same inputs. Medians of triton.testing.do_bench (which flushes L2 between repetitions, so every
repetition reads its inputs from HBM). TFLOP/s = 4*H*d*sum(Lq*Lk) (causal: half; jagged: real
tokens only), the same count for every provider, so ratios are speed ratios. amkl's jagged
rows run with validate_offsets=False (no host check of the offsets; the peers do none), and
again as "amkl_validated" with the default host check. Each measurement follows 1 s of untimed
calls (the run's first 15 s, and that first measurement is taken twice, the second reported),
so every provider is measured at the clock the 700 W power cap
leaves it (after even a few milliseconds of idle, the first ~0.3 s of calls run at a higher
clock), and records that clock, its power, and its cycles per call (bench/gpu_clock.py,
bench/NOTES.md steps 15-16).

Usage: python3 bench/attention_fwd.py [--short] [--out DIR]
Writes DIR/attention_fwd_<gpu>.json (raw samples, GPU, clocks, versions) and a PNG plot, <gpu>
being the GPU the run measured (h100, h200, or its name in lower case).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

# amkl from the environment first (PYTHONPATH: e.g. a package built by bench/ab_build.sh),
# else this checkout's python/ (session 8 lost a benchmark run to the checkout's package, which
# had no _C.so, shadowing the carried build named on PYTHONPATH).
try:
    import amkl
except ImportError:
    sys.modules.pop("amkl", None)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    try:
        import amkl
    except Exception as e:  # noqa: BLE001
        amkl = None
        AMKL_IMPORT_ERROR = repr(e)
except Exception as e:  # noqa: BLE001
    amkl = None
    AMKL_IMPORT_ERROR = repr(e)

from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_clock import measure_sampled, power_field  # noqa: E402
import fa3_peer  # noqa: E402

ACTIVATIONS = ["raw", "gelu", "gelu_approx", "fast_gelu", "leaky_relu", "relu", "fast_gelu_bf16",
               "silu", "fast_silu", "hardswish", "relu_square", "gelu_taylor"]


def bench(fn, warmup, rep, sustain_ms):
    """Median ms and the raw quantiles of one callable, with the SM clock and power while it
    ran (the H200 holds its clock down at the 700 W cap in runs this long, by an amount that
    depends on the kernel: bench/gpu_clock.py) and the median's cycles at the median clock.
    sustain_ms of untimed calls first, so that the measurement does not start with the ~0.3 s
    of higher clock that follows even a short idle moment."""
    fn()
    torch.cuda.synchronize()
    q, clock = measure_sampled(
        fn, lambda: do_bench(fn, warmup=warmup, rep=rep, quantiles=[0.5, 0.2, 0.8],
                             return_mode="median"), sustain_ms)
    r = {"ms": q[0], "p20": q[1], "p80": q[2], "clock": clock}
    if clock is not None:
        r["mcycles"] = q[0] * clock["sm_mhz_median"] * 1e-3
    return r


def run_provider(rows, row, name, fn, flops, args):
    # The run's first measurement sustains first_sustain_ms: on a GPU that idled before the run
    # 1 s was not enough (session 14: the first row read 613 TFLOP/s at 1965 MHz, the same
    # kernel 557 at 1740 MHz in another run), nor was 5 s on a freshly started machine (session
    # 22: 619 at 1965 MHz, 561 at 1740 MHz in the next run on the same machine), nor 15 s
    # (session 23, an H100 just started: 1965 MHz at a 563 W median, where the next provider
    # ran at 1710 MHz and 690 W). So that first measurement is also taken twice, and the first
    # pass is kept in the JSON beside the reported second (`first_pass`).
    first = not rows and not row["providers"]
    sustain_ms = max(args.sustain_ms, args.first_sustain_ms) if first else args.sustain_ms
    try:
        r = bench(fn, args.warmup, args.rep, sustain_ms)
        if first and sustain_ms > 0:
            r = dict(bench(fn, args.warmup, args.rep, args.sustain_ms), first_pass=r)
        r["tflops"] = flops / (r["ms"] * 1e-3) / 1e12
    except Exception as e:  # noqa: BLE001 - record every failure, keep going
        r = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
    row["providers"][name] = r
    torch.cuda.empty_cache()


def sdpa(backend):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    be = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[backend]

    def f(q, k, v, causal, gqa=False):
        with sdpa_kernel([be]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
    return f


def load_fa3(args):
    """FA3's interface module, or None (the reason goes into the run's environment record)."""
    if args.no_fa3:
        return None
    try:
        fa3 = fa3_peer.load()
        _SAVE.setdefault("env", {})["fa3"] = fa3.__file__
        return fa3
    except ImportError as e:
        _SAVE.setdefault("env", {})["fa3"] = str(e)
        print(f"no FA3 peer: {e}", flush=True)
        return None


def softmax_rows(args, rows):
    shapes = [  # (B, H, Hkv, L, d, causal)
        (8, 16, 16, 2048, 128, False), (8, 16, 16, 2048, 128, True),
        (2, 16, 16, 8192, 128, False), (2, 16, 16, 8192, 128, True),
        (16, 16, 16, 1024, 128, False), (16, 16, 16, 1024, 128, True),
        (32, 16, 16, 512, 128, False), (32, 16, 16, 512, 128, True),
        (4, 16, 16, 4096, 64, False), (4, 16, 16, 2048, 256, False),
        (2, 32, 8, 4096, 128, False), (2, 32, 8, 4096, 128, True),
    ]
    cudnn, flash = sdpa("cudnn"), sdpa("flash")
    fa3 = load_fa3(args)
    flex = None
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        flex = torch.compile(flex_attention, dynamic=False)
    except Exception:  # noqa: BLE001
        pass
    for (B, H, Hkv, L, d, causal) in shapes:
        q = torch.randn(B, L, H, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, L, Hkv, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, L, Hkv, d, device="cuda", dtype=torch.bfloat16)
        flops = 4 * B * H * d * L * L * (0.5 if causal else 1.0)
        row = {"kind": "softmax", "B": B, "H": H, "H_kv": Hkv, "L": L, "d": d, "causal": causal,
               "flops": flops, "providers": {}}
        qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        gqa = H != Hkv
        if amkl is not None:
            run_provider(rows, row, "amkl", lambda: amkl.attention(q, k, v, causal=causal),
                         flops, args)
        run_provider(rows, row, "sdpa_cudnn", lambda: cudnn(qt, kt, vt, causal, gqa), flops, args)
        run_provider(rows, row, "sdpa_flash", lambda: flash(qt, kt, vt, causal, gqa), flops, args)
        if fa3 is not None:
            call = fa3_peer.dense_call(fa3, q, k, v, causal)
            run_provider(rows, row, "fa3", call, flops, args)
            if "tflops" in row["providers"]["fa3"]:  # a peer of unknown build: check it once
                ref = cudnn(qt, kt, vt, causal, gqa).transpose(1, 2)
                row["providers"]["fa3"]["max_abs_diff_vs_cudnn"] = float(
                    (call().float() - ref.float()).abs().max())
        if flex is not None and (B, L, d) == (8, 2048, 128) and not args.no_flex:
            try:
                bm = None
                if causal:
                    bm = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, L, L)
                run_provider(rows, row, "flex", lambda: flex(qt, kt, vt, block_mask=bm,
                                                             enable_gqa=gqa), flops, args)
            except Exception as e:  # noqa: BLE001
                row["providers"]["flex"] = {"error": repr(e)[:200]}
        rows.append(row)
        print_row(row)
        save(rows)
        del q, k, v, qt, kt, vt


def jagged_lengths(B, L, fill, gen):
    if fill >= 0.5:
        low, high = int((2 * fill - 1) * L), L
    else:
        low, high = 1, int(2 * fill * L)
    low = max(low, 1)
    return torch.randint(low, high + 1, (B,), generator=gen)


def naive_gdpa(q, k, v):
    # q: [B, Lq, H, d] (padded), k/v: [B, Lk, H, d]
    s = torch.einsum("bqhd,bkhd->bhqk", q, k)
    p = F.gelu(s, approximate="tanh")
    return torch.einsum("bhqk,bkhd->bqhd", p, v)


def gdpa_rows(args, rows):
    gen = torch.Generator().manual_seed(2025)
    naive = torch.compile(naive_gdpa, dynamic=True) if not args.no_naive else None
    cudnn = sdpa("cudnn")
    fa3 = load_fa3(args)
    B, H, d = 1152, 4, 128
    cases = [(L, L, 1.0) for L in (256, 512, 1024, 2048)]
    cases += [(L, L, 0.5) for L in (256, 512, 1024, 2048)]
    cases += [(512, 256, 1.0), (2048, 256, 1.0)]  # cross attention, short KV
    for (Lq, Lk, fill) in cases:
        lens = jagged_lengths(B, Lq, fill, gen)
        cu = torch.zeros(B + 1, dtype=torch.int32)
        cu[1:] = torch.cumsum(lens, 0)
        T = int(cu[-1])
        cu = cu.cuda()
        q = torch.randn(T, H, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, Lk, H, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, Lk, H, d, device="cuda", dtype=torch.bfloat16)
        flops = 4 * H * d * float((lens.double() * Lk).sum())
        row = {"kind": "gdpa", "activation": "fast_gelu", "B": B, "H": H, "d": d, "Lq_max": Lq,
               "Lk": Lk, "fill": fill, "real_tokens": T, "flops": flops, "providers": {}}
        if amkl is not None:
            # "amkl": validate_offsets=False, as the peers (which never check offsets) and a
            # CUDA-graph call run; "amkl_validated": the default call, whose host check copies
            # cu_seqlens to the host and syncs the stream every call (bench/NOTES.md step 9).
            for name, validate in (("amkl", False), ("amkl_validated", True)):
                run_provider(rows, row, name, lambda validate=validate: amkl.attention(
                    q, k, v, activation="fast_gelu", cu_seqlens_q=cu, max_seqlen_q=Lq,
                    validate_offsets=validate), flops, args)
        # Peers run dense (padded) on the same data: the flop count stays the real tokens'.
        qd = torch.zeros(B, Lq, H, d, device="cuda", dtype=torch.bfloat16)
        if fill == 1.0 and T == B * Lq:
            qd = q.view(B, Lq, H, d)
        if naive is not None and B * H * Lq * Lk * 2 * 2 < 80e9:
            run_provider(rows, row, "naive_compiled_gdpa", lambda: naive(qd, k, v), flops, args)
        run_provider(rows, row, "sdpa_cudnn_softmax_dense",
                     lambda: cudnn(qd.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                   False), flops, args)
        if fa3 is not None:
            # FA3's jagged softmax on the same real tokens (KV as B sequences of Lk): what a
            # softmax kernel does with this batch, beside amkl's GDPA (a reference, no bar).
            cu_k = (torch.arange(B + 1, dtype=torch.int32) * Lk).cuda()
            run_provider(rows, row, "fa3_softmax_jagged", fa3_peer.varlen_call(
                fa3, q, k.view(B * Lk, H, d), v.view(B * Lk, H, d), cu, cu_k, Lq, Lk),
                flops, args)
        rows.append(row)
        print_row(row)
        save(rows)
        del q, k, v, qd
    # Every pointwise activation at one shape, against fast_gelu.
    if amkl is None:
        return
    Lq = Lk = 1024
    lens = torch.full((B,), Lq)
    cu = (torch.arange(B + 1, dtype=torch.int32) * Lq).cuda()
    q = torch.randn(B * Lq, H, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, Lk, H, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, Lk, H, d, device="cuda", dtype=torch.bfloat16)
    flops = 4 * H * d * float((lens.double() * Lk).sum())
    row = {"kind": "activations", "B": B, "H": H, "d": d, "Lq_max": Lq, "Lk": Lk, "fill": 1.0,
           "flops": flops, "providers": {}}
    for act in ACTIVATIONS + ["softmax"]:
        run_provider(rows, row, f"amkl_{act}", lambda: amkl.attention(
            q, k, v, activation=act, cu_seqlens_q=cu, max_seqlen_q=Lq, validate_offsets=False),
            flops, args)
    rows.append(row)
    print_row(row)


_SAVE = {}


def gpu_tag(gpu_name):
    """A short file-name tag for the GPU a run measured: "NVIDIA H100 80GB HBM3" -> "h100",
    "NVIDIA H200" -> "h200"; any other name in lower case with non-alphanumerics as '_'."""
    m = re.search(r"\b(H100|H200)\b", gpu_name)
    return m.group(1).lower() if m else re.sub(r"[^a-z0-9]+", "_", gpu_name.lower()).strip("_")


def result_path(ext):
    """DIR/attention_fwd_<gpu>.<ext>: where this run's JSON and plot go."""
    return os.path.join(_SAVE["out"], f"attention_fwd_{gpu_tag(_SAVE['env']['gpu'])}.{ext}")


def save(rows):
    """Writes the JSON after every row, so a run stopped early still leaves its results."""
    if not _SAVE:
        return
    res = {"env": _SAVE["env"], "args": _SAVE["args"], "rows": rows,
           "seconds": time.time() - _SAVE["t0"]}
    with open(result_path("json"), "w") as f:
        json.dump(res, f, indent=1)


def print_row(row):
    desc = {k: row[k] for k in row if k not in ("providers", "flops")}
    parts = []
    for name, r in row["providers"].items():
        if "tflops" not in r:
            parts.append(f"{name}=ERR({r['error'][:60]})")
        elif r.get("clock"):
            parts.append(f"{name}={r['tflops']:.0f} ({r['clock']['sm_mhz_median']:.0f} MHz)")
        else:
            parts.append(f"{name}={r['tflops']:.0f}")
    print(json.dumps(desc), " | ".join(parts), flush=True)


def environment():
    env = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
           "time": time.strftime("%Y-%m-%d %H:%M:%S"),
           "timing": "triton.testing.do_bench median (L2 flushed between repetitions); per "
                     "provider the SM clock and power while it ran (nvidia-smi, 20 ms)"}
    try:
        import triton
        env["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        pass
    try:
        env["clocks"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,clocks.max.sm,power.draw,temperature.gpu",
             "--format=csv"], capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001
        env["clocks"] = repr(e)
    if amkl is None:
        env["amkl"] = "import failed: " + AMKL_IMPORT_ERROR
    else:
        env["amkl_gpu"] = amkl.gpu_description(0)
    return env


def plot(rows, path, gpu_name):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001
        return
    groups = [r for r in rows if r["kind"] in ("softmax", "gdpa")]
    labels, provs = [], []
    for r in groups:
        if r["kind"] == "softmax":
            labels.append(f"sm B{r['B']} H{r['H']}/{r['H_kv']} L{r['L']} d{r['d']}{' c' if r['causal'] else ''}")
        else:
            labels.append(f"gdpa Lq{r['Lq_max']} Lk{r['Lk']} fill{r['fill']}")
        for p in r["providers"]:
            if p not in provs:
                provs.append(p)
    fig, ax = plt.subplots(figsize=(max(10, len(labels) * 0.9), 6))
    w = 0.8 / max(1, len(provs))
    for i, p in enumerate(provs):
        ys = [r["providers"].get(p, {}).get("tflops", 0) for r in groups]
        ax.bar([x + i * w for x in range(len(groups))], ys, w, label=p)
    ax.set_xticks([x + 0.4 - w / 2 for x in range(len(groups))])
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s (forward)")
    ax.set_title(f"attention forward, bf16, {gpu_name}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--short", action="store_true", help="fewer repetitions")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    ap.add_argument("--only", choices=["softmax", "gdpa"], default=None)
    ap.add_argument("--no-flex", action="store_true")
    ap.add_argument("--no-naive", action="store_true")
    ap.add_argument("--no-fa3", action="store_true", help="skip FlashAttention-3 even if found")
    ap.add_argument("--sustain-ms", type=int, default=None,
                    help="untimed calls before each measurement (default 1000, --short 0): every "
                         "provider measured at the power-capped clock (bench/gpu_clock.py)")
    ap.add_argument("--first-sustain-ms", type=int, default=None,
                    help="untimed calls before the run's first measurement (default 15000, "
                         "--short 0): an idle GPU takes seconds to reach the cap; that "
                         "measurement is then taken again and the second reported")
    args = ap.parse_args()
    args.warmup, args.rep = (25, 100) if args.short else (100, 1000)
    if args.sustain_ms is None:
        args.sustain_ms = 0 if args.short else 1000
    if args.first_sustain_ms is None:
        args.first_sustain_ms = 0 if args.short else 15000
    torch.manual_seed(2025)
    power_field()  # nvidia-smi's query once, before the first measurement (gpu_clock.py)
    rows = []
    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    _SAVE.update(env=environment(), args=vars(args), t0=t0, out=args.out)
    if args.only in (None, "softmax"):
        softmax_rows(args, rows)
    if args.only in (None, "gdpa"):
        gdpa_rows(args, rows)
    save(rows)
    plot(rows, result_path("png"), _SAVE["env"]["gpu"])
    print(f"done in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
