#!/usr/bin/env bash
# Builds amkl's PyTorch package once per variant for bench/ab_compare.py.
#   bench/ab_build.sh DEST NAME SOURCE [CUDA_FLAGS]
# SOURCE: "." for this working tree, or a tarball of another tree (git archive -o base.tar HEAD).
# CUDA_FLAGS: extra nvcc flags, e.g. -DAMKL_SM90_Q_STAGES=1 (measurement macros, bench/NOTES.md).
# AB_CMAKE_ARGS (environment): extra cmake arguments, e.g. -DAMKL_SM90_MEASURE_BF16_D128_ONLY=ON
# (only the bf16 d=128 forward kernels: a quarter of the build).
# The tree is copied to /tmp/ab-src-NAME and built there, so variants never share a _C.so;
# DEST/NAME then holds the package (a copy of python/) for ab_compare.py --variant NAME=DEST/NAME.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,7p "$0"; exit 2; }
dest=$1 name=$2 source=$3 flags=${4:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cutlass=${AMKL_CUTLASS_INCLUDE_DIR:-$root/.carry/cutlass/include}
src=/tmp/ab-src-$name build=/tmp/ab-build-$name
# A fresh build folder each time: one left by an earlier session can name a Python or torch
# that no longer exists (its CMake cache), and ninja then fails on a missing libc10.so.
rm -rf "$src" "$build" && mkdir -p "$src" "$dest"
if [ "$source" = "." ]; then
  tar -C "$root" --exclude='./build*' --exclude=./.carry --exclude=./.venv --exclude=./.git -cf - . \
    | tar -C "$src" -xf -
else
  tar -C "$src" -xf "$source"
fi
start=$(date +%s)
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAMKL_CUDA=ON -DAMKL_BUILD_PYTHON=ON \
  -DAMKL_BUILD_TESTS=OFF -DAMKL_BUILD_TOOLS=OFF -DAMKL_BUILD_BENCH=OFF \
  -DAMKL_CUTLASS_INCLUDE_DIR="$cutlass" -DCMAKE_CUDA_FLAGS="$flags" \
  -DPython3_EXECUTABLE="$(command -v python3)" ${AB_CMAKE_ARGS:-} > "$build.configure.log" 2>&1 \
  || { tail -20 "$build.configure.log"; exit 1; }
cmake --build "$build" -j "${JOBS:-$(nproc)}" > "$build.log" 2>&1 || { grep -m20 error "$build.log"; exit 1; }
rm -rf "${dest:?}/$name" && cp -r "$src/python" "$dest/$name"
echo "ab_build: $name built in $(( $(date +%s) - start )) s -> $dest/$name"
