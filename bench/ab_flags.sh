#!/usr/bin/env bash
# Builds this tree once per flag set, in parallel, and compares the builds side by side with
# bench/ab_compare.py (alternating processes, medians of 3 rounds): one command for a
# measurement-macro sweep on the GPU machine.
#   bench/ab_flags.sh OUT.json CASES NAME=FLAGS [NAME=FLAGS ...]
# e.g. bench/ab_flags.sh /tmp/q.json gdpa:256:256,gdpa:2048:2048 q2= q1=-DAMKL_SM90_Q_STAGES=1
# The first variant is the baseline of the ratio column. Builds go to /tmp/ab (bench/ab_build.sh).
set -euo pipefail
[ $# -ge 4 ] || { sed -n 2,7p "$0"; exit 2; }
out=$1 cases=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(( $(nproc) / $# ))
[ "$jobs" -ge 1 ] || jobs=1
pids=() names=() variants=()
for spec in "$@"; do
  name=${spec%%=*} flags=${spec#*=}
  JOBS=$jobs bash "$root/bench/ab_build.sh" /tmp/ab "$name" . "$flags" > "/tmp/ab-$name.out" 2>&1 &
  pids+=($!)
  names+=("$name")
  variants+=(--variant "$name=/tmp/ab/$name")
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { echo "build of ${names[$i]} failed:"; tail -20 "/tmp/ab-${names[$i]}.out"; exit 1; }
done
python3 "$root/bench/ab_compare.py" "${variants[@]}" --rounds 3 --cases "$cases" --out "$out"
