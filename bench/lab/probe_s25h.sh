#!/usr/bin/env bash
# Session-25 device run: f11 under register caps (fp32_configs SCREEN=6).
# ptxas gives f11's A:m instance 254 registers (f10's: 204) and f11's loop
# ran ~3 % under f10's per tile (s25c, s25d, s25g).  The same body in
# kernels with __maxnreg__ 204/216/232 (A:m) and 208/232/240 (A:k), none
# spilling, against f11 as built and f10, each exact and against cuBLAS on
# its layout, 4096^3 and 8192^3.  Guess (the static counts have misled
# twice): a cap near f10's 204 brings A:m back towards f10's speed.
source bench/lab/probe_lib.sh
gpu_line
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
  bench/lab/fp32_configs.cu -lcublas -lcuda -o /tmp/fp32_configs > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
elapsed "nvcc"
SCREEN=6 timeout 200 /tmp/fp32_configs 4096 8192 | tee "$R/f11_caps_h100.txt"
elapsed "done"
pack
