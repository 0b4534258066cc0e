#!/usr/bin/env bash
# Session 33, probe f: rule 11b through `auto` (no --raster-group): the plan
# gives group 1 where a batch has a tile per SM.  Three batches against
# cuBLASLt strided batched, three repeats each.  Expected as s33e's group-1
# rows at 2048^2 and 1024 x 4096, and its group-8 row at 512^2.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli || { tail -30 "$R/build.log"; exit 1; }
for shp in "32 2048 2048 128" "32 1024 4096 128" "32 512 512 128"; do
  set -- $shp
  f="$R/b${1}_${2}x${3}x${4}_auto.csv"
  timeout 60 /tmp/bn/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "$shp: $(medians "$f" | grep auto) $(grep -m1 -o 'raster group [0-9]*' "$f")"
done
pack
