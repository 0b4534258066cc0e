#!/usr/bin/env bash
# Session-26 device run: k13 stream-K with a slice's two pieces in k order
# (the piece from k-tile 0 of the next tile first: every CTA's k nearly in
# step).  (a) build; (b) GemmK13StreamK, K13StreamK, K13Tuning, GemmSplitK;
# (c) ncu at 4096^3 (DRAM bytes, L2 hit rate) with stream-K off and on;
# (d) bf16 4096^3, 3072^3, 8192^3, 8192 x 28672 x 8192: k13 128 x 256
# unshared and with stream-K, each in its own run against cuBLASLt, then
# auto and k15.
# Predicted: DRAM bytes with stream-K near the unshared 187 MB (s26g: 290 in
# slice order); 4096^3 stream-K above the unshared 0.990, up to ~1.02.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 200 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmK13StreamK.*:K13StreamK/*:K13Tuning/*:GemmSplitK.*' > "$R/gpu_tests_k13sk.log" 2>&1; echo "gemm_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" "$R/gpu_tests_k13sk.log" | head -20
pack
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum
for sk in off on; do
  timeout 150 ncu -k regex:gemm_wgmma_in_flight -c 1 --metrics $M /tmp/bn/tessel bench gemm --m 4096 --n 4096 --k 4096 \
    --impl k13 --tile-n 256 --splits 1 --stream-k $sk --order none --verify tier1 > "$R/ncu_k13_sk_$sk.txt" 2>&1
  echo "== stream-K $sk"; grep -E "dram__|lts__|gpu__time|==ERR" "$R/ncu_k13_sk_$sk.txt"
done
pack
printf 'group,m,n,k,dtype\nsquare,4096,4096,4096,bf16\nsquare,3072,3072,3072,bf16\nsquare,8192,8192,8192,bf16\nllm,8192,28672,8192,bf16\n' > /tmp/sk_suite.csv
for sk in off on; do
  timeout 150 /tmp/bn/tessel bench gemm --suite /tmp/sk_suite.csv --impl k13,cublas --tile-n 256 --splits 1 --stream-k $sk \
    --repeat 2 --csv "$R/k13_sk_$sk.csv" > "$R/k13_sk_$sk.txt" 2>&1; echo "== stream-K $sk rc=$?"
  medians "$R/k13_sk_$sk.csv" | grep -v cublas
  pack
done
timeout 150 /tmp/bn/tessel bench gemm --suite /tmp/sk_suite.csv --impl auto,cublas --repeat 2 --csv "$R/auto.csv" > "$R/auto.txt" 2>&1; echo "== auto rc=$?"
medians "$R/auto.csv" | grep -v cublas
elapsed "done"
pack
