#!/usr/bin/env bash
# Session 36, probe j: the review commit (BiasShare::store converts through
# detail::to_float instead of its own bit shift): the CI build of 4222312
# with the four fused objects recompiled from it, the epilogue suites
# (the run-time compiled ones from the tree's headers).
source bench/lab/probe_lib.sh
gpu_line
carried_bins
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 170 /tmp/cb/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi.log"; elapsed tests; pack
