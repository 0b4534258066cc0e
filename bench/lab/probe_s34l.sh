#!/usr/bin/env bash
# Session 34, probe l: k13::BatchScheduler with its divisions as multiplies
# (blocks::BatchRaster: UnsignedDivisor's made on the host) = v4, against v3
# (the committed d60a24c kernel).  Timeline (tl4) at 32 x 512^2 x 128 and the
# batches K = 64, 128, 256.  Predicted: the gap from a unit's stores to the
# warpgroup's next unit from ~1000 cycles to ~500; K = 256 batches (where a
# unit's wgmmas, ~2000 cycles, no longer cover the other warpgroup's epilogue
# and scheduling, ~2900) +2-4 %; K = 64 +1-3 %; 512^2 x 128 +0-2 %;
# 2048^2 x 128 (DRAM-bound) -1.5 to 0 % (a shorter gap measured 1.5 % slower
# there in s34e).
source bench/lab/probe_lib.sh
gpu_line
for n in v3 v4 tl4; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
TESSEL_LAB_TL_AT=5000 timeout 120 /tmp/tl4/tessel bench gemm --batch 32 --m 512 --n 512 --k 128 --impl auto,cublas \
  --csv "$R/tl512.csv" > "$R/tl512.txt" 2>&1
python3 bench/lab/timeline/summary_k15.py "$R/tl512.txt"
pack
for shp in "32 512 512 128" "32 2048 2048 128" "32 2048 2048 256" "8 4096 4096 256" "32 2048 2048 64" "16 4096 4096 64" "32 1024 1024 128"; do
  set -- $shp
  for round in 1 2; do
    for b in v3 v4; do
      f="$R/b${1}_${2}x${3}x${4}_${b}_r${round}.csv"
      timeout 100 /tmp/$b/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$shp $b r$round: $(medians "$f" | grep auto)"
    done
  done
  pack
done
elapsed sweep
