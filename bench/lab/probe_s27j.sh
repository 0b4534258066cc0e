#!/usr/bin/env bash
# Session-27 device run (j): the many-tile GPU tests after their operand
# upload became one helper (upload_bf16_operands, no change of values):
# GemmPingpong, GemmClusterMulticast, GemmSwapRows64, and the plan's sweeps.
source bench/lab/probe_lib.sh
gpu_line
build_cli gemm_test
timeout 200 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmPingpong.*:GemmClusterMulticast.*:GemmSwapRows64.*:Plan/*' \
  > "$R/gpu_tests_helpers.log" 2>&1; echo "tests rc=$?"; grep -E "OK|PASSED|FAILED" "$R/gpu_tests_helpers.log" | tail -12
elapsed "done"
pack
