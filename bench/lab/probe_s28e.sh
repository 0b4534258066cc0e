#!/usr/bin/env bash
# Session-28 device run (e), the final code: compute-sanitizer where s28d's
# run stopped (racecheck at 1024^3, now on tessel's kernels only; synccheck
# at all three shapes), then the whole gemm_test.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
TESSEL_BIN=/tmp/bn/tessel TOOLS=racecheck SHAPES=1024:1024:1024 timeout 60 bash bench/sanitize_s28.sh > "$R/sanitizer_s28e.log" 2>&1
TESSEL_BIN=/tmp/bn/tessel TOOLS=synccheck timeout 100 bash bench/sanitize_s28.sh >> "$R/sanitizer_s28e.log" 2>&1
grep -E "^==|^exit|SUMMARY" "$R/sanitizer_s28e.log" | paste - - - | head -30
elapsed "sanitizer"; pack
timeout 290 /tmp/bn/tests/cuda/gemm_test > "$R/gpu_tests_gemm_full.log" 2>&1; echo "tests rc=$?"
grep -E "^\[  (PASSED|FAILED)|tests ran" "$R/gpu_tests_gemm_full.log" | tail -8
elapsed "done"
pack
