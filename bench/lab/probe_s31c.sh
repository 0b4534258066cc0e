#!/usr/bin/env bash
# Session-31 device run (c): s31b's changes (the swapped tiles' TMA-stored
# D^T, the swapped 64 x 64 tile at 8 stages) in a clean build (no timeline
# patch): the small_m rows against cuBLASLt, five repeats, and the rows of
# issue 12 that sit at 1.00 (4096^3, 4096 x 4096 x 14336).
# Predicted: 64 x 8192 x 8192 0.968 -> ~1.0 (s31b: the slowest CTA 3050
# cycles earlier), 16 x 8192 x 8192 +0.5 %, 32 alike, 128 unchanged.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli || { grep -E "error" "$R/build.log" | head -30; exit 1; }
timeout 200 /tmp/bn/tessel bench gemm --m 16,32,64,128 --n 8192 --k 8192 --impl auto,cublas --repeat 5 --csv "$R/small_m.csv" > "$R/small_m.txt" 2>&1
medians "$R/small_m.csv" | grep -v cublas
elapsed small_m; pack
timeout 150 /tmp/bn/tessel bench gemm --m 4096 --n 4096 --k 4096,14336 --impl auto,cublas --repeat 3 --csv "$R/sq.csv" > "$R/sq.txt" 2>&1
medians "$R/sq.csv" | grep -v cublas
elapsed done
pack
