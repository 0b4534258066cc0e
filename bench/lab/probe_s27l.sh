#!/usr/bin/env bash
# Session-27 device run (l): the whole gemm_test on the final code (k13's
# Config now carries the tile rows, which k14, k15 and the grouped kernels
# read through k13's TileEpilogue), for regressions outside the filtered runs.
source bench/lab/probe_lib.sh
gpu_line
build_cli gemm_test
timeout 330 /tmp/bn/tests/cuda/gemm_test > "$R/gpu_tests_gemm_full.log" 2>&1; echo "tests rc=$?"
grep -E "^\[  (PASSED|FAILED)|tests ran" "$R/gpu_tests_gemm_full.log" | tail -8
elapsed "done"
pack
