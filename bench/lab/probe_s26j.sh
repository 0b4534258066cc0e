#!/usr/bin/env bash
# Session-26 device run: rule 9 with f12.  (a) build; (b) the fp32 plan's
# sweep, gemm_api_test; (c) auto against cuBLASLt on the fp32 ladder suite,
# all four layouts, three repeats; (d) auto, f11, f12 on rule 9's partial
# waves (bench/lab/fp32_rule9_s25_suite.csv), A:k,B:n and A:m,B:k, two
# repeats: whether N >= 2048 (M for B) is where f12 starts to pay.
# Predicted: auto = f12 on the K-major layouts at 4096^3 / 8192^3 (1.00-1.06),
# = f11 on A:m,B:n; at N < 2048 f12 within a few % of f11, above it past 2048.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test gemm_api_test
timeout 200 /tmp/bn/tests/cuda/gemm_test --gtest_filter='Fp32Plan/*' > "$R/gpu_tests_plan.log" 2>&1; echo "gemm_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" "$R/gpu_tests_plan.log" | head -20
timeout 60 /tmp/bn/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1; echo "gemm_api_test rc=$?"; tail -1 "$R/gemm_api_test.log"
pack
timeout 240 /tmp/bn/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl auto,cublas \
  --layout "A:k,B:n;A:m,B:k;A:k,B:k;A:m,B:n" --repeat 3 --csv "$R/fp32_auto_s26.csv" > "$R/fp32_auto_s26.txt" 2>&1; echo "bench rc=$?"
medians "$R/fp32_auto_s26.csv" | grep -v cublas
pack
timeout 240 /tmp/bn/tessel bench gemm --suite bench/lab/fp32_rule9_s25_suite.csv --dtype fp32 --impl auto,f11,f12,cublas \
  --layout "A:k,B:n;A:m,B:k" --repeat 2 --csv "$R/rule9_f12.csv" > "$R/rule9_f12.txt" 2>&1; echo "bench rc=$?"
medians "$R/rule9_f12.csv" | grep -v cublas
elapsed "done"
pack
