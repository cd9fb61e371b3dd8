#!/usr/bin/env bash
# Builds the packages (and, on request, the test binaries) of an A/B between HEAD and HEAD with
# patches of bench/patches applied, on the CPU machine, packed small for the GPU machine's carry.
#   bench/ab_patches.sh [--dry-run] OUT NAME=[PATCH[+PATCH...]][:FLAGS] ...
# e.g. bench/ab_patches.sh .carry/s50 head= ef=early-epilogue-factors ov=o-in-k-stage \
#        efov=early-epilogue-factors+o-in-k-stage ovtrace=o-in-k-stage:-DAMKL_SM90_TRACE
# PATCH: a file of bench/patches without its .patch. Each variant is HEAD's committed tree with
# its patches applied in order, built with every measurement macro they test (each
# `#if defined(AMKL_...)` or `#ifdef AMKL_...` on an added line) defined, and FLAGS (more
# nvcc flags, e.g. the trace build's macro for bench/trace_tiles.py).
# Writes OUT/pk_NAME.tar.xz: a bf16 d=128 package (bench/ab_build.sh with
# -DAMKL_SM90_MEASURE_BF16_D128_ONLY=ON, ~100 s each on 2 cores; the whole package with
# AB_FULL=1, ~350 s), stripped. AB_TESTS=NAME,NAME: also OUT/amkl_tests_NAME.xz, that
# variant's stripped test binary for `scripts/gpu-check --tests` (~8 min each on 2 cores).
# On the GPU machine: bench/carry.sh unpack OUT, then
# python3 bench/ab_compare.py --variant NAME=/tmp/pk/NAME ...
# --dry-run: only apply each variant's patches and print its flags (do they still apply?).
set -euo pipefail
dry=0
[ "${1:-}" = --dry-run ] && { dry=1; shift; }
[ $# -ge 2 ] || { sed -n '2,/^set -/{/^#/p}' "$0"; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
cutlass=${AMKL_CUTLASS_INCLUDE_DIR:-$root/.carry/cutlass/include}
if [ $dry = 0 ]; then
  [ -d "$cutlass/cute" ] || { echo "ab_patches: no CUTLASS headers at $cutlass (AMKL_CUTLASS_INCLUDE_DIR)"; exit 1; }
  export AMKL_CUTLASS_INCLUDE_DIR=$cutlass
  # The packages build against the venv's torch (the GPU machine's version, scripts/setup).
  if [ -x "$root/.venv/bin/python3" ]; then export PATH="$root/.venv/bin:$PATH"; fi
  python3 -c 'import torch' 2>/dev/null || { echo "ab_patches: python3 has no torch; run scripts/setup"; exit 1; }
fi
tests=",${AB_TESTS:-},"
names=","
# Check every variant before building any: a typo should not cost the builds before it.
for spec in "$@"; do
  name=${spec%%=*} patches=${spec#*=}
  patches=${patches%%:*}
  [[ "$spec" == *=* && "$name" =~ ^[A-Za-z0-9_]+$ ]] || { echo "ab_patches: bad variant '$spec' (NAME=PATCH+PATCH)"; exit 2; }
  for p in ${patches//+/ }; do
    [ -f "$root/bench/patches/$p.patch" ] || { echo "ab_patches: no bench/patches/$p.patch"; exit 2; }
  done
  names="$names$name,"
done
for t in $(echo "${AB_TESTS:-}" | tr , " "); do
  [[ "$names" == *",$t,"* ]] || { echo "ab_patches: AB_TESTS names $t, which is not a variant"; exit 2; }
done
start=$(date +%s)
# The variants' trees, packages and test builds (kept for their logs; removed after a dry run).
work=$(mktemp -d "${TMPDIR:-/tmp}/ab-patches.XXXXXX")
if [ $dry = 1 ]; then trap 'rm -rf "$work"' EXIT; fi
for spec in "$@"; do
  name=${spec%%=*} patches=${spec#*=} flags=""
  if [[ "$patches" == *:* ]]; then flags=${patches#*:} patches=${patches%%:*}; fi
  tree=$work/src-$name
  rm -rf "$tree" && mkdir -p "$tree"
  git -C "$root" archive HEAD | tar -C "$tree" -xf -
  for p in ${patches//+/ }; do
    (cd "$tree" && git apply "$root/bench/patches/$p.patch") || { echo "ab_patches: $p.patch does not apply for $name"; exit 1; }
    for m in $(grep -E '^\+#if(def| defined\()' "$root/bench/patches/$p.patch" \
               | grep -oE 'AMKL_[A-Z0-9_]+' | sort -u); do
      flags="$flags -D$m"
    done
  done
  flags=${flags# }
  echo "== $name: ${patches:-HEAD} ${flags:+($flags)} [$(( $(date +%s) - start )) s]"
  [ $dry = 1 ] && continue
  (cd "$tree" && tar -cf "$tree.tar" .)
  if [ "${AB_FULL:-0}" = 1 ]; then
    JOBS=${JOBS:-$(nproc)} bash "$root/bench/ab_build.sh" "$work/pk" "$name" "$tree.tar" "$flags"
  else
    AB_CMAKE_ARGS=-DAMKL_SM90_MEASURE_BF16_D128_ONLY=ON JOBS=${JOBS:-$(nproc)} \
      bash "$root/bench/ab_build.sh" "$work/pk" "$name" "$tree.tar" "$flags"
  fi
  strip --strip-unneeded "$work/pk"/"$name"/amkl/_C*.so
  tar -C "$work/pk" -cf - "$name" | xz -T0 -6 > "$out/pk_$name.tar.xz"
  if [[ "$tests" == *",$name,"* ]]; then
    echo "== $name: test binary [$(( $(date +%s) - start )) s]"
    build=$work/tests-$name
    cmake -S "$tree" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAMKL_CUDA=ON \
      -DAMKL_BUILD_PYTHON=OFF -DAMKL_BUILD_TESTS=ON -DAMKL_BUILD_TOOLS=OFF -DAMKL_BUILD_BENCH=OFF \
      -DAMKL_CUTLASS_INCLUDE_DIR="$cutlass" -DCMAKE_CUDA_FLAGS="$flags" > "$build.configure.log" 2>&1 \
      || { tail -20 "$build.configure.log"; exit 1; }
    cmake --build "$build" -j "${JOBS:-$(nproc)}" --target amkl_tests > "$build.log" 2>&1 \
      || { grep -m20 error "$build.log"; exit 1; }
    strip --strip-unneeded -o "$build/amkl_tests" "$build/tests/cpp/amkl_tests"
    xz -T0 -6 -c "$build/amkl_tests" > "$out/amkl_tests_$name.xz"
    echo "   ptxas stack frames: $build.log"
  fi
done
echo "ab_patches: done in $(( $(date +%s) - start )) s (work files: $work):"
ls -l "$out"
