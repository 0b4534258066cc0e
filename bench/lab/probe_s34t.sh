#!/usr/bin/env bash
# Session 34, probe t: for the next session, B multicast in 2-CTA clusters
# (store_pattern.cu's move_pairs: k15's batched data movement without math)
# at 3 stages too (rule 11c's depth) and on 8 x 2048 x 8192 (64 tile
# columns, a batch still at 0.97 of cuBLASLt).  Predicted: at 3 stages
# multicast shortens the 2048^2 movement by 2-5 % as at 4 (probe a); on
# 8 x 2048 x 8192 the same or more (cuBLASLt's cluster kernel wins there).
source bench/lab/probe_lib.sh
gpu_line
nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -lineinfo -I include -o /tmp/store_pattern \
  bench/lab/store_pattern.cu > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
/tmp/store_pattern pairs | tee "$R/store_pattern_pairs.txt"
elapsed lab; pack
