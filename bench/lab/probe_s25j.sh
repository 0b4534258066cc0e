#!/usr/bin/env bash
# Runs at commit 3110b3b (reverted after this run: the Split instance and
# SCREEN=8 are not in later trees).  Session-25 device run: f10 with serial split K, cuBLAS's answer on A:m,B:n
# (s25i: CUTLASS's SIMT 128x256 nt kernel, 3 slices a tile at 8192^3).
# fp32_configs SCREEN=8: f10 and its Split instance with 1, 2, 3 and 5
# slices (grid z), A:m,B:n twice, A:k,B:n split 3 once, exact against a
# naive kernel, against cublasSgemm on the same layout, 4096^3 and 8192^3.
# Predicted: 8192^3 split 3 +2 % (waves 97 -> 99 % full; 0.966 -> ~0.986),
# split 5 about the same (99.5 % full, more D traffic); 4096^3 no gain (512
# x Z tiles fill 97 % of their waves for Z <= 8), split 1 = f10.
source bench/lab/probe_lib.sh
gpu_line
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
  bench/lab/fp32_configs.cu -lcublas -lcuda -o /tmp/fp32_configs > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
elapsed "nvcc"
SCREEN=8 timeout 200 /tmp/fp32_configs 4096 8192 | tee "$R/f10_split_h100.txt"
elapsed "done"
pack
