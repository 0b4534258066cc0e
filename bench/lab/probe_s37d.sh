#!/usr/bin/env bash
# Session 37, probe d: probe c again with v37b, whose producer runs the
# rest of its loads as the nested loops in an elected lane (KTileCursor::rest)
# after the barrier; v37 (probe c) ran them one step at a time in lane 0,
# with an elect loop around each TMA load, and lost 1-3 us on k13 problems
# of 16 to 64 k-tiles a tile.  Bench only, two rounds.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
mkdir -p /tmp/v37b && tar xJf .carry/v37b.txz -C /tmp/v37b
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
for round in 1 2; do
  for b in cb v37b; do
    f="$R/fixed_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --suite bench/lab/s37_fixed_cost_suite.csv --impl auto,cublas --repeat 3 \
      --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round rc=$? $(ratio_line "$f")"
  done
  elapsed round$round; pack
done
