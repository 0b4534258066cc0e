#!/usr/bin/env bash
# Session-26 device run: rule 9 giving f11 every shape it shares (A:k too),
# and why `auto` ran 9-10 % under f11 at 1024^3 in s26c (the same kernel:
# same min_ms, higher median).  (a) build; (b) the fp32 plan, GemmStreamK
# and f10/f11 sweeps; (c) 1024^3 and 3072^3 with the implementations in
# other orders (f11 first, auto first, auto alone); (d) the fp32 ladder
# suite, f10, f11, auto, cuBLASLt, both layouts, 3 repeats.
# Predicted: auto = f11 at 4096^3 / 8192^3 on both layouts (A:k ~0.92 /
# 0.93, A:m ~1.02 / 1.015); if the 1024^3 gap follows the position in the
# list (the first tessel row after cuBLAS's), it is the timing loop's, not
# auto's host path.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 150 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmStreamK.*:Fp32Plan/*:Fp32Steps/GemmF32.*f1*' > "$R/gpu_tests_f11.log" 2>&1; echo "gemm_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" "$R/gpu_tests_f11.log" | head -20
pack
for order in "auto,f11,cublas" "f11,auto,cublas" "auto,cublas" "f11,cublas"; do
  timeout 60 /tmp/bn/tessel bench gemm --suite bench/lab/fp32_order_suite.csv --dtype fp32 --impl "$order" \
    --layout "A:m,B:n" --repeat 2 --csv "$R/order_${order//,/_}.csv" > /dev/null 2>&1
  echo "== order $order"; medians "$R/order_${order//,/_}.csv" | grep -v cublas
done
pack
timeout 200 /tmp/bn/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f10,f11,auto,cublas \
  --layout "A:m,B:n;A:k,B:n" --repeat 3 --flush read --csv "$R/fp32_ladder_s26d.csv" > "$R/fp32_ladder_s26d.txt" 2>&1; echo "bench rc=$?"
medians "$R/fp32_ladder_s26d.csv"
elapsed "done"
pack
