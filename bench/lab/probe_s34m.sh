#!/usr/bin/env bash
# Session 34, probe m: v4 (BatchRaster's multiply divisions) at 3 stages
# (v4s3) against v4 at 4 on the K = 128 batches where v3 at 3 stages won
# (32 x 2048^2, 8 x 4096^2, 32 x 1024 x 4096, 16 x 2048^2) and lost
# (4 x 4096 x 8192, 32 x 512^2).  Predicted: as with v3, 3 stages ahead by
# 2-5 % on the first four, behind on the last two.
source bench/lab/probe_lib.sh
gpu_line
for n in v4 v4s3; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for shp in "32 2048 2048 128" "8 4096 4096 128" "32 1024 4096 128" "16 2048 2048 128" "4 4096 8192 128" "32 512 512 128"; do
  set -- $shp
  for round in 1 2; do
    for b in v4 v4s3; do
      f="$R/b${1}_${2}x${3}x${4}_${b}_r${round}.csv"
      timeout 100 /tmp/$b/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$shp $b r$round: $(medians "$f" | grep auto)"
    done
  done
  pack
done
elapsed sweep
