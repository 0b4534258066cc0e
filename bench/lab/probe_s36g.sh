#!/usr/bin/env bash
# Session 36, probe g: the new GemmEpi path k13_n64_split4_units (1000^3,
# 64-wide tiles, 4 splits: 512 units, several a CTA, so that a unit's bias
# slice is written while the CTA has run an epilogue before it), every
# activation x bias kind x output type, exact where the activation is;
# the CI build of ed3492a with gemm_test.cu rebuilt.  (racecheck cannot
# check this: probe f.)
source bench/lab/probe_lib.sh
gpu_line
carried_bins
timeout 300 /tmp/cb/tests/cuda/gemm_test --gtest_filter='Paths/GemmEpi.*split*' > "$R/gemm_test_split_units.log" 2>&1
echo "rc=$?"; grep -E "epilogue cases|^\[  (PASSED|FAILED|  OK) " "$R/gemm_test_split_units.log"
elapsed end; pack
