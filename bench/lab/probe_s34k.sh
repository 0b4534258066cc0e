#!/usr/bin/env bash
# Session 34, probe k: the batched rows below 1.0 found in probes h/i
# (K = 64: 32 x 2048^2 0.966, 64 x 2048^2 0.95, 16 x 4096^2 0.92; K = 256:
# 32 x 2048^2 0.946, 8 x 4096^2 0.99) against k13's batched kernel (two
# warpgroups on one 128 x 256 or 128 x 128 tile), same run: is another
# kernel better where k15's is weak?  Predicted: at K = 64 no (k13's
# epilogue is exposed, the unit is even shorter); at K = 256 k13 128 x 256
# closes part of the gap (the epilogue's share halves, and the wider tile
# reads 25 % fewer operand bytes).
source bench/lab/probe_lib.sh
gpu_line
mkdir -p /tmp/v3 && tar xJf .carry/v3.txz -C /tmp/v3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for shp in "32 2048 2048 64" "16 4096 4096 64" "32 2048 2048 256" "8 4096 4096 256" "32 2048 2048 512" "32 1024 1024 64"; do
  set -- $shp
  f="$R/b${1}_${2}x${3}x${4}.csv"; f2="$R/b${1}_${2}x${3}x${4}_n256.csv"
  timeout 100 /tmp/v3/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,k13,cublas --repeat 2 --csv "$f" > /dev/null 2>&1
  timeout 100 /tmp/v3/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl k13,cublas --tile-n 256 --repeat 2 --csv "$f2" > /dev/null 2>&1
  echo "== $shp"; medians "$f"; medians "$f2" | grep k13 | sed 's/k13 /k13n256/'
  pack
done
elapsed sweep
