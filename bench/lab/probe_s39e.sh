#!/usr/bin/env bash
# Session 39, probe e: where the fixed cost per CTA goes (probe d: new k13
# took 85.6k cycles at 1024 x 4096 x 4096, one tile per CTA, old k13 80.3k,
# cuBLASLt 77.6k).  ncu source counters of new and old k13 there.
# BINS (default "new old") and M (default 1024) choose; probe g ran it with
# BINS=new (the XOR-addressed stmatrix epilogue) at M = 1024 and 4096.
source bench/lab/probe_lib.sh
gpu_line
carried old new
for b in ${BINS:-new old}; do
  timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wgmma --section SourceCounters --page source \
    --print-source sass --csv /tmp/$b/tessel bench gemm --m ${M:-1024} --n 4096 --k 4096 --impl k13 --tile-n 256 \
    --iterations 4 --warmup 2 --verify none > "$R/src_${b}_${M:-1024}.csv" 2>&1
  echo "$b rc=$?"; xz -T4 "$R/src_${b}_${M:-1024}.csv"; pack
done
elapsed done
