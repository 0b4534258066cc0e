#!/usr/bin/env bash
# Session-30 device run (e): C's loads in the TMA-store epilogue gathered per
# chunk (TmaStoreEpilogue::apply, beta != 0).  s30d measured 1000^3 with
# beta = 1 at 0.467 of cuBLASLt (k13 128 x 128; k14 64 x 128 0.486), and
# session 21 4096^3 at 0.78 (s21/epi_beta1_jit0.csv, auto:plain): each C
# load came after a staging store the compiler could not tell apart from C,
# one latency at a time.
# Predicted: 1000^3 beta = 1 0.47 -> 0.85-0.9, 4096^3 0.78 -> 0.95-1.0;
# beta = 0 unchanged (the other branch).
# Tier 1 first: every sweep runs alpha = 2 / beta = -1 with C on every kernel.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 200 /tmp/bn/tests/cuda/gemm_test --gtest_filter='K13*:K14Tuning/*:Plan/*:Batched/*:Grouped/*:Paths/*:GemmSplitK*:GemmSwapRows64*:GemmClusterMulticast*:AllSteps/*k13*:AllSteps/*k14*:AllSteps/*k15*' \
  > "$R/gpu_tests.log" 2>&1; echo "tests rc=$?"; grep -E "^\[  PASSED|^\[  FAILED|tests ran" "$R/gpu_tests.log" | head -20
elapsed tests; pack
b() { local name=$1; shift; timeout 60 /tmp/bn/tessel bench gemm "$@" --repeat 3 --csv "$R/$name.csv" > "$R/$name.txt" 2>&1; echo "== $name"; medians "$R/$name.csv" | grep -v cublas; }
b beta1_1000_auto --m 1000 --n 1000 --k 1000 --beta 1 --impl auto,cublas
b beta1_1000_k14 --m 1000 --n 1000 --k 1000 --beta 1 --impl k14,cublas --tile-m 64
b beta1_1024_auto --m 1024 --n 1024 --k 1024 --beta 1 --impl auto,cublas
b beta1_4096_auto --m 4096 --n 4096 --k 4096 --beta 1 --impl auto,cublas
b beta1_4096_f16f32 --m 4096 --n 4096 --k 4096 --beta 1 --dtype fp16 --out-dtype fp32 --layout A:m,B:n --impl auto,cublas
b beta1_8192_28672 --m 8192 --n 28672 --k 8192 --beta 1 --impl auto,cublas
b beta0_1000_auto --m 1000 --n 1000 --k 1000 --impl auto,cublas
elapsed done
pack
