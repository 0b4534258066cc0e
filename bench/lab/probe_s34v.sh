#!/usr/bin/env bash
# Session 34, probe v: rule 11b's raster group on wide batches (tile columns
# x 4 > SMs), on the CI build of 40c1abc (rule 11c gives these 4 stages).
# Probe u: at 4 stages group 8 beat rule 11b's group 1 on 8 x 2048 x 8192
# (0.969 -> 0.997) and 16 x 1024 x 8192 (0.933 -> 0.992), not on
# 4 x 4096 x 8192 (0.991 -> 0.982; group 4 0.995).  Again, with two wide
# batches not measured before (48 tile columns).  Predicted: group 8 at least
# level with group 1 on all five, ahead by 2-6 % on the first two.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for shp in "8 2048 8192 128" "16 1024 8192 128" "4 4096 8192 128" "8 4096 6144 128" "16 2048 6144 128"; do
  set -- $shp
  for round in 1 2; do
    for g in 1 8; do
      f="$R/b${1}_${2}x${3}x${4}_g${g}_r${round}.csv"
      timeout 100 /tmp/cb/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --raster-group $g --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$shp g$g r$round: $(medians "$f" | grep auto)"
    done
  done
  pack
done
elapsed sweep
