#!/usr/bin/env bash
# Session-25 last device run: f11 with Form 1 as its default (the SCREEN=9
# winner; the library's f11 SASS is instruction for instruction the screened
# kernel's) and rule 9 giving A:m to f11 wherever it shares.  (a) build;
# (b) gemm_test GemmStreamK, the f10/f11 sweeps, the fp32 plan; gemm_api_test;
# (c) f10, f11, auto and cuBLASLt fp32 on the fp32 ladder suite, A:m,B:n and
# A:k,B:n; (d) compute-sanitizer of f11 on A:m,B:n.
# Predicted from s25k: (c) f11 A:m 0.99 / 1.01 at 4096^3 / 8192^3, auto = f11
# there; A:k auto = f10.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test gemm_api_test
timeout 120 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmStreamK.*:GemmSplitK.*:Fp32Plan/*:Fp32Steps/GemmF32.*f1*' > "$R/gpu_tests_f11.log" 2>&1; echo "gemm_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" "$R/gpu_tests_f11.log" | head -20
timeout 60 /tmp/bn/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1; echo "gemm_api_test rc=$?"; tail -1 "$R/gemm_api_test.log"
pack
timeout 150 /tmp/bn/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f10,f11,auto,cublas \
  --layout "A:m,B:n;A:k,B:n" --repeat 2 --flush read --csv "$R/fp32_f11_form1.csv" > "$R/fp32_f11_form1.txt" 2>&1; echo "bench rc=$?"
medians "$R/fp32_f11_form1.csv"
pack
IMPLS=f11 LAYOUT=A:m,B:n TESSEL_BIN=/tmp/bn/tessel timeout 120 bash bench/sanitize_fp32.sh > "$R/sanitizer_f11.log" 2>&1
grep -E "==|ERROR SUMMARY|RACECHECK SUMMARY|exit" "$R/sanitizer_f11.log" | head -30
elapsed "done"
pack
