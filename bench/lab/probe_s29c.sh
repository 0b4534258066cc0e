#!/usr/bin/env bash
# Session-29 device run (c): the 64 x 128 tile's one warpgroup alternates two
# accumulator sets over its k-tiles (consume_two_accumulators), as cuBLASLt's
# 1000^3 kernel does (s29b: its two consumer warpgroups each keep an even and
# an odd m64n64 set).  Tier 1 first (K13Rows64 and K14Tuning over the sweep:
# K of 1, 2, 3 k-tiles and split units with odd counts), then the small-grid
# rows with k13 and k14 at 64 x 128, auto and k15, cuBLASLt beside each, two
# repeats, then ncu at 1000^3 and 1024^3.
# Predicted: if consecutive dependent m64n128 batches are what holds the one
# warpgroup back, k13 m64 at 1024^3 0.95 -> 1.0-1.1 and k14 m64 at 1000^3
# 0.86 -> 0.95-1.0 (cuBLASLt's 10.1 K active cycles against k14's 13.5 K);
# if the loads' arrival is (s29b: k14's consumers sample 25 % at the full
# barrier), no change beyond +-2 %.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 200 /tmp/bn/tests/cuda/gemm_test --gtest_filter='K13Rows64/*:K14Tuning/*:Plan/*' > "$R/gpu_tests.log" 2>&1
echo "tests rc=$?"; tail -3 "$R/gpu_tests.log"; grep -E "FAILED" "$R/gpu_tests.log" | head; pack
S=bench/lab/small_grid_s28_suite.csv
for rep in 1 2; do
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl k13,cublas --tile-m 64 --swap-ab off --repeat 1 --csv "$R/m64_$rep.csv" > "$R/m64_$rep.txt" 2>&1
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl k14,cublas --tile-m 64 --repeat 1 --csv "$R/k14m64_$rep.csv" > "$R/k14m64_$rep.txt" 2>&1
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl auto,cublas --repeat 1 --csv "$R/auto_$rep.csv" > "$R/auto_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
for f in m64 k14m64 auto; do cat "$R/${f}_1.csv" > "$R/$f.csv"; tail -n +2 "$R/${f}_2.csv" >> "$R/$f.csv"; echo "== $f"; medians "$R/$f.csv" | grep -v cublas; done
M="gpu__time_duration.sum,sm__cycles_active.avg,lts__t_requests_srcunit_tex.sum,sm__inst_executed.sum"
for spec in "1000|--impl k14 --tile-m 64" "1000|--impl k13 --tile-m 64 --swap-ab off" "1024|--impl k13 --tile-m 64 --swap-ab off"; do
  IFS='|' read -r s sp <<< "$spec"
  echo "=== $s $sp"
  timeout 60 ncu --kernel-name-base mangled -k regex:gemm_kernels --launch-skip 2 --launch-count 1 --metrics $M \
    /tmp/bn/tessel bench gemm --m $s --n $s --k $s $sp --iterations 6 --warmup 2 --verify none 2>&1 | grep -E "^    [a-z]"
done > "$R/ncu.txt" 2>&1
cat "$R/ncu.txt"
elapsed "done"
pack
