#!/usr/bin/env bash
# Session-26 device run, part 1: f11 with session 26's split (every full
# wave whole, the remainder shared) and form 2 (stream-K CTAs first) as its
# defaults.  (a) the library built in the background; (b) fp32_configs
# SCREEN=10 (A:k and A:m: f10, f11, form 1, session 25's split) at 1024^3,
# 3072^3, 4096^3, 8192^3; (c) gemm_test GemmStreamK, GemmSplitK, the fp32
# plan and the f10/f11 sweeps; gemm_api_test.
# Predicted from s26a: A:m f11 ~1.02 at 4096^3 and 8192^3; 3072^3 (24 tiles
# shared instead of 156) better than session 25's split; 1024^3 (every tile
# shared either way) the same.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test gemm_api_test > "$R/build_bg.txt" 2>&1 &
bpid=$!
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
  bench/lab/fp32_configs.cu -lcublas -lcuda -o /tmp/fp32_configs > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
elapsed "nvcc"
SCREEN=10 timeout 240 /tmp/fp32_configs 1024 3072 4096 8192 | tee "$R/f11_splits_h100.txt"
elapsed "screen"
pack
wait $bpid; cat "$R/build_bg.txt"
timeout 120 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmStreamK.*:GemmSplitK.*:Fp32Plan/*:Fp32Steps/GemmF32.*f1*' > "$R/gpu_tests_f11.log" 2>&1; echo "gemm_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" "$R/gpu_tests_f11.log" | head -20
timeout 60 /tmp/bn/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1; echo "gemm_api_test rc=$?"; tail -1 "$R/gemm_api_test.log"
elapsed "done"
pack
