#!/usr/bin/env bash
# What the GPU machine's calls need that a fresh checkout does not have (.carry is git-ignored
# and does not outlive a checkout), on both ends of the carry.
#   bench/carry.sh prepare   (CPU machine, after scripts/setup made .venv)
#       .carry/cutlass/include: the CUTLASS / CuTe headers of the venv's nvidia-cutlass (the
#         default of bench/ab_build.sh, bench/sass_loop.py and scripts/gpu-check);
#       .carry/fa3.tar.xz: FlashAttention-3's forward (the `fa3-fwd` 0.0.3 wheel from PyPI,
#         bf16; bench/fa3_peer.py), ~10 MB, for the benchmark's FA3 column.
#   bench/carry.sh unpack DIR...   (GPU machine, repository root; DIR: folders of
#       bench/ab_patches.sh's output) every DIR/pk_NAME.tar.xz into /tmp/pk/NAME (for
#       ab_compare.py --variant NAME=/tmp/pk/NAME), every DIR/amkl_tests_NAME.xz into
#       /tmp/amkl_tests_NAME (for scripts/gpu-check --tests), .carry/fa3.tar.xz into /tmp/fa3
#       (export AMKL_FA3_PATH=/tmp/fa3 for the FA3 peer).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case "${1:-}" in
  prepare)
    py=$root/.venv/bin/python
    [ -x "$py" ] || { echo "carry.sh: no .venv; run scripts/setup first"; exit 1; }
    src=$("$py" -c 'import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), "source", "include"))')
    [ -d "$src/cute" ] || { echo "carry.sh: no CUTLASS headers at $src"; exit 1; }
    mkdir -p "$root/.carry/cutlass"
    rm -rf "$root/.carry/cutlass/include" && cp -r "$src" "$root/.carry/cutlass/include"
    echo "carry.sh: .carry/cutlass/include ($(du -sh "$root/.carry/cutlass/include" | cut -f1))"
    if [ ! -f "$root/.carry/fa3.tar.xz" ]; then
      tmp=$(mktemp -d)
      "$py" -m pip download -q --no-deps fa3-fwd==0.0.3 -d "$tmp"
      (cd "$tmp" && "$py" -m zipfile -e fa3_fwd-*.whl x && tar -C x -cf - fa3_fwd fa3_fwd_config.py \
        fa3_fwd_interface.py | xz -T0 -6 > "$root/.carry/fa3.tar.xz")
      rm -rf "$tmp"
    fi
    echo "carry.sh: .carry/fa3.tar.xz ($(du -sh "$root/.carry/fa3.tar.xz" | cut -f1))"
    ;;
  unpack)
    shift
    nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader || true
    mkdir -p /tmp/pk
    for dir in "$@"; do
      for t in "$dir"/pk_*.tar.xz; do
        [ -f "$t" ] || continue
        tar -C /tmp/pk -xJf "$t"
        echo "carry.sh: /tmp/pk/$(basename "$t" .tar.xz | cut -c4-)"
      done
      for t in "$dir"/amkl_tests_*.xz; do
        [ -f "$t" ] || continue
        xz -dc "$t" > "/tmp/$(basename "$t" .xz)"
        chmod +x "/tmp/$(basename "$t" .xz)"
        echo "carry.sh: /tmp/$(basename "$t" .xz)"
      done
    done
    if [ -f "$root/.carry/fa3.tar.xz" ]; then
      mkdir -p /tmp/fa3 && tar -C /tmp/fa3 -xJf "$root/.carry/fa3.tar.xz"
      echo "carry.sh: FA3 in /tmp/fa3 (AMKL_FA3_PATH=/tmp/fa3)"
    fi
    ;;
  *)
    sed -n '2,/^set -/{/^#/p}' "${BASH_SOURCE[0]}"
    exit 2
    ;;
esac
