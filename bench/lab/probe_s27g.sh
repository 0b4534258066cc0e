#!/usr/bin/env bash
# Session-27 device run (g): k13's swapped one-warpgroup tile, 64 rows of N
# (GemmTuning::tile_m = 64, `--tile-m 64`): 128 CTAs at N = 8192 without
# splitting K, cuBLASLt's shape for small M (64 x 16 tiles, 128 CTAs).
# s27d/s27e: 128 CTAs stream ~3.15 TB/s but split K costs 2-2.5 us a call;
# unsplit 128-row tiles run 64 CTAs, which stream 2.8-3.0 TB/s.
# Predicted: intercept ~6 us (unsplit) with 128-CTA streaming (~3.1 TB/s):
# M = 16, 32, 64 at N = K = 8192 from 0.93-0.95 to 0.98-0.99 of cuBLASLt.
# Tier 1 first: the 64-row sweeps (K13SwapRows64), the 128-row swapped ones,
# the tuning rejections, the plan.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 300 /tmp/bn/tests/cuda/gemm_test --gtest_filter='K13SwapRows64/*:K13Swap/*:*RejectsBadK13Tuning*:Plan/*:GemmClusterMulticast.*:GemmPingpong.*' \
  > "$R/gpu_tests_m64.log" 2>&1; echo "tests rc=$?"; grep -E "PASSED|FAILED" "$R/gpu_tests_m64.log" | head -20; pack
B=/tmp/bn/tessel
K=4096,8192,16384,32768
run() { local name=$1; shift; timeout 150 $B bench gemm --n 8192 --k $K --repeat 2 --csv "$R/$name.csv" "$@" > "$R/$name.txt" 2>&1; elapsed "$name"; pack; }
run m16_rows64 --m 16 --impl k13,cublas --swap-ab on --tile-n 16 --splits 1 --tile-m 64
run m16_auto --m 16 --impl auto,cublas
run m32_rows64 --m 32 --impl k13,cublas --swap-ab on --tile-n 32 --splits 1 --tile-m 64
run m64_rows64 --m 64 --impl k13,cublas --swap-ab on --tile-n 64 --splits 1 --tile-m 64
run m64_auto --m 64 --impl auto,cublas
for f in m16_rows64 m16_auto m32_rows64 m64_rows64 m64_auto; do
  echo "== $f"; python3 bench/lab/fit_k_scaling.py "$R/$f.csv"; medians "$R/$f.csv" | grep -v cublas
done
elapsed "done"
pack
