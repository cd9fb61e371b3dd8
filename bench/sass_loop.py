#!/usr/bin/env python3
"""One Hopper forward kernel, compiled alone and read statically (no GPU needed).

Compiles a single instantiation of attention_fwd_sm90 (element type, head dim, consumer
warpgroups, activation) from a source tree with ptxas -v, then prints its spills and a summary
of its steady loop: the innermost backward branch whose body issues both S (SS HGMMA) and P V
(RS HGMMA, tnspB), with its instruction count and every local-memory access in it. With
--lines the object is built with -lineinfo and each local access of the whole kernel is shown
with the source line it comes from (what spills, and where). --segments lists the loop's
branches, barriers and shared loads with the instruction count between them (where the mask,
softcap and policy paths lie). bench/NOTES.md step 17 used it on the d = 64 three-warpgroup
kernels and the masked-block path.

  python3 bench/sass_loop.py --d 64 --wg 3 --act Softmax [--src TREE] [--lines] [--segments]
      [--flag -DAMKL_SM90_TRACE ...]
  python3 bench/sass_loop.py --binary LIB.so --function REGEX [--segments]
      another library's kernel instead (e.g. FlashAttention-3's, bench/NOTES.md step 24): every
      sm_90 kernel whose demangled name matches REGEX, read the same way (no compile)
  --stalls START:END (hex, repeatable): a range's instruction count and static stall cycles
      (the stall counts ptxas writes into the control words; step 25 compared FA3's policy and
      issue section with ours this way)
  --path START:END[,START:END...] (hex, repeatable): the instructions of one path through the
      code (the ranges --segments shows between the branches it takes), counted by opcode, with
      how many run on the uniform datapath (U* opcodes: one lane's work, not 32). At the power
      cap a block costs its energy, and its instructions are most of what varies (step 26)
Needs nvcc (CUDA 13), the CUTLASS headers (AMKL_CUTLASS_INCLUDE_DIR or --cutlass), and
cuobjdump / nvdisasm (AMKL_CUDA_TOOLS, the toolkit's, or Triton's bundled copies).
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ONE_KERNEL = """#include "cuda/sm90/fwd_kernel_sm90.h"
using Cfg1 = amkl::cuda::sm90::FwdConfig<{elem}, {d}, {dv}, {wg}>;
template __global__ void amkl::cuda::sm90::attention_fwd_sm90<Cfg1, amkl::Activation::{act},
                                                              {plain}>(
    const __grid_constant__ amkl::cuda::sm90::FwdParams<Cfg1>);
"""

INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LOCAL = re.compile(r"\b(LDL|STL)\b")
LINE = re.compile(r'//## File "([^"]+)", line (\d+)')


def find_tool(name):
    """A CUDA binary tool: in $AMKL_CUDA_TOOLS, on PATH, in the toolkit, or Triton's bundled
    copy (the 2-core machine's toolkit has nvcc but no cuobjdump / nvdisasm; a CI venv's
    Triton has both)."""
    cands = [os.path.join(os.environ.get("AMKL_CUDA_TOOLS", ""), name), shutil.which(name),
             f"/usr/local/cuda/bin/{name}"]
    try:
        import triton  # (only for the path of its bundled tools)
        cands.append(os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin",
                                  name))
    except ImportError:
        pass
    cands += glob.glob(f"/tmp/*/.venv/lib/python3*/site-packages/triton/backends/nvidia/bin/{name}")
    for cand in cands:
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    sys.exit(f"sass_loop: {name} not found (set AMKL_CUDA_TOOLS to a folder that has it)")


def run(cmd, **kw):
    """Runs a tool; its failure ends the script with the tool's message."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"sass_loop: {' '.join(cmd[:2])} failed:\n{r.stderr[-4000:]}")
    return r


def parse_sass(text):
    """[(address, instruction text)] of a cuobjdump -sass / nvdisasm listing."""
    return [(int(m.group(1), 16), m.group(2)) for m in map(INSTR.search, text.splitlines()) if m]


CONTROL = re.compile(r"/\*\s*(0x[0-9a-f]{16})\s*\*/")


def stall_counts(text):
    """{address: stall cycles} of a cuobjdump -sass listing: the 4-bit stall count of each
    instruction's control word (bits 41-44 of its second 64-bit half, printed on the line
    after the instruction). It is the fixed wait ptxas sets before the next instruction
    issues; waits on scoreboards (MUFU, SHFL, LDS results) come on top."""
    out, lines = {}, text.splitlines()
    for line, nxt in zip(lines, lines[1:]):
        m = INSTR.search(line)
        c = CONTROL.search(nxt)
        if m and c and not INSTR.search(nxt):
            out[int(m.group(1), 16)] = (int(c.group(1), 16) >> 41) & 0xF
    return out


def stall_summary(stalls, lo, hi):
    """(instructions, stall cycles) over addresses lo <= a < hi."""
    sel = [c for a, c in stalls.items() if lo <= a < hi]
    return len(sel), sum(sel)


def print_stalls(sass, ranges):
    """Static issue cost of each address range START:END (hex) of the listing."""
    stalls = stall_counts(sass)
    for r in ranges:
        lo, hi = (int(x, 16) for x in r.split(":"))
        n, c = stall_summary(stalls, lo, hi)
        print(f"  {lo:x}-{hi:x}: {n} instructions, {c} stall cycles")


def opcode(text):
    """The opcode of an instruction's text, without its guard predicate and modifiers."""
    return re.sub(r"^@!?U?P\w+\s+", "", text).split()[0].split(".")[0]


def path_mix(ins, ranges):
    """{opcode: count} over the instructions at addresses in any of the ranges (lo <= a < hi)."""
    mix = {}
    for a, t in ins:
        if any(lo <= a < hi for lo, hi in ranges):
            mix[opcode(t)] = mix.get(opcode(t), 0) + 1
    return mix


def print_paths(sass, specs):
    """Each path's instruction count and opcode mix (see --path)."""
    ins = parse_sass(sass)
    for spec in specs:
        ranges = [tuple(int(x, 16) for x in r.split(":")) for r in spec.split(",")]
        mix = path_mix(ins, ranges)
        n, u = sum(mix.values()), sum(c for o, c in mix.items() if o.startswith("U"))
        print(f"  path {spec}: {n} instructions, {n - u} vector, {u} uniform")
        print("    " + ", ".join(f"{o} {c}" for o, c in sorted(mix.items(), key=lambda x: -x[1])))


def steady_loop(ins):
    """The innermost backward branch whose body issues both S and P V: [(address, text)]."""
    index = {a: i for i, (a, _) in enumerate(ins)}
    best = None
    for i, (a, t) in enumerate(ins):
        m = re.search(r"BRA (0x[0-9a-f]+)", t)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target >= a or target not in index:
            continue
        body = ins[index[target]:i + 1]
        rs = any("HGMMA" in x and "tnspB" in x for _, x in body)
        ss = any("HGMMA" in x and "tnspB" not in x for _, x in body)
        if rs and ss and (best is None or len(body) < len(best)):
            best = body
    return best


def loop_summary(body):
    """Counts of a loop body: instructions, local accesses, MUFU, HGMMA."""
    return {
        "instructions": len(body),
        "local": sum(bool(LOCAL.search(t)) for _, t in body),
        "mufu": sum("MUFU" in t for _, t in body),
        "hgmma": sum("HGMMA" in t for _, t in body),
    }


def segments(body):
    """(address, text, instructions since the previous mark) at branches, barriers, LDS."""
    out, prev = [], body[0][0]
    for a, t in body:
        if re.search(r"BRA|BSSY|BSYNC|DEPBAR|BAR\.|LDS", t):
            out.append((a, t, (a - prev) // 16))
            prev = a
    return out


def local_lines(listing):
    """[(address, text, (file, line))] of the local accesses of an nvdisasm -g listing."""
    cur, out = None, []
    for line in listing.splitlines():
        m = LINE.search(line)
        if m:
            cur = (os.path.basename(m.group(1)), int(m.group(2)))
            continue
        m = INSTR.search(line)
        if m and LOCAL.search(m.group(2)):
            out.append((int(m.group(1), 16), m.group(2), cur))
    return out


def spills(ptxas_log):
    """(stack, spill stores, spill loads) bytes of the kernel in a ptxas -v log."""
    m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
                  ptxas_log[ptxas_log.find("attention_fwd_sm90"):])
    return tuple(int(x) for x in m.groups()) if m else None


def print_loop(body, show_segments):
    """The steady loop's summary, its local accesses and (show_segments) its branch structure."""
    if not body:
        print("no steady loop found")
        return
    s = loop_summary(body)
    print(f"steady loop {body[0][0]:x}-{body[-1][0]:x}: {s['instructions']} instructions, "
          f"{s['local']} local accesses, {s['mufu']} MUFU, {s['hgmma']} HGMMA")
    for a, t in body:
        if LOCAL.search(t):
            print(f"  {a:x} {t}")
    if show_segments:
        for a, t, n in segments(body):
            print(f"  {a:x} {t}  (+{n})")


def binary_kernels(binary, pattern, work):
    """[(demangled name, SASS text)] of the sm_90 kernels of a binary (a .so, an object or a
    cubin) whose demangled names match the regex pattern."""
    run([find_tool("cuobjdump"), "-xelf", "all", os.path.abspath(binary)], cwd=work)
    cubins = sorted(glob.glob(os.path.join(work, "*sm_90*.cubin"))) or [binary]
    out = []
    for cubin in cubins:
        text = run([find_tool("cuobjdump"), "-sass", cubin]).stdout
        parts = re.split(r"\n\s*Function : ", text)[1:]
        names = [part.split("\n", 1)[0].strip() for part in parts]
        # One c++filt for the whole cubin (it demangles a name per input line).
        demangled = run(["c++filt"], input="\n".join(names)).stdout.splitlines() if names else []
        for part, name, pretty in zip(parts, names, demangled):
            if re.search(pattern, pretty or name):
                out.append((pretty or name, part))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=ROOT, help="source tree (default: this one)")
    ap.add_argument("--elem", default="cutlass::bfloat16_t")
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--dv", type=int, default=None, help="default: --d")
    ap.add_argument("--wg", type=int, default=2, help="consumer warpgroups (2, or 3 for d = 64)")
    ap.add_argument("--act", default="Softmax", help="amkl::Activation enumerator")
    ap.add_argument("--plain", action="store_true",
                    help="the plain kernel (fwd_plain.h: softcap, left window, packing out)")
    ap.add_argument("--cutlass", default=os.environ.get("AMKL_CUTLASS_INCLUDE_DIR"))
    ap.add_argument("--flag", action="append", default=[], help="extra nvcc flag")
    ap.add_argument("--lines", action="store_true", help="local accesses with source lines")
    ap.add_argument("--segments", action="store_true", help="the loop's branch structure")
    ap.add_argument("--keep", help="directory to keep the object in")
    ap.add_argument("--binary", help="read this binary's kernels instead of compiling one")
    ap.add_argument("--function", default=".", help="with --binary: a regex on the demangled "
                                                    "kernel names")
    ap.add_argument("--stalls", action="append", default=[], metavar="START:END",
                    help="hex address range: its instructions and static stall cycles")
    ap.add_argument("--path", action="append", default=[], metavar="START:END,...",
                    help="hex address ranges of one path: its instructions by opcode")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="sass_loop_")
    os.makedirs(work, exist_ok=True)
    if args.binary:
        kernels = binary_kernels(args.binary, args.function, work)
        if not kernels:
            sys.exit(f"sass_loop: no sm_90 kernel of {args.binary} matches {args.function!r}")
        for name, sass in kernels:
            print(name[:400])
            print_loop(steady_loop(parse_sass(sass)), args.segments)
            print_stalls(sass, args.stalls)
            print_paths(sass, args.path)
        return
    if not args.cutlass:
        sys.exit("sass_loop: set AMKL_CUTLASS_INCLUDE_DIR or --cutlass")
    cu, obj = os.path.join(work, "one.cu"), os.path.join(work, "one.o")
    with open(cu, "w") as f:
        f.write(ONE_KERNEL.format(elem=args.elem, d=args.d, dv=args.dv or args.d, wg=args.wg,
                                  act=args.act, plain=str(args.plain).lower()))
    cmd = [find_tool("nvcc"), "-DAMKL_WITH_CUDA=1", f"-I{args.src}/include", f"-I{args.src}/src",
           f"-isystem={args.cutlass}", "-O3", "-DNDEBUG", "-gencode=arch=compute_90a,code=sm_90a",
           "--expt-relaxed-constexpr", "--expt-extended-lambda", "-std=c++17", "-Xptxas=-v",
           "-diag-suppress", "3357,177,550", *args.flag, *(["-lineinfo"] if args.lines else []),
           "-c", cu, "-o", obj]
    build = run(cmd)
    # ptxas's own warnings first: a serialized WGMMA pipeline (C7510, C7515, ...) is only
    # said there, and it costs more than any count below shows.
    for line in build.stderr.splitlines():
        if "warning" in line.lower():
            print(line)
    sp = spills(build.stderr)
    print(f"{args.elem} d={args.d} wg={args.wg} {args.act}: stack / spill stores / loads "
          f"{sp[0]} / {sp[1]} / {sp[2]} B" if sp else "no ptxas summary found")
    sass = run([find_tool("cuobjdump"), "-sass", obj]).stdout
    print_loop(steady_loop(parse_sass(sass)), args.segments)
    print_stalls(sass, args.stalls)
    print_paths(sass, args.path)
    if args.lines:
        run([find_tool("cuobjdump"), "-xelf", "all", obj], cwd=work)
        cubin = glob.glob(os.path.join(work, "*.cubin"))[0]
        listing = run([find_tool("nvdisasm"), "-g", "-c", cubin]).stdout
        print("local accesses of the kernel (address, instruction, source line):")
        for a, t, where in local_lines(listing):
            print(f"  {a:x} {t[:40]:40s} {where[0]}:{where[1]}" if where else f"  {a:x} {t}")


if __name__ == "__main__":
    main()
