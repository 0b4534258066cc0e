#!/usr/bin/env bash
# Session 34, probe c: a timeline of k15's batched kernel (per CTA, per
# warpgroup and unit: bench/lab/timeline/timeline_k15.cuh through
# k15_batched.patch), at 32 x 512^2 x 128 (0.96-0.97 of cuBLASLt) and
# 32 x 2048^2 x 128, for one launch of the bench's timed loop (after an L2
# flush).  The patched CLI was built on the 2-core machine and comes as
# .carry/lab.txz; the plain one as .carry/bins.txz.  The instrumented
# kernel's own cost: both CLIs timed against cuBLASLt.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
mkdir -p /tmp/lab && tar xJf .carry/lab.txz -C /tmp/lab
for at in 5000 9000; do
  TESSEL_LAB_TL_AT=$at timeout 120 /tmp/lab/tessel bench gemm --batch 32 --m 512 --n 512 --k 128 --impl auto,cublas \
    --csv "$R/tl512_$at.csv" > "$R/tl512_$at.txt" 2>&1
  python3 bench/lab/timeline/summary_k15.py "$R/tl512_$at.txt"
done
TESSEL_LAB_TL_AT=1000 timeout 120 /tmp/lab/tessel bench gemm --batch 32 --m 2048 --n 2048 --k 128 --impl auto,cublas \
  --csv "$R/tl2048.csv" > "$R/tl2048.txt" 2>&1
python3 bench/lab/timeline/summary_k15.py "$R/tl2048.txt"
elapsed timeline; pack
for b in /tmp/lab/tessel /tmp/cb/tessel; do
  f="$R/cost_$(basename $(dirname $b)).csv"
  TESSEL_LAB_TL_AT=999999999 timeout 120 $b bench gemm --batch 32 --m 512 --n 512 --k 128 --impl auto,cublas --repeat 3 --csv "$f" > /dev/null 2>&1
  echo "$b"; medians "$f"
done
elapsed cost; pack
