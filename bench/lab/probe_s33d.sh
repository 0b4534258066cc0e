#!/usr/bin/env bash
# Session 33, probe d: k15's batched kernel at 4 stages, checked.  gemm_test's
# Batched/* suite (tier 1, every layout and output type, k15 among its steps)
# and compute-sanitizer on the kernel (bench/sanitize_k15_batched.sh), then
# the two strided batches once more, five repeats against cuBLASLt.
source bench/lab/probe_lib.sh
gpu_line
grep -n "kBatchedStages = " include/tessel/kernels/gemm/k15_grouped.cuh
build_cli tessel_cli gemm_test || { tail -30 "$R/build.log"; exit 1; }
G=$(find /tmp/bn -name gemm_test -type f -perm -u+x | head -1)
timeout 200 "$G" --gtest_filter='Batched/*' > "$R/gpu_tests_batched.log" 2>&1
echo "gemm_test Batched/* rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$R/gpu_tests_batched.log" | tr '\n' ' ')"
elapsed "tests"; pack
for mn in 2048 512; do
  f="$R/batched_${mn}.csv"
  timeout 100 /tmp/bn/tessel bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 5 --csv "$f" > "${f%.csv}.log" 2>&1
  medians "$f"
done
elapsed "bench"; pack
TESSEL_BIN=/tmp/bn/tessel timeout 300 bash bench/sanitize_k15_batched.sh > "$R/sanitizer_k15_batched.log" 2>&1
grep -E "^==|^exit|ERROR SUMMARY" "$R/sanitizer_k15_batched.log"
elapsed "sanitizer"; pack
