#!/usr/bin/env bash
# Session-25 device run 3: f11's knobs.  In f11's loop over pieces ptxas
# allocates f10's main loop differently (A:m 254 registers, not 204) and f11
# ran 2-4 % under f10's per-tile speed (s25c).  fp32_configs SCREEN=5: f11
# with and without the serpentine FFMA order and with the next fragments
# read after row 1, 3 or 7, each exact against a naive kernel and timed
# against cublasSgemm on its layout, f10 beside, at 3072^3 (2.2 waves),
# 4096^3 and 8192^3.  No prediction of which wins: the static counts
# (bench/lab/ffma_banks.py) ranked the last two screens wrongly.
source bench/lab/probe_lib.sh
gpu_line
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
  bench/lab/fp32_configs.cu -lcublas -lcuda -o /tmp/fp32_configs > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
elapsed "nvcc"
SCREEN=5 timeout 300 /tmp/fp32_configs 3072 4096 8192 | tee "$R/f11_knobs_h100.txt"
elapsed "done"
pack
