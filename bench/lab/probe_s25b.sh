#!/usr/bin/env bash
# Session-25 device run 1.  (a) probe s25a: f10's NextReadsAfterRow on A:m and
# A:k against cublasSgemm (fp32_configs SCREEN=3), built while (b) the CLI and
# gemm_test build; (c) the GPU fp32 plan test, not run since rule 9 picks f10;
# (d) f10's wave tail: f10 and cuBLASLt fp32 on A:m,B:n at 4096^3 / 8192^3
# and at M = 4224 / 8448 (whole waves of 132 one-tile-per-SM CTAs).
# Predicted: (a) +1.5-3 % on A:m; (d) if the tail is f10's gap, its TFLOP/s
# rise ~3 % at the whole-wave shapes and its ratio with them.
source bench/lab/probe_lib.sh
gpu_line
( OUT=$OUT bash bench/lab/probe_s25a.sh > "$R/probe_s25a.txt" 2>&1; elapsed "s25a done" ) &
build_cli tessel_cli gemm_test
wait
cat "$R/probe_s25a.txt"
pack
timeout 120 /tmp/bn/tests/cuda/gemm_test --gtest_filter='Fp32Plan/*:Fp32Steps/GemmF32.*f10*' > "$R/gpu_tests_fp32_plan.log" 2>&1; echo "fp32 plan tests rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED" "$R/gpu_tests_fp32_plan.log" | head
pack
timeout 200 /tmp/bn/tessel bench gemm --suite bench/lab/fp32_waves_suite.csv --dtype fp32 --impl f10,cublas \
  --layout "A:m,B:n" --repeat 3 --flush read --csv "$R/fp32_waves.csv" > "$R/fp32_waves.txt" 2>&1; echo "waves rc=$?"
medians "$R/fp32_waves.csv"
elapsed "done"
pack
