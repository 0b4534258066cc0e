#!/usr/bin/env bash
# Session-29 device run (f): the first work unit without 64-bit divisions
# (SplitKScheduler::next: no division at splits = 1, 32-bit unsigned ones
# otherwise; GroupScheduler unsigned), and the TMA-store epilogue's final wait
# for its staging reads only (finish: bulk_wait_group_read<0>).  s29e (timeline
# of k13's 64 x 128 at 1024^3, H100): the producer's first next() took 1300
# of the CTA's 11 K cycles, two 64-bit divisions called as subroutines among
# them; the final wait for the global writes 700.
# Predicted: the first load ~700 cycles earlier and the CTA ~1.4 K cycles
# shorter: small grids +5..8 % (1024^3 0.95 -> ~1.0, 512^3 0.85 -> ~0.9,
# 1000^3 through k15 0.87-0.89 -> ~0.93), batches a little, large problems
# unchanged (one first unit per CTA among many).
# Tier 1 on the kernels that use the schedulers and the epilogue first.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 200 /tmp/bn/tests/cuda/gemm_test --gtest_filter='K13Rows64/*:K13Swap*/*:K13Tuning/*:Plan/*:Batched/*:Grouped/*:GemmSplitK*:GemmStreamK*:GemmPingpong*:GemmSwapRows64*:GemmClusterMulticast*' \
  > "$R/gpu_tests.log" 2>&1; echo "tests rc=$?"; tail -3 "$R/gpu_tests.log"; grep -E "FAILED" "$R/gpu_tests.log" | head; pack
S=bench/lab/small_grid_s28_suite.csv
for rep in 1 2; do
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl auto,cublas --repeat 1 --csv "$R/auto_$rep.csv" > "$R/auto_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
cat "$R/auto_1.csv" > "$R/auto.csv"; tail -n +2 "$R/auto_2.csv" >> "$R/auto.csv"; echo "== auto"; medians "$R/auto.csv" | grep -v cublas
for mn in 512 2048; do
  timeout 60 /tmp/bn/tessel bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 3 --csv "$R/batched_$mn.csv" > "$R/batched_$mn.log" 2>&1
  medians "$R/batched_$mn.csv" | grep -v cublas
done
timeout 60 /tmp/bn/tessel bench gemm --m 4096 --n 4096 --k 4096 --impl auto,cublas --repeat 3 --csv "$R/sq4096.csv" > "$R/sq4096.log" 2>&1
medians "$R/sq4096.csv" | grep -v cublas
elapsed "done"
pack
