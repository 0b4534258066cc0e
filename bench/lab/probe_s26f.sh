#!/usr/bin/env bash
# Session-26 device run: k13 with stream-K (GemmTuning::stream_k on: every
# full wave of 128 x 256 tiles whole, the remainder shared along K by all
# SMs, the last piece to arrive adds the others' partials).  (a) build;
# (b) the GPU tests: GemmK13StreamK, the sweep with stream-K (K13StreamK),
# K13Tuning and GemmSplitK (the reduction was refactored), the plan;
# (c) bf16 4096^3, 3072^3, 8192^3, 8192 x 28672 x 8192: auto, k15, k13 as
# planned, cuBLASLt; then k13 128x256 with and without stream-K.
# Predicted (k13 128 x 256 against cuBLASLt): 4096^3 (512 tiles, remainder
# 116) 0.983 -> ~1.00-1.01; 3072^3 (288 tiles, remainder 24) far above the
# unshared 128 x 256 and near 1.0; 8192 x 28672 x 8192 (7168, remainder 40)
# +0.5 %; 8192^3 (2048, remainder 68) +1-2 %.  Risk: the shared slices read
# from DRAM (f11's lesson), which bf16's higher rate feels more.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test blocks_test
/tmp/bn/tests/blocks_test --gtest_filter='*StreamK*:*SplitK*' 2>&1 | tail -1
timeout 240 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmK13StreamK.*:K13StreamK/*:K13Tuning/*:GemmSplitK.*:Plan/*' > "$R/gpu_tests_k13sk.log" 2>&1; echo "gemm_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" "$R/gpu_tests_k13sk.log" | head -20
pack
printf 'group,m,n,k,dtype\nsquare,4096,4096,4096,bf16\nsquare,3072,3072,3072,bf16\nsquare,8192,8192,8192,bf16\nllm,8192,28672,8192,bf16\n' > /tmp/sk_suite.csv
timeout 200 /tmp/bn/tessel bench gemm --suite /tmp/sk_suite.csv --impl auto,k15,cublas --repeat 2 --csv "$R/k13sk_base.csv" > "$R/k13sk_base.txt" 2>&1; echo "bench rc=$?"
medians "$R/k13sk_base.csv"
pack
timeout 150 /tmp/bn/tessel bench gemm --suite /tmp/sk_suite.csv --impl k13,cublas --tile-n 256 --splits 1 --repeat 2 --csv "$R/k13_256.csv" > "$R/k13_256.txt" 2>&1; echo "bench rc=$?"
medians "$R/k13_256.csv" | grep -v cublas
timeout 150 /tmp/bn/tessel bench gemm --suite /tmp/sk_suite.csv --impl k13,cublas --stream-k on --repeat 2 --csv "$R/k13_sk.csv" > "$R/k13_sk.txt" 2>&1; echo "bench rc=$?"
medians "$R/k13_sk.csv" | grep -v cublas
elapsed "done"
pack
