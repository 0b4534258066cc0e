#!/usr/bin/env bash
# Session-29 device run (a): why 1000^3 stays at 0.87.  k14 on the 64 x 128
# tile in 2 x 1 clusters (B multicast) is cuBLASLt's configuration at this
# shape (nvjet_sm90_tst_64x128_..._2x1), yet takes ~13 us against ~11.3.
# ncu, sections for both kernels at 1000^3 and 1024^3: tessel's kernel caught by
# the mangled-name filter `gemm_kernels` alone (s28a's `gemm_kernels|nvjet`
# with a launch skip caught cuBLASLt's kernel), cuBLASLt's by `nvjet` with
# --impl cublas.  Then the two issue-13 rows that are still short, re-measured
# on today's tree: fused bias + GELU at 4096^3 and 8192 x 28672 x 8192, the
# strided batches 32 x 512^2 x 128 and 32 x 2048^2 x 128.
# Expected: at 1000^3 k14 reads more L2 sectors per k-tile than cuBLASLt or
# waits longer on the full barrier (the TMA of straddling rows); at 1024^3 the
# two kernels read about the same sectors.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
B=/tmp/bn
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats"
for s in 1000 1024; do
  echo "=== $s^3 k14 --tile-m 64"
  timeout 90 ncu --kernel-name-base mangled -k regex:gemm_kernels --launch-skip 2 --launch-count 1 $SEC \
    $B/tessel bench gemm --m $s --n $s --k $s --impl k14 --tile-m 64 --iterations 6 --warmup 2 --verify none 2>&1
  echo "=== $s^3 cublas"
  timeout 90 ncu -k regex:nvjet --launch-skip 2 --launch-count 1 $SEC \
    $B/tessel bench gemm --m $s --n $s --k $s --impl cublas --iterations 6 --warmup 2 --verify none 2>&1
done > "$R/ncu_1000_1024.txt" 2>&1
grep -E "^===|^  [a-z_].*\(|Duration|Elapsed Cycles|L2 Cache Throughput|DRAM Throughput|Memory Throughput|Executed Ipc A|Registers Per|Cluster Size|Grid Size|Block Size|Shared Memory Configuration Size|Dynamic Shared|Executed Instructions  |Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|No Eligible|Active Warps Per" "$R/ncu_1000_1024.txt" | cut -c1-110
elapsed "ncu"; pack
for s in 1000 1024; do
  timeout 60 $B/tessel bench gemm --m $s --n $s --k $s --impl k14,cublas --tile-m 64 --repeat 3 --csv "$R/sq_k14_$s.csv" > "$R/sq_k14_$s.log" 2>&1
  timeout 60 $B/tessel bench gemm --m $s --n $s --k $s --impl auto,cublas --repeat 3 --csv "$R/sq_auto_$s.csv" > "$R/sq_auto_$s.log" 2>&1
  medians "$R/sq_k14_$s.csv"; medians "$R/sq_auto_$s.csv"
done
for shp in "4096 4096 4096" "8192 28672 8192"; do
  set -- $shp
  timeout 150 $B/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$R/epi_${1}_${2}_${3}.csv" > "$R/epi_${1}_${2}_${3}.log" 2>&1
  medians "$R/epi_${1}_${2}_${3}.csv"
  elapsed "epi $1"; pack
done
for mn in 512 2048; do
  timeout 100 $B/tessel bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 3 --csv "$R/batched_$mn.csv" > "$R/batched_$mn.log" 2>&1
  medians "$R/batched_$mn.csv"
done
elapsed "done"
pack
