#!/usr/bin/env bash
# Session 33, probe a: the store pattern's ceiling for issue 13's strided
# batch (bench/lab/store_pattern.cu), on the device machine.
source bench/lab/probe_lib.sh
gpu_line | tee "$R/gpu.txt"
nvcc -std=c++20 -O2 -arch=sm_90a -I include -o /tmp/store_pattern bench/lab/store_pattern.cu > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
/tmp/store_pattern | tee "$R/store_pattern.txt"
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader | tee -a "$R/gpu.txt"
pack
