#!/usr/bin/env bash
# Session-28 device run (c): rule 1b now also needs B's rows whole lines
# (s28b: 1000 x 1000 x 1024 B:n lost 9 % on 64 x 128).  The plan's GPU tests,
# then the suite with auto against cuBLASLt, two repeats.
# Predicted: suite 1024^3 0.89 -> 0.93-0.96 (s28b), other rows unchanged.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 120 /tmp/bn/tests/cuda/gemm_test --gtest_filter='Plan/*:*RejectsBadK13Tuning*:GemmSwapRows64.*' \
  > "$R/gpu_tests_plan.log" 2>&1; echo "tests rc=$?"; grep -E "PASSED|FAILED" "$R/gpu_tests_plan.log" | head; pack
timeout 330 /tmp/bn/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 2 --csv "$R/suite_auto_s28.csv" > "$R/suite.txt" 2>&1
elapsed "suite"; pack
medians "$R/suite_auto_s28.csv" | grep -v cublas
elapsed "done"
pack
