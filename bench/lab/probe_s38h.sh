#!/usr/bin/env bash
# Session 38, probe h: rule 10b (the plain GEMM stays k13's where k15 alone
# meets the power cap).  plan = probe d's build with gemm.cu, gemm_plan.hpp
# and gemm_api_test.cpp of the change (gemm.cu's object recompiled, the
# binaries relinked).  Call 1: gemm_api_test, gemm_test's plan and pingpong
# suites, then the shape suite with auto in the interleaved loop (two
# repeats).  Call 2 (`probe_s38h.sh 2`): the suite with each implementation
# alone (--order blocks, four repeats).
stage=${1:-1}
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/plan && tar xJf .carry/plan.txz -C /tmp/plan
B=/tmp/plan/tessel
if [ "$stage" = 1 ]; then
  timeout 120 /tmp/plan/tests/cuda/gemm_api_test > "$R/gemm_api_test_plan.log" 2>&1
  echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |PingpongStays" "$R/gemm_api_test_plan.log"
  timeout 200 /tmp/plan/tests/cuda/gemm_test --gtest_filter='Plan/*:GemmPingpong*' > "$R/gemm_test_plan.log" 2>&1
  echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_plan.log"; pack
  timeout 400 $B bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 2 \
    --csv "$R/suite_auto_s38h.csv" > "$R/suite_auto_s38h.txt" 2>&1; echo "suite rc=$?"
  medians "$R/suite_auto_s38h.csv" | grep -v cublas | tee "$R/suite_medians.txt"
  elapsed suite; pack
else
  timeout 500 $B bench gemm --suite tests/data/bench_suite.csv --impl auto --order blocks --repeat 4 \
    --csv "$R/suite_auto_blocks_s38h.csv" > "$R/suite_auto_blocks_s38h.txt" 2>&1; echo "suite blocks rc=$?"
  medians "$R/suite_auto_blocks_s38h.csv" | grep -v cublas | tee "$R/suite_blocks_medians.txt"
  elapsed suite_blocks; pack
fi
