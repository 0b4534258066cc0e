#!/usr/bin/env bash
# Session-30 device run (g): the suite through the plan with rule 13 (1000^3
# now k14 64 x 128), every change of the session in the build (s30f's tree),
# two repeats against cuBLASLt in the same run.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
timeout 420 /tmp/bn/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 2 --csv "$R/suite_auto_s30.csv" > "$R/suite.txt" 2>&1
elapsed "suite"; pack
medians "$R/suite_auto_s30.csv" | grep -v cublas
elapsed "done"
pack
