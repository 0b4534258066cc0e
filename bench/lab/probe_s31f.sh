#!/usr/bin/env bash
# Session-31 device run (f): the compile-time fixes on the GPU.  The
# TMA-store epilogue's C gather now by static_for (7351f85: other machine
# code than the measured 846613a in every TMA-store kernel), and
# layout_gpu_test's robustness cases one kernel each.
# Expected: tier 1 passes (gemm_test whole: every sweep has alpha 2, beta -1
# with C on each kernel), layout_gpu_test passes, the suite and the beta = 1
# rows within run noise of s31d and s30's (1000^3 beta 1: 0.86; 4096^3: 0.88).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test layout_gpu_test || { grep -E "error" "$R/build.log" | head -30; exit 1; }
timeout 60 /tmp/bn/tests/cuda/layout_gpu_test > "$R/layout_gpu_test.log" 2>&1; echo "layout_gpu_test rc=$?"; tail -3 "$R/layout_gpu_test.log"
timeout 330 /tmp/bn/tests/cuda/gemm_test > "$R/gpu_tests.log" 2>&1; echo "gemm_test rc=$?"; grep -E "^\[  PASSED|^\[  FAILED|tests ran" "$R/gpu_tests.log" | head
elapsed tests; pack
timeout 100 /tmp/bn/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 2 --csv "$R/suite.csv" > "$R/suite.txt" 2>&1
medians "$R/suite.csv" | grep -v cublas
timeout 60 /tmp/bn/tessel bench gemm --m 1000,4096 --n 1000,4096 --k 1000,4096 --beta 1 --impl auto,cublas --repeat 2 --csv "$R/beta.csv" > "$R/beta.txt" 2>&1
medians "$R/beta.csv" | grep -v cublas
elapsed done
pack
