#!/usr/bin/env bash
# Session-26 device run: f12 (f11 on A:m, B:n copies of K-major operands).
# (a) build; (b) the fp32 sweeps of f12 (tier 1, all four layouts, padded
# leading dimensions: the repacking path) and the plan; (c) f10, f11, f12,
# cuBLASLt fp32 at 2048^3, 4096^3, 8192^3 on A:k,B:n, A:m,B:k, A:k,B:k,
# A:m,B:n, two repeats; (d) compute-sanitizer of f12 on A:k,B:k.
# Predicted: A:k,B:n f12 ~1.00 at 4096^3 (f11 on A:m 1.02, the transpose of
# A ~2 % of the product) and ~1.04 at 8192^3, against f10/f11's 0.92-0.93;
# B:k layouts the same less B's copy; 2048^3 (no tile shared: f11's kernel on
# f10's grid) below f10; A:m,B:n f12 = f11.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 200 /tmp/bn/tests/cuda/gemm_test --gtest_filter='Fp32Steps/GemmF32.*f12*:Fp32Plan/*' > "$R/gpu_tests_f12.log" 2>&1; echo "gemm_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" "$R/gpu_tests_f12.log" | head -20
pack
timeout 300 /tmp/bn/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f10,f11,f12,cublas \
  --layout "A:k,B:n;A:m,B:k;A:k,B:k;A:m,B:n" --repeat 2 --csv "$R/fp32_f12.csv" > "$R/fp32_f12.txt" 2>&1; echo "bench rc=$?"
medians "$R/fp32_f12.csv"
pack
IMPLS=f12 LAYOUT=A:k,B:k TESSEL_BIN=/tmp/bn/tessel timeout 120 bash bench/sanitize_fp32.sh > "$R/sanitizer_f12_kk.log" 2>&1
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|exit" "$R/sanitizer_f12_kk.log" | head -40
elapsed "done"
pack
