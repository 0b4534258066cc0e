#!/usr/bin/env bash
# Session 34, probe f: the code to commit (v3: k13::BatchScheduler reading
# the one problem from the parameter; both warpgroups walk every unit, as
# before) checked and measured.  gemm_test Batched/* (tier 1, every layout,
# output type, k15 and k15_g1 among the steps); compute-sanitizer memcheck,
# racecheck and synccheck (bench/sanitize_k15_batched.sh); the two strided
# batches against cuBLASLt for 62a1119's CLI (cb), v3, and v3 with 3 and 5
# stages (s3, s5; 4 in v3).  Predicted: v3 as probe d's `plain` (512^2
# ~1.03, 2048^2 ~1.00); stages: unknown, session 33's 4 > 3, 5 may not hold.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for n in v3 s3 s5; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
timeout 200 /tmp/v3/tests/cuda/gemm_test --gtest_filter='Batched/*' > "$R/gpu_tests_batched.log" 2>&1
echo "gemm_test Batched/* rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$R/gpu_tests_batched.log" | tr '\n' ' ')"
elapsed tests; pack
for mn in 512 2048; do
  for rep in 1 2; do
    for b in cb v3 s3 s5; do
      f="$R/b${mn}_${b}_$rep.csv"
      timeout 120 /tmp/$b/tessel bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$b rep $rep"; medians "$f"
    done
  done
done
elapsed bench; pack
TESSEL_BIN=/tmp/v3/tessel timeout 250 bash bench/sanitize_k15_batched.sh > "$R/sanitizer_k15_batched.log" 2>&1
grep -E "^==|^exit|ERROR SUMMARY" "$R/sanitizer_k15_batched.log"
elapsed sanitizer; pack
