#!/usr/bin/env bash
# Session-27 device run (h): rule 4b in the plan (small M on unsplit 64-row
# swapped tiles where they fill more than half the SMs and one wave at most).
# The GPU tests of the change (GemmSwapRows64: auto exact at N = 8192; the
# 64-row sweeps; the plan's sweeps; the tuning rejections; gemm_api_test),
# the suite with auto against cuBLASLt (three repeats), auto over K at
# M = 16, 32, 64 (N = 8192), and compute-sanitizer of the new configurations.
# Predicted: the suite's 16 and 64 x 8192 x 8192 from 0.94-0.95 to ~0.99 and
# ~0.96, every other row unchanged.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test gemm_api_test
timeout 300 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmSwapRows64.*:K13SwapRows64/*:K13Swap/*:*RejectsBadK13Tuning*:Plan/*:GemmSplitK.*' \
  > "$R/gpu_tests_rule4b.log" 2>&1; echo "tests rc=$?"; grep -E "PASSED|FAILED" "$R/gpu_tests_rule4b.log" | head; pack
timeout 120 /tmp/bn/tests/cuda/gemm_api_test > "$R/gpu_tests_api.log" 2>&1; echo "api rc=$?"; tail -n 2 "$R/gpu_tests_api.log"
B=/tmp/bn/tessel
timeout 400 $B bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 3 --csv "$R/suite_auto_s27.csv" > "$R/suite.txt" 2>&1
elapsed "suite"; pack
medians "$R/suite_auto_s27.csv" | grep -v cublas
timeout 150 $B bench gemm --m 16,32,64 --n 8192 --k 4096,8192,16384,32768 --impl auto,cublas --repeat 2 --csv "$R/scaling_auto.csv" > "$R/scaling.txt" 2>&1
python3 bench/lab/fit_k_scaling.py "$R/scaling_auto.csv"; elapsed "scaling"; pack
TESSEL_BIN=$B timeout 400 bash bench/sanitize_s27.sh > "$R/sanitizer_s27.log" 2>&1
grep -E "^==|^exit|ERROR SUMMARY" "$R/sanitizer_s27.log" | paste - - - | head -30
elapsed "done"
pack
