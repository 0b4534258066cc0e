#!/usr/bin/env bash
# Session 35, probe m (not run: the session's device time ran out): the clean-clone CI build of the final tree (rule 13b
# at 65..82 rows): k14's gemm_test suites, and `auto` at 82 x 8192 x 8192
# (rule 13b's k14) verified tier 1 and timed against cuBLASLt.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
timeout 120 /tmp/cb/tests/cuda/gemm_test --gtest_filter='*k14*:K14Tuning/*' > "$R/gemm_test_k14.log" 2>&1
echo "gemm_test k14 rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_k14.log"
timeout 60 /tmp/cb/tessel bench gemm --m 82 --n 8192 --k 8192 --impl auto --verify tier1 --order none > "$R/tier1_82.log" 2>&1
grep -E "verify auto" "$R/tier1_82.log"
timeout 60 /tmp/cb/tessel bench gemm --m 82 --n 8192 --k 8192 --impl auto,cublas --repeat 3 --csv "$R/m82_auto.csv" > "$R/m82_auto.log" 2>&1
medians "$R/m82_auto.csv" | grep -v cublas
elapsed final; pack
