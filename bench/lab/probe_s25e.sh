#!/usr/bin/env bash
# Session-25 device run 4: f11 with its screened defaults (serpentine; A:m
# reads the next fragments after row 7) and rule 9 (f10 on full waves, f11
# where a partial wave's tiles can be shared, f07 else).  (a) build; (b)
# gemm_test: GemmStreamK, the f10/f11 sweeps, the fp32 plan; gemm_api_test;
# (c) auto, f07, f11 and cuBLASLt fp32 on bench/lab/fp32_rule9_s25_suite.csv,
# A:k,B:n and A:m,B:n; (d) compute-sanitizer memcheck of f11 (A:m,B:n).
# Predicted: (c) auto = f11 >= 1.0 at 3072^3, ~0.8 at 1024^3, above f07 on
# every partial shape that shares; the controls unchanged (f10).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test gemm_api_test
timeout 150 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmStreamK.*:Fp32Plan/*:Fp32Steps/GemmF32.*f1*' > "$R/gpu_tests_f11.log" 2>&1; echo "gemm_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" "$R/gpu_tests_f11.log" | head -20
timeout 60 /tmp/bn/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1; echo "gemm_api_test rc=$?"; tail -1 "$R/gemm_api_test.log"
pack
timeout 240 /tmp/bn/tessel bench gemm --suite bench/lab/fp32_rule9_s25_suite.csv --dtype fp32 --impl auto,f07,f11,cublas \
  --layout "A:k,B:n;A:m,B:n" --repeat 2 --flush read --csv "$R/rule9_f11.csv" > "$R/rule9_f11.txt" 2>&1; echo "bench rc=$?"
medians "$R/rule9_f11.csv"
pack
TOOLS=memcheck IMPLS=f11 LAYOUT=A:m,B:n TESSEL_BIN=/tmp/bn/tessel timeout 150 bash bench/sanitize_fp32.sh > "$R/memcheck_f11.log" 2>&1
grep -E "==|ERROR SUMMARY|exit" "$R/memcheck_f11.log" | head -20
elapsed "done"
pack
