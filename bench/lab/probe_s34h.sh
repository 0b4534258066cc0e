#!/usr/bin/env bash
# Session 34, probe h: k15's batched kernel at 3 and 4 stages, K and the tile
# count apart.  Probe g: 3 stages won at 1024, 256 and 256 tiles a batch with
# K = 128 (+2.5 to +5.7 %), lost at 128 tiles with K = 256 (-13 %) and at 64
# and 16 tiles.  Predicted: 3 stages wins with K = 128 and >= 256 tiles a
# batch; with K >= 256 (4+ k-tiles a unit, more than 3 stages hold) 4 stages
# wins whatever the tiles; 128 tiles at K = 128 unknown.
source bench/lab/probe_lib.sh
gpu_line
for n in v3 s3; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for shp in "8 4096 4096 256" "8 4096 4096 512" "32 2048 2048 256" "16 2048 2048 128" "32 1024 2048 128" "4 4096 8192 128" "32 1024 1024 256"; do
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
