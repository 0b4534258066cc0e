#!/usr/bin/env bash
# Session-25 device run 2: f11 (stream-K on f10's tile).  (a) f10 before and
# after its main loop became product_of_k_range (fp32_configs SCREEN=4,
# alternating, exact): the refactor changed ptxas's registers (A:m 204 ->
# 196); (b) gemm_test: GemmStreamK.*, the f10/f11 sweeps, the fp32 plan;
# (c) f07, f10, f11 and cuBLASLt fp32 on bench/lab/fp32_streamk_suite.csv,
# A:m,B:n (and 4096^3 / 8192^3 on A:k,B:n), 2 repeats.
# Predicted: (a) within 1 %; (c) f11 = f10 +2.5-3 % at 4096^3 and 8192^3
# (0.99 -> ~1.02, 0.966 -> ~0.99), equal at 4224 (same grid); at 1024^3 and
# 3072^3 f11 above f10 (every SM busy), maybe above f07.
source bench/lab/probe_lib.sh
gpu_line
( nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
    bench/lab/fp32_configs.cu -lcublas -lcuda -o /tmp/fp32_configs > "$R/nvcc_configs.log" 2>&1; elapsed "configs nvcc rc=$?" ) &
build_cli tessel_cli gemm_test
wait
SCREEN=4 timeout 120 /tmp/fp32_configs 4096 8192 > "$R/f10_refactor_h100.txt" 2>&1; echo "screen rc=$?"; cat "$R/f10_refactor_h100.txt"
pack
timeout 150 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmStreamK.*:Fp32Plan/*:Fp32Steps/GemmF32.*f1*' > "$R/gpu_tests_f11.log" 2>&1; echo "tests rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" "$R/gpu_tests_f11.log" | head -20
pack
timeout 200 /tmp/bn/tessel bench gemm --suite bench/lab/fp32_streamk_suite.csv --dtype fp32 --impl f07,f10,f11,cublas \
  --layout "A:m,B:n" --repeat 2 --flush read --csv "$R/f11_mn.csv" > "$R/f11_mn.txt" 2>&1; echo "bench mn rc=$?"
medians "$R/f11_mn.csv"
pack
timeout 90 /tmp/bn/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f10,f11,cublas \
  --layout "A:k,B:n" --repeat 2 --flush read --csv "$R/f11_kn.csv" > "$R/f11_kn.txt" 2>&1; echo "bench kn rc=$?"
medians "$R/f11_kn.csv"
elapsed "done"
pack
