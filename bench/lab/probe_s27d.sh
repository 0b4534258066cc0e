#!/usr/bin/env bash
# Session-27 device run (d): s27c found the small-M gap to be fixed cost, not
# streaming: auto streams B as fast as cuBLASLt (3.16 / 3.09 TB/s at M = 16)
# but its time at K -> 0 is 8.2 us against 4.7 (M = 16, swapped 128 x 16, two
# splits), 6.9 against 3.5 (M = 64, swapped 128 x 64, one split, 64 CTAs) and
# 5.7 against 4.5 (M = 128, unswapped 128 x 64, 128 CTAs).  Which part of the
# swapped configurations costs the extra 2-3 us?  The same K sweep with k13
# forced: unswapped 128 x 64 unsplit at M = 16 and 64 (128 CTAs, like M = 128);
# swapped 16 unsplit (64 CTAs) at M = 16; swapped 64 with two splits at M = 64.
# Predicted: the unswapped forms' intercepts near M = 128's 5.7 us (the
# transposed epilogue and the split's second phase being the extra).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
B=/tmp/bn/tessel
K=4096,8192,16384,32768
run() { local name=$1; shift; timeout 150 $B bench gemm --n 8192 --k $K --repeat 2 --csv "$R/$name.csv" "$@" > "$R/$name.txt" 2>&1; elapsed "$name"; pack; }
run m16_unswapped64 --m 16 --impl k13,cublas --swap-ab off --tile-n 64 --splits 1
run m64_unswapped64 --m 64 --impl k13,cublas --swap-ab off --tile-n 64 --splits 1
run m16_swapped16_s1 --m 16 --impl k13,cublas --swap-ab on --tile-n 16 --splits 1
run m64_swapped64_s2 --m 64 --impl k13,cublas --swap-ab on --tile-n 64 --splits 2
run m16_auto --m 16 --impl auto,cublas
for f in m16_unswapped64 m64_unswapped64 m16_swapped16_s1 m64_swapped64_s2 m16_auto; do
  echo "== $f"; python3 bench/lab/fit_k_scaling.py "$R/$f.csv"
done
elapsed "done"
pack
