#!/usr/bin/env bash
# Session 35, probe b.  (1) The new gemm_test (probe a's build with the
# GemmEpiMath test added): the prescaled activations against activate bit
# for bit, the epilogue suites, and the run-time compiled epilogues with the
# tree's headers.  (2) Issue 12's last short row, 128 x 8192 x 8192 (k13
# 64 x 128, 0.995-0.999): tunings the CLI can force, each against cuBLASLt,
# then ncu of auto's and cuBLASLt's kernels (time, DRAM bytes, L2 sectors,
# grid, cluster).  (3) Fused ReLU against fused GELU at 8192 x 28672 x 8192
# (k13): what the GELU's MUFU.TANH costs where the epilogue is exposed.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/new && tar xJf .carry/new.txz -C /tmp/new
B=/tmp/new/tessel
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc || export PATH=/usr/local/cuda/bin:$PATH
timeout 300 /tmp/new/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$R/gemm_test_epi.log" | head; elapsed tests; pack
s="--m 128 --n 8192 --k 8192"
run() { local name=$1; shift; timeout 100 $B bench gemm $s --repeat 3 --csv "$R/m128_$name.csv" "$@" > "$R/m128_$name.log" 2>&1; echo "-- $name"; medians "$R/m128_$name.csv" | grep -v cublas; }
run auto --impl auto,cublas
run k13_128x64 --impl k13,cublas --tile-m 128 --tile-n 64
run k13_64x128_s2 --impl k13,cublas --tile-m 64 --tile-n 128 --splits 2
run k13_64x64 --impl k13,cublas --tile-m 64 --tile-n 64
run k14_64x128 --impl k14,cublas --tile-m 64
run k15 --impl k15,cublas
run swap64 --impl k13,cublas --swap-ab on --tile-n 64
run auto_rg1 --impl auto,cublas --raster-group 1
run auto_rg2 --impl auto,cublas --raster-group 2
run auto2 --impl auto,cublas
elapsed variants; pack
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__shared_mem_per_block_dynamic,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg
timeout 120 ncu -k regex:'nvjet|wgmma|multicast|pingpong|cutlass|sm90' --metrics $M $B bench gemm $s --impl auto,cublas --order none > "$R/ncu_m128.txt" 2>&1
grep -E "^  [a-zA-Z_v].*\(|duration|dram__|lts__t|grid_size|cluster_dim|shared_mem|cycles_active" "$R/ncu_m128.txt" | cut -c1-150
elapsed ncu; pack
for e in bias_relu bias_gelu; do
  timeout 200 $B bench gemm --m 8192 --n 28672 --k 8192 --epilogue $e --impl auto,cublas --repeat 3 --csv "$R/epi_8192_$e.csv" > "$R/epi_8192_$e.log" 2>&1
  echo "== $e"; medians "$R/epi_8192_$e.csv"
done
elapsed epi; pack
