#!/usr/bin/env bash
# For session 25's first device run: does reading the next k-step's fragments
# after row 1 or 3 of f10's FFMAs (A:m's SASS: 14.9 -> 10.9 % same-bank FFMAs,
# accumulator moves 29 -> 15 %) run faster?  bench/lab/fp32_configs.cu's
# SCREEN=3 (each variant exact against a naive kernel, then timed against
# cublasSgemm on the same layout in the same process), 4096^3 and 8192^3,
# twice.  Predicted: +1.5-3 % on A:m (0.988 / 0.967 -> about 1.00 / 0.99 of
# cuBLAS), A:k unchanged (its count moves 25.0 -> 25.6 %).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
  bench/lab/fp32_configs.cu -lcublas -lcuda -o /tmp/fp32_configs > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for round in 1 2; do SCREEN=3 /tmp/fp32_configs 4096 8192 | tee -a "$R/fp32_f10_reads_h100.txt"; done
