#!/usr/bin/env bash
# CUDA compiler launcher: runs the compile and fails it when ptxas reports that WGMMAs were
# serialized (C7510 and its relatives C7515-C7520): that message is only "info" to ptxas, but a
# serialized tensor-core pipeline is a performance bug we never want to land (DESIGN.md 6).
log=$(mktemp)
"$@" 2> >(tee "$log" >&2)
rc=$?
wait
if [ $rc -eq 0 ] && grep -q "wgmma.mma_async instructions are serialized" "$log"; then
  echo "error: ptxas serialized the WGMMA pipeline (see the message above); fix the kernel" >&2
  rc=1
fi
rm -f "$log"
exit $rc
