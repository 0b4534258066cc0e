#!/usr/bin/env bash
# Session 34, probe d: k15's batched kernel with its one problem read from the
# kernel parameter (k13::BatchScheduler: LDC instead of the generic LD.E of
# GroupScheduler's problem(), which may be device memory).  Probe c's
# timeline put ~1450 cycles between a unit's stores and the next unit's start
# and ~1600 between the producer's election and its first TMA.
# Predicted: both gaps shrink to a few hundred cycles; 2048^2 x 128 x 32 from
# ~0.99 to >= 1.0 of cuBLASLt, 512^2 from ~0.965 to ~1.0.
# CLIs built on the 2-core machine: .carry/bins.txz (62a1119, before),
# plain.txz (after), tl.txz (after, with timeline_k15.cuh's marks).
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for n in plain tl; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
TESSEL_LAB_TL_AT=5000 timeout 120 /tmp/tl/tessel bench gemm --batch 32 --m 512 --n 512 --k 128 --impl auto,cublas \
  --csv "$R/tl512.csv" > "$R/tl512.txt" 2>&1
python3 bench/lab/timeline/summary_k15.py "$R/tl512.txt"
TESSEL_LAB_TL_AT=1000 timeout 120 /tmp/tl/tessel bench gemm --batch 32 --m 2048 --n 2048 --k 128 --impl auto,cublas \
  --csv "$R/tl2048.csv" > "$R/tl2048.txt" 2>&1
python3 bench/lab/timeline/summary_k15.py "$R/tl2048.txt"
elapsed timeline; pack
for mn in 512 2048; do
  for rep in 1 2; do
    for b in /tmp/cb/tessel /tmp/plain/tessel; do
      f="$R/b${mn}_$(basename $(dirname $b))_$rep.csv"
      timeout 120 $b bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$b rep $rep"; medians "$f"
    done
  done
done
elapsed bench; pack
