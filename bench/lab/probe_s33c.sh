#!/usr/bin/env bash
# Session 33, probe c: k15's batched kernel at 4 stages (s33b's best:
# 116.2 us against 118.2 at 3 and 118.9 at 5, cuBLASLt 114.5), with the
# raster's group of tile rows (rule 6's 8 by default) at 1, 2, 4, 16 for
# 32 x 2048^2 x 128 and 32 x 512^2 x 128, against cuBLASLt, three repeats.
# Predicted: the group changes which A and B tiles the 264 warpgroups' units
# share in L2 at once; with all 256 tiles of a 2048^2 batch in flight
# together it should hardly matter there (within 1 %).
source bench/lab/probe_lib.sh
gpu_line
H=include/tessel/kernels/gemm/k15_grouped.cuh
sed -i "s/^inline constexpr int kBatchedStages = [0-9]*;/inline constexpr int kBatchedStages = 4;/" $H
build_cli tessel_cli || { tail -30 "$R/build.log"; exit 1; }
for mn in 2048 512; do
  for g in 8 1 2 4 16 8; do
    f="$R/batched_${mn}_g${g}.csv"
    [ -e "$f" ] && f="$R/batched_${mn}_g${g}_again.csv"
    timeout 100 /tmp/bn/tessel bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --raster-group $g --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "group $g: $(medians "$f" | grep auto)"
  done
  pack
done
