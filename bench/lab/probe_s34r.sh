#!/usr/bin/env bash
# Session 34, probe r: what cuBLASLt runs on the strided batches still below
# 1.0 after this session (K = 64: 32 x 2048^2 0.97, 16 x 4096^2 0.92;
# N = 8192, K = 128: 8 x 2048 x 8192 0.97, 16 x 1024 x 8192 0.92-0.93),
# against k15's batched kernel: ncu of one verification launch each (kernel
# name, grid, cluster, time, DRAM bytes, L2 sectors).  For the next session.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__shared_mem_per_block_dynamic,dram__throughput.avg.pct_of_peak_sustained_elapsed
for shp in "32 2048 2048 64" "16 4096 4096 64" "8 2048 8192 128" "16 1024 8192 128"; do
  set -- $shp
  echo "== $shp"
  timeout 120 ncu -k regex:'nvjet|gemm_pingpong|sm90|cutlass' --metrics $M /tmp/cb/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 \
    --impl auto,cublas --order none > "$R/ncu_${1}_${2}x${3}x${4}.txt" 2>&1
  grep -E "^  [a-zA-Z_v].*\(|duration|dram__|lts__t|grid_size|cluster_dim|shared_mem" "$R/ncu_${1}_${2}x${3}x${4}.txt" | cut -c1-140
done
elapsed ncu; pack
