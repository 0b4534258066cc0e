#!/usr/bin/env bash
# Session 34, probe e: k15's batched consumers each walk only their own units
# (k13::BatchScheduler with stride 2 x grid from unit blockIdx.x + wg x grid)
# instead of both walking every unit.  Predicted: the gap from a unit's
# stores to the warpgroup's next unit from ~1000 cycles (probe d) to ~600;
# 512^2 up by 1-2 %, 2048^2 (now at its DRAM rate) unchanged.
# CLIs: bins.txz (62a1119), plain.txz (probe d's), plain2.txz (this), tl2.txz
# (this, with timeline_k15.cuh's marks).
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for n in plain plain2 tl2; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
TESSEL_LAB_TL_AT=5000 timeout 120 /tmp/tl2/tessel bench gemm --batch 32 --m 512 --n 512 --k 128 --impl auto,cublas \
  --csv "$R/tl512.csv" > "$R/tl512.txt" 2>&1
python3 bench/lab/timeline/summary_k15.py "$R/tl512.txt"
elapsed timeline; pack
for mn in 512 2048; do
  for rep in 1 2; do
    for b in /tmp/cb/tessel /tmp/plain/tessel /tmp/plain2/tessel; do
      f="$R/b${mn}_$(basename $(dirname $b))_$rep.csv"
      timeout 120 $b bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$b rep $rep"; medians "$f" | grep auto
    done
  done
done
elapsed bench; pack
