#!/usr/bin/env bash
# Session-28 device run (d): k14 on the 64 x 128 tile (clusters of two
# M-neighbours sharing B: cuBLASLt's 1000^3 kernel, ..._64x128_64x8_2x1_...).
# Tier 1 first (K14Tuning's 64 x 128 instance over the sweep, the many-pairs
# test), then bench/lab/small_grid_s28_suite.csv: k14 --tile-m 64 and k15, each
# with cuBLASLt beside it, two repeats; then compute-sanitizer (bench/sanitize_s28.sh).
# Predicted: where rows straddle lines (1000^3, 1016^3, 1000 x 1000 x 4000)
# the cluster halves B's L2 requests: 64 x 128 alone ran 0.72-0.74, k15 0.83-0.89;
# k14 at 64 x 128 0.88-0.95.  Where rows are whole lines, about k13's 64 x 128
# less the cluster's coupling (s27a: -7 % at 128 x 64).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 150 /tmp/bn/tests/cuda/gemm_test --gtest_filter='K14Tuning/*m64*:GemmClusterMulticast.*' \
  > "$R/gpu_tests_k14.log" 2>&1; echo "tests rc=$?"; grep -E "PASSED|FAILED" "$R/gpu_tests_k14.log" | head; pack
S=bench/lab/small_grid_s28_suite.csv
for rep in 1 2; do
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl k14,cublas --tile-m 64 --repeat 1 --csv "$R/k14m64_$rep.csv" > "$R/k14m64_$rep.txt" 2>&1
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl k15,cublas --repeat 1 --csv "$R/k15_$rep.csv" > "$R/k15_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
for f in k14m64 k15; do cat "$R/${f}_1.csv" > "$R/$f.csv"; tail -n +2 "$R/${f}_2.csv" >> "$R/$f.csv"; echo "== $f"; medians "$R/$f.csv" | grep -v cublas; done
TESSEL_BIN=/tmp/bn/tessel timeout 170 bash bench/sanitize_s28.sh > "$R/sanitizer_s28.log" 2>&1
grep -E "^==|^exit|ERROR SUMMARY" "$R/sanitizer_s28.log" | paste - - - | head -30
elapsed "done"
pack
