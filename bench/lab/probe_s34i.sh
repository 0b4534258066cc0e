#!/usr/bin/env bash
# Session 34, probe i: stages (3, 4) x raster group (1, 8: explicit
# --raster-group) for k15's batched kernel on the K = 128 batches where 3
# stages won (8 x 4096^2, 32 x 2048^2) and lost (4 x 4096 x 8192) in probes
# g/h, and on K = 64 batches with >= 256 tiles a batch (attention's Q K^T
# with head dimension 64), not yet measured.  Question: does 3 stages' gain
# depend on the raster (rule 11b gives group 1 to all of these), and does it
# hold at K = 64 (one k-tile a unit)?
source bench/lab/probe_lib.sh
gpu_line
for n in v3 s3; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for shp in "4 4096 8192 128" "8 4096 4096 128" "32 2048 2048 128" "32 2048 2048 64" "64 2048 2048 64" "16 4096 4096 64"; do
  set -- $shp
  for g in 1 8; do
    for b in v3 s3; do
      f="$R/b${1}_${2}x${3}x${4}_${b}_g${g}.csv"
      timeout 100 /tmp/$b/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --raster-group $g --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$shp $b g$g: $(medians "$f" | grep auto)"
    done
  done
  pack
done
elapsed sweep
