#!/usr/bin/env bash
# Session 39, probe b: where k13's per-tile time goes after probe a's change.
# ncu source counters (SASS, per instruction) of new k13 (128 x 256) and of
# cuBLASLt's kernel at 4096^3, one launch each.
source bench/lab/probe_lib.sh
gpu_line
carried new
for spec in "k13 gemm_wgmma --impl k13 --tile-n 256" "cublas nvjet --impl cublas"; do
  set -- $spec; name=$1 re=$2; shift 2
  timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:$re --section SourceCounters --page source --print-source sass \
    --csv /tmp/new/tessel bench gemm --m 4096 --n 4096 --k 4096 "$@" --iterations 4 --warmup 2 --verify none \
    > "$R/src_$name.csv" 2>&1
  echo "$name rc=$?"; xz -T4 "$R/src_$name.csv"; pack
done
elapsed done
