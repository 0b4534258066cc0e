#!/usr/bin/env bash
# Prepared in session 33; first run in session 34 by probe_s34a.sh
# (bench/results/s34/s34a_store_pattern_pairs_h100.txt):
# does sharing B between the two CTAs of a cluster (TMA multicast, k14's
# scheme) shorten k15's batched data movement?  bench/lab/store_pattern.cu's
# move_pairs, at 32 x 2048^2 x 128 and 32 x 512^2 x 128, with and without
# multicast, 4 and 5 stages; first once under compute-sanitizer (the kernel
# has never run), then timed.
# Predicted: s33a put the movement of 128 x 128 units at 111-119 us against
# 85 us for the stores alone; if L2 reads are what the loads cost, a quarter
# fewer of them (48 KB per unit-pair k-tile instead of 64) should take
# 2048^2 to ~108-112 us; at 512^2 (about 12 us, mostly fixed costs) no change.
source bench/lab/probe_lib.sh
gpu_line
nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -lineinfo -I include -o /tmp/store_pattern \
  bench/lab/store_pattern.cu > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log"; exit 1; }
timeout 200 compute-sanitizer --print-limit 5 /tmp/store_pattern pairs 1 > "$R/sanitizer_pairs.txt" 2>&1
grep -E "ERROR SUMMARY|WRONG|error" "$R/sanitizer_pairs.txt" | head -10
/tmp/store_pattern pairs | tee "$R/store_pattern_pairs.txt"
pack
