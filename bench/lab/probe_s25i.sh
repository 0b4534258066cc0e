#!/usr/bin/env bash
# Session-25 device run: what cuBLAS's fp32 GEMM runs at 4096^3 and 8192^3
# on A:k,B:n and A:m,B:n (kernel name, grid, block, registers, shared
# memory, duration, SM throughput), for the question f10 leaves open:
# cuBLAS gains 3.7 % from 4096^3 to 8192^3 on A:m,B:n, f10 0.8 %.
# fp32_configs SCREEN=cublas under ncu (the kernels that are not the
# reference's naive kernel or the flush's read).
source bench/lab/probe_lib.sh
gpu_line
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
  bench/lab/fp32_configs.cu -lcublas -lcuda -o /tmp/fp32_configs > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
elapsed "nvcc"
for n in 4096 8192; do
  SCREEN=cublas timeout 120 ncu --kernel-name regex:'^(?!naive|read_all)' --section LaunchStats --section SpeedOfLight \
    --section Occupancy /tmp/fp32_configs $n > "$R/ncu_cublas_fp32_$n.txt" 2>&1
  echo "ncu $n rc=$?"
  grep -E "^  [A-Za-z_].*\(|Grid Size|Block Size|Registers Per|Shared Memory Config|Dynamic Shared|Duration|Compute \(SM\) Throughput|Waves Per SM|Cluster Size|SM Frequency" "$R/ncu_cublas_fp32_$n.txt" | head -40
done
elapsed "done"
pack
