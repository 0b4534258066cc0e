#!/usr/bin/env bash
# Session-27 device run: k14 at 128 x 64 now shares A between N-neighbours
# (clusters of two CTAs on tiles (m, 2j), (m, 2j + 1)), as cuBLASLt's 1024^3
# kernel does.  Tier 1 first (k14's sweeps at every width, many pairs per
# cluster, batched), then the small grids of bench/lab/small_grid_s27_suite.csv:
# auto, k13 and k14 at 128 x 64, k15, each invocation with cuBLASLt beside it.
# Predicted: k14 at 128 x 64 reads a third less from L2 per k-tile than k13
# at 128 x 64 (32 against 48 KB per pair), so 1024^3 0.87-0.93 -> 0.95-1.0
# and 1000^3 (A's rows not whole lines) 0.86 (k15) -> 0.90-0.95; the risk is
# the cluster's coupling (a stage waits for both CTAs), which is what the
# B-sharing form's 0.70 at 1024^3 was blamed on.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 240 /tmp/bn/tests/cuda/gemm_test --gtest_filter='*K14Tuning*:GemmClusterMulticast.*:AllSteps/*k14*:Batched/*k14*' \
  > "$R/gpu_tests_k14.log" 2>&1; echo "tests rc=$?"; tail -3 "$R/gpu_tests_k14.log"; pack
S=bench/lab/small_grid_s27_suite.csv
for rep in 1 2; do
  timeout 120 /tmp/bn/tessel bench gemm --suite $S --impl auto,cublas --repeat 1 --csv "$R/auto_$rep.csv" > "$R/auto_$rep.txt" 2>&1
  timeout 120 /tmp/bn/tessel bench gemm --suite $S --impl k13,k14,cublas --tile-n 64 --repeat 1 --csv "$R/n64_$rep.csv" > "$R/n64_$rep.txt" 2>&1
  timeout 120 /tmp/bn/tessel bench gemm --suite $S --impl k15,cublas --repeat 1 --csv "$R/k15_$rep.csv" > "$R/k15_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
for f in auto n64 k15; do cat "$R/${f}_1.csv" > "$R/$f.csv"; tail -n +2 "$R/${f}_2.csv" >> "$R/$f.csv"; echo "== $f"; medians "$R/$f.csv"; done
elapsed "done"
pack
