#!/usr/bin/env bash
# Session 34, probe g: k15's batched kernel at 3 and 4 stages (the k13::
# BatchScheduler code; probe f: 3 stages 1.035 at 32 x 2048^2 x 128 and
# 0.962 at 32 x 512^2 x 128, 4 stages 1.003 and 1.04) on session 33's six
# batches (s33e), to place a threshold.  Predicted: 3 stages wins where one
# batch has at least a tile per SM (256 and more tiles of 128 x 128), loses
# where it has a few (16 at 512^2); 64 and 128 tiles unknown.
source bench/lab/probe_lib.sh
gpu_line
for n in v3 s3; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for shp in "8 4096 4096 128" "32 1024 4096 128" "16 2048 1024 256" "64 1024 1024 64" "32 1024 1024 128" "32 2048 2048 128" "32 512 512 128"; do
  set -- $shp
  for round in 1 2; do
    for b in v3 s3; do
      f="$R/b${1}_${2}x${3}x${4}_${b}_r${round}.csv"
      timeout 100 /tmp/$b/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$shp $b r$round: $(medians "$f" | grep auto)"
    done
  done
  pack
done
elapsed sweep
