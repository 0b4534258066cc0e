#!/usr/bin/env bash
# Session 34, probe p: issue 13's strided and grouped acceptance rows on the
# clean-clone CI build of ce5bd01 (/tmp/ci35/build/sm90a on the 2-core
# machine, carried as .carry/bins.txz): the two strided batches through
# auto against cuBLASLt strided batched, five repeats, two runs; the MoE
# group against cuBLAS's grouped call (GroupProblem grew by the raster's
# divisors: the group's kernel and descriptors changed), three repeats;
# gemm_test's Batched/* and Grouped/* (tier 1); and the fused bias + GELU
# rows of issue 13's first criterion (4096^3 and 8192 x 28672 x 8192, as
# bench/lab/probe_s29a.sh), so that every measured criterion is from one
# day's code.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
B=/tmp/cb/tessel
timeout 300 /tmp/cb/tests/cuda/gemm_test --gtest_filter='Batched/*:Grouped/*:*Group*' > "$R/gpu_tests_batched_grouped.log" 2>&1
echo "gemm_test Batched/Grouped rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$R/gpu_tests_batched_grouped.log" | tr '\n' ' ')"
elapsed tests; pack
for run in 1 2; do
  for mn in 512 2048; do
    f="$R/batched_${mn}_run${run}.csv"
    timeout 150 $B bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 5 --csv "$f" > "${f%.csv}.log" 2>&1
    medians "$f"
  done
done
elapsed strided; pack
f="$R/moe.csv"
timeout 200 $B bench gemm --grouped moe --impl auto,cublas --repeat 3 --csv "$f" > "$R/moe.log" 2>&1
echo "moe rc=$?"; medians "$f"; tail -4 "$R/moe.log"
elapsed moe; pack
for shp in "4096 4096 4096" "8192 28672 8192"; do
  set -- $shp
  timeout 200 $B bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$R/epi_${1}_${2}_${3}.csv" > "$R/epi_${1}_${2}_${3}.log" 2>&1
  medians "$R/epi_${1}_${2}_${3}.csv"
  elapsed "epi $1"; pack
done
