#!/usr/bin/env bash
# Session-30 device run (a): tier 1 on the final code of session 29 (the
# scheduler made per side after setmaxnreg, the Wide form for the fused
# 128 x 256 consumers: not yet run on a GPU) and on this session's k14 change,
# then k14 at the small-grid rows.
# The k14 change (docs/ladder.md, "k14's start and end"): s29d's timeline of
# k14 --tile-m 64 at 1000^3 (15.3 K cycles a CTA) had the cluster barrier
# done at 1442 cycles (316 for k13's __syncthreads), the first load at 2361,
# and a 64-bit PersistentScheduler before it.  Now: the arrive relaxed right
# after the barriers' init (no MEMBAR.ALL.GPU; the init fence releases),
# each side's setup before its wait, the pairs counted in 32 bits, and no
# cluster barrier at the end (the producer waits for its stages' last
# releases, TmaPipeline::producer_tail).
# Predicted: ~1.0-1.3 K cycles less a CTA, k14 --tile-m 64 at 1000^3
# 0.867 -> 0.92-0.95 (above k15's 0.88: a rule for the straddling rows),
# 1000 x 1000 x 4000 0.90 -> 0.92-0.93, aligned rows +5-8 % (still behind
# k13's 64 x 128); k14 at rule 5's large short-K grids (8192 x 8192 x 256,
# 16384 x 16384 x 128) +0-2 %.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 260 /tmp/bn/tests/cuda/gemm_test --gtest_filter='K13*:K14Tuning/*:Plan/*:Batched/*:Grouped/*:Paths/*:GemmSplitK*:GemmStreamK*:GemmPingpong*:GemmSwapRows64*:GemmClusterMulticast*:AllSteps/*k14*:AllSteps/*k15*' \
  > "$R/gpu_tests.log" 2>&1; echo "tests rc=$?"; grep -E "^\[  PASSED|^\[  FAILED|tests ran" "$R/gpu_tests.log" | head -20
elapsed tests; pack
S=bench/lab/small_grid_s28_suite.csv
for rep in 1 2; do
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl k14,cublas --tile-m 64 --repeat 1 --csv "$R/k14m64_$rep.csv" > "$R/k14m64_$rep.txt" 2>&1
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl k15,cublas --repeat 1 --csv "$R/k15_$rep.csv" > "$R/k15_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
for f in k14m64 k15; do cat "$R/${f}_1.csv" > "$R/$f.csv"; tail -n +2 "$R/${f}_2.csv" >> "$R/$f.csv"; echo "== $f"; medians "$R/$f.csv" | grep -v cublas; done
for s in "8192 8192 256" "16384 16384 128" "16 8192 8192" "64 8192 8192" "128 8192 8192"; do
  set -- $s
  timeout 60 /tmp/bn/tessel bench gemm --m $1 --n $2 --k $3 --impl auto,cublas --repeat 3 --csv "$R/auto_$1_$2_$3.csv" > "$R/auto_$1_$2_$3.log" 2>&1
  medians "$R/auto_$1_$2_$3.csv" | grep -v cublas
done
elapsed done
pack
