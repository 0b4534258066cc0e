#!/usr/bin/env bash
# Session-26 device run: where f11 loses at 4096^3 (A:m 0.992 of cuBLAS,
# where f10 on whole waves would give ~1.02).  (a) fp32_configs SCREEN=10:
# f11's split of the tiles (stream_k_split's; only the remainder shared;
# every tile shared; two waves shared) and the stream-K CTAs first in the
# grid, A:m, 4096^3 and 8192^3; (b) ncu of f10 and f11 on A:m at 4096^3
# (DRAM bytes, L2 hit rate, duration).
# Prediction: if the shared slices run slower per k-tile than whole tiles
# (CTAs at unrelated k positions share nothing in L2), "remainder only"
# (0.88 tile per SM shared instead of 1.88) gains ~1 % at 4096^3 and "all
# shared" loses several %; DRAM bytes of f11 above f10's.
source bench/lab/probe_lib.sh
gpu_line
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
  bench/lab/fp32_configs.cu -lcublas -lcuda -o /tmp/fp32_configs > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
elapsed "nvcc"
SCREEN=10 timeout 200 /tmp/fp32_configs 4096 8192 | tee "$R/f11_splits_h100.txt"
elapsed "screen"
pack
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,sm__cycles_active.avg
for k in gemm_tma_loads stream_k; do
  SCREEN=ncu11 timeout 120 ncu -k regex:$k -c 1 --metrics $M /tmp/fp32_configs 4096 > "$R/ncu_$k.txt" 2>&1
  grep -E "dram__|lts__|gpu__time|sm__cycles|==ERR" "$R/ncu_$k.txt"
done
elapsed "done"
pack
