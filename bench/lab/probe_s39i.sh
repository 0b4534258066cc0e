#!/usr/bin/env bash
# Session 39, probe i: k14 (clusters of two CTAs multicasting B: a third
# fewer L2 bytes per tile) alone against cuBLASLt, beside k13 with the
# warpgroup epilogue (new = .carry/new.txz; its k14 keeps the plain
# epilogue).  Rule 5 found k14 and k13 tied from K = 4096 up in interleaved
# runs, where the clock is shared: alone, fewer bytes may buy clock.
source bench/lab/probe_lib.sh
gpu_line
carried new
for shp in "4096 4096 4096 8000" "4096 14336 4096 2500"; do
  for impl in k14 k13 k14 k13; do
    set -- $shp
    f="$R/${impl}_${1}x${2}x${3}_$RANDOM.csv"
    timeout 100 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 --impl $impl --tile-n 256 --order blocks --min-ms 2000 \
      --repeat 2 --iterations $4 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$impl rc=$? $(alone_line "$f")"
  done
  pack
done
elapsed done
