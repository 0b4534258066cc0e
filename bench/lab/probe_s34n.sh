#!/usr/bin/env bash
# Session 34, probe n: v4 at 3 and 4 stages on batches that test the pattern
# of probes g-m (3 stages ahead on K = 128 batches with >= 132 tiles a batch
# and <= 32 tile columns, behind at 4 x 4096 x 8192 (64 tile columns) and
# wherever a batch has fewer tiles or K > 128): two more with 64 tile
# columns, two with 16 and 32, and K = 96 and 192 at 32 x 2048^2.
# Predicted if the tile columns are what matters: 3 stages behind on
# 8 x 2048 x 8192 and 16 x 1024 x 8192, ahead on 16 x 8192 x 2048 and
# 8 x 8192 x 4096; ahead at K = 96 (two k-tiles), behind at K = 192.
source bench/lab/probe_lib.sh
gpu_line
for n in v4 v4s3; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for shp in "8 2048 8192 128" "16 1024 8192 128" "16 8192 2048 128" "8 8192 4096 128" "32 2048 2048 96" "32 2048 2048 192"; do
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
