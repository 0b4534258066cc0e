#!/usr/bin/env bash
# Session-25 device run: f11's body with a straight path for whole tiles
# (Form 1: f10's shape for the data-parallel CTAs, the loop over pieces for
# the shared slices) and other rows for the next fragments' reads
# (fp32_configs SCREEN=9), f10 and f11 as built beside, exact, against
# cublasSgemm on each layout, 4096^3 and 8192^3.  No prediction of the
# winner: ptxas's allocation has moved these kernels by 2-4 % with every
# change so far.
source bench/lab/probe_lib.sh
gpu_line
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
  bench/lab/fp32_configs.cu -lcublas -lcuda -o /tmp/fp32_configs > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
elapsed "nvcc"
SCREEN=9 timeout 200 /tmp/fp32_configs 4096 8192 | tee "$R/f11_forms_h100.txt"
elapsed "done"
pack
