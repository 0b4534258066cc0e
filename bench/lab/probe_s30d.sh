#!/usr/bin/env bash
# Session-30 device run (d): rule 13 (k14 on 64 x 128 tiles where B's rows
# straddle lines and the pairs fit one wave of clusters) through the plan.
# Tier 1 through auto (Plan/*: the sweeps' shapes, 1000^3 among them, now
# k14), then the straddle class with auto (expect s30c's k14 column), 1000^3
# with beta = 1 (auto keeps k13 there: k14 measured beside it, for a later
# widening), and the cluster count: k14 --tile-m 64 at 2048 x 512 x 1000
# (64 pairs) against 2112 x 512 x 1000 (66 pairs): if fewer than 66 clusters
# of this kernel fit at once, the second runs two waves (about 2x the time).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 150 /tmp/bn/tests/cuda/gemm_test --gtest_filter='Plan/*:GemmClusterMulticast*:K14Tuning/*m64*' \
  > "$R/gpu_tests_plan.log" 2>&1; echo "tests rc=$?"; grep -E "^\[  PASSED|^\[  FAILED|tests ran" "$R/gpu_tests_plan.log" | head
elapsed tests; pack
S=bench/lab/straddle_s30_suite.csv
for rep in 1 2; do
  timeout 80 /tmp/bn/tessel bench gemm --suite $S --impl auto,cublas --repeat 1 --csv "$R/auto_$rep.csv" > "$R/auto_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
cat "$R/auto_1.csv" > "$R/auto.csv"; tail -n +2 "$R/auto_2.csv" >> "$R/auto.csv"; echo "== auto"; medians "$R/auto.csv" | grep -v cublas
timeout 60 /tmp/bn/tessel bench gemm --m 1000 --n 1000 --k 1000 --beta 1 --impl auto,cublas --repeat 3 --csv "$R/beta_auto.csv" > "$R/beta_auto.txt" 2>&1
timeout 60 /tmp/bn/tessel bench gemm --m 1000 --n 1000 --k 1000 --beta 1 --impl k14,cublas --tile-m 64 --repeat 3 --csv "$R/beta_k14.csv" > "$R/beta_k14.txt" 2>&1
timeout 60 /tmp/bn/tessel bench gemm --m 2048,2112 --n 512 --k 1000 --impl k14,cublas --tile-m 64 --repeat 3 --csv "$R/pairs.csv" > "$R/pairs.txt" 2>&1
for f in beta_auto beta_k14 pairs; do echo "== $f"; medians "$R/$f.csv"; done
elapsed done
pack
