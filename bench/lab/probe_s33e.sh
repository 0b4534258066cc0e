#!/usr/bin/env bash
# Session 33, probe e: the raster's group for strided batches, on the warm
# s33c/d build (k15 batched at 4 stages).  s33c had group 1 (tiles along N
# first) 0.9 % ahead of the default 8 at 32 x 2048^2 x 128 in one run, all
# three repeats.  Here group 8 and group 1 alternate twice, three repeats
# each, on six batches (K = 64..256, square, wide and tall D), against
# cuBLASLt strided batched.  Predicted: group 1 ahead by ~1 % where a batch
# has at least a wave of tiles (its units then write whole rows of D at
# once), within noise where a batch is a few tiles.
source bench/lab/probe_lib.sh
gpu_line
[ -x /tmp/bn/tessel ] || build_cli tessel_cli || exit 1
for shp in "32 2048 2048 128" "32 512 512 128" "8 4096 4096 128" "64 1024 1024 64" "16 2048 1024 256" "32 1024 4096 128"; do
  set -- $shp
  for round in 1 2; do
    for g in 8 1; do
      f="$R/b${1}_${2}x${3}x${4}_g${g}_r${round}.csv"
      timeout 100 /tmp/bn/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --raster-group $g --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
      echo "$shp g$g r$round: $(medians "$f" | grep auto)"
    done
  done
  pack
done
