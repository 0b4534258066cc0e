#!/usr/bin/env bash
# Session-27 device run (e): s27d put split K's fixed cost at 2-2.5 us a call
# (swapped 16: intercept 6.0 us unsplit on 64 CTAs, 8.0 with two splits on
# 128) and showed 64 CTAs streaming slower (2.79 against 3.15 TB/s).  A
# narrower swapped tile gives 128 CTAs without a split where M spans two
# widths: M = 32 on 16-wide tiles, M = 64 on 32-wide, M = 128 on 64-wide
# (each B row tile then read by two CTAs, from L2 the second time).
# Predicted: intercepts near 6 us with 128-CTA streaming (~3.1 TB/s), so
# 64 x 8192 x 8192 from 0.93 to ~0.98 and M = 32 likewise; M = 128 against
# its unswapped 128 x 64 (0.97) unclear.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
B=/tmp/bn/tessel
K=4096,8192,16384,32768
run() { local name=$1; shift; timeout 150 $B bench gemm --n 8192 --k $K --repeat 2 --csv "$R/$name.csv" "$@" > "$R/$name.txt" 2>&1; elapsed "$name"; pack; }
run m32_swapped16_s1 --m 32 --impl k13,cublas --swap-ab on --tile-n 16 --splits 1
run m32_auto --m 32 --impl auto,cublas
run m64_swapped32_s1 --m 64 --impl k13,cublas --swap-ab on --tile-n 32 --splits 1
run m128_swapped64_s1 --m 128 --impl k13,cublas --swap-ab on --tile-n 64 --splits 1
for f in m32_swapped16_s1 m32_auto m64_swapped32_s1 m128_swapped64_s1; do
  echo "== $f"; python3 bench/lab/fit_k_scaling.py "$R/$f.csv"
done
elapsed "done"
pack
