#!/usr/bin/env bash
# Session-28 device run (f), the final code: the gemm_test suites s28e's
# whole run did not reach within its 290 s (Jit, Batched, Grouped and the
# single tests), K14Tuning and Plan again (k14 now takes the plan's 64 x 128
# where the caller sets no tile: k14_tile), and k14's note at 1024^3.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 300 /tmp/bn/tests/cuda/gemm_test --gtest_filter='Jit/*:Batched/*:Grouped/*:GemmClusterMulticast.*:GemmPingpong.*:GemmSplitK.*:GemmStreamK.*:GemmSwapRows64.*:K14Tuning/*:Plan/*' \
  > "$R/gpu_tests_rest.log" 2>&1; echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|tests ran" "$R/gpu_tests_rest.log" | tail -8
timeout 60 /tmp/bn/tessel bench gemm --m 1024 --n 1024 --k 1024 --impl k14,auto,cublas --repeat 2 > "$R/k14_note.txt" 2>&1; grep -E "^\[|verify" "$R/k14_note.txt"
elapsed "done"
pack
