#!/usr/bin/env bash
# Session-28 device run (a): k13's unswapped one-warpgroup 64 x 128 tile
# (--tile-m 64 --swap-ab off).  Tier 1 first (K13Rows64 over the sweep, the
# tuning rejections, the plan), then bench/lab/small_grid_s28_suite.csv: auto,
# the 64 x 128 tile, k13 at 128 x 64, k15, each invocation with cuBLASLt
# beside it, two repeats; then ncu at 1024^3 (64 x 128 against 128 x 64).
# Predicted: per k16 step one m64n128 wgmma reads 6 KB of shared memory
# where 128 x 64's two m64n64 read 8 KB; with TMA's 24 KB of writes a k-tile
# moves 48 KB against 56 KB, so where shared memory bounds the main loop the
# 64 x 128 tile is up to 14 % faster: 1024^3 0.87-0.94 -> 0.93-1.0, 1000^3
# (k15 0.87) -> 0.90-0.95.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 300 /tmp/bn/tests/cuda/gemm_test --gtest_filter='*K13Rows64*:*RejectsBadK13Tuning*:Plan/*:GemmPlan*' \
  > "$R/gpu_tests.log" 2>&1; echo "tests rc=$?"; tail -3 "$R/gpu_tests.log"; grep -E "FAILED" "$R/gpu_tests.log" | head; pack
S=bench/lab/small_grid_s28_suite.csv
for rep in 1 2; do
  timeout 150 /tmp/bn/tessel bench gemm --suite $S --impl auto,cublas --repeat 1 --csv "$R/auto_$rep.csv" > "$R/auto_$rep.txt" 2>&1
  timeout 150 /tmp/bn/tessel bench gemm --suite $S --impl k13,cublas --tile-m 64 --swap-ab off --repeat 1 --csv "$R/m64_$rep.csv" > "$R/m64_$rep.txt" 2>&1
  timeout 150 /tmp/bn/tessel bench gemm --suite $S --impl k13,cublas --tile-n 64 --repeat 1 --csv "$R/n64_$rep.csv" > "$R/n64_$rep.txt" 2>&1
  timeout 150 /tmp/bn/tessel bench gemm --suite $S --impl k15,cublas --repeat 1 --csv "$R/k15_$rep.csv" > "$R/k15_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
for f in auto m64 n64 k15; do cat "$R/${f}_1.csv" > "$R/$f.csv"; tail -n +2 "$R/${f}_2.csv" >> "$R/$f.csv"; echo "== $f"; medians "$R/$f.csv"; done
M="gpu__time_duration.sum,lts__t_bytes.sum,sm__inst_executed.sum,launch__grid_size,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct"
for spec in "k13 --tile-m 64 --swap-ab off" "k13 --tile-n 64" "cublas"; do
  echo "== 1024^3 $spec"
  timeout 60 ncu --kernel-name-base mangled --launch-skip 4 --launch-count 1 -k regex:'gemm_kernels|nvjet' --metrics $M \
    /tmp/bn/tessel bench gemm --m 1024 --n 1024 --k 1024 --impl $spec --iterations 12 --warmup 3 --verify none 2>&1 \
    | grep -E "^  [_n]|duration|lts|inst|grid|stalled|hmma|wavefronts" | cut -c1-120
done > "$R/ncu_1024.txt" 2>&1
cat "$R/ncu_1024.txt"
elapsed "done"
pack
