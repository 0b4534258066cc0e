#!/usr/bin/env bash
# Session 34, probe u: does rule 11c's "a wave spans >= 4 tile rows" carry to
# wide batches (64 tile columns) when the raster makes the wave span 4 rows?
# Raster group 4 or 8 with 3 stages (v4s3) against 4 stages (v4), both the
# lab builds of probe m (BatchRaster, stages fixed), on the N = 8192 batches
# at K = 128 that rule 11b/11c leave at group 1 and 4 stages (0.93-0.99).
# Predicted: with group 4 (and 8), 3 stages ahead of 4 by 2-5 % as on the
# narrower batches; with group 1 behind, as measured in probes m/n.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for n in v4 v4s3; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
for shp in "8 2048 8192 128" "4 4096 8192 128" "16 1024 8192 128"; do
  set -- $shp
  for g in 1 4 8; do
    for b in v4 v4s3; do
      f="$R/b${1}_${2}x${3}x${4}_${b}_g${g}.csv"
      timeout 100 /tmp/$b/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --raster-group $g --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$shp $b g$g: $(medians "$f" | grep auto)"
    done
  done
  pack
done
elapsed sweep
