#!/usr/bin/env bash
# Session 33, probe b: k15's batched kernel at 3, 4 and 5 pipeline stages
# (kBatchedStages in k15_grouped.cuh, edited here between incremental builds),
# strided batches 32 x 512^2 x 128 and 32 x 2048^2 x 128 against cuBLASLt,
# three repeats each, the stage counts in turn and then again.
# Predicted from bench/lab/store_pattern.cu (s33a: k15's data movement alone
# took 118.8 us at 5 stages, 111.0 at 3): 2048^2 from ~0.96 to ~1.02; 512^2
# (fixed costs) about unchanged.
source bench/lab/probe_lib.sh
gpu_line
H=include/tessel/kernels/gemm/k15_grouped.cuh
for st in ${STAGES:-3 5 4 3 5}; do
  sed -i "s/^inline constexpr int kBatchedStages = [0-9]*;/inline constexpr int kBatchedStages = $st;/" $H
  grep -q "kBatchedStages = $st;" $H || { echo "sed failed"; exit 1; }
  build_cli tessel_cli || { tail -30 "$R/build.log"; exit 1; }
  for mn in 512 2048; do
    f="$R/batched_${mn}_st${st}.csv"
    [ -e "$f" ] && f="$R/batched_${mn}_st${st}_again.csv"
    timeout 100 /tmp/bn/tessel bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "stages $st: $(medians "$f" | grep auto)"
  done
  pack
done
