#!/usr/bin/env bash
# Session-30 device run (c): the class that a rule for k14 --tile-m 64 would
# take (bench/lab/straddle_s30_suite.csv: A's rows straddle lines, at most
# 132 tiles of 64 x 128), k14 --tile-m 64 against auto (rule 12's k15 there)
# and k15, cuBLASLt beside each, two repeats; 1000^3 in all four layouts and
# with fp32 D.  s30a: 1000^3 0.934 (k15 0.889), 1000 x 1000 x 4000 0.909
# (0.854), 1016^3 0.888 (0.879); 1000 x 2000 x 1000 (256 tiles) 0.750 (0.849).
# Predicted: k14 ahead by 2-8 % where its pairs make one wave and A's rows
# straddle; behind where A's rows are whole (1024 x 1000 x 1024: B's straddle).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
S=bench/lab/straddle_s30_suite.csv
for rep in 1 2; do
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl k14,cublas --tile-m 64 --repeat 1 --csv "$R/k14m64_$rep.csv" > "$R/k14m64_$rep.txt" 2>&1
  timeout 100 /tmp/bn/tessel bench gemm --suite $S --impl auto,k15,cublas --repeat 1 --csv "$R/auto_$rep.csv" > "$R/auto_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
for f in k14m64 auto; do cat "$R/${f}_1.csv" > "$R/$f.csv"; tail -n +2 "$R/${f}_2.csv" >> "$R/$f.csv"; echo "== $f"; medians "$R/$f.csv" | grep -v cublas; done
timeout 80 /tmp/bn/tessel bench gemm --m 1000 --n 1000 --k 1000 --layout all --impl k14,cublas --tile-m 64 --repeat 2 --csv "$R/lay_k14.csv" > "$R/lay_k14.txt" 2>&1
timeout 80 /tmp/bn/tessel bench gemm --m 1000 --n 1000 --k 1000 --layout all --impl auto,cublas --repeat 2 --csv "$R/lay_auto.csv" > "$R/lay_auto.txt" 2>&1
timeout 60 /tmp/bn/tessel bench gemm --m 1000 --n 1000 --k 1000 --out-dtype fp32 --impl k14,cublas --tile-m 64 --repeat 2 --csv "$R/f32_k14.csv" > "$R/f32_k14.txt" 2>&1
timeout 60 /tmp/bn/tessel bench gemm --m 1000 --n 1000 --k 1000 --out-dtype fp32 --impl auto,cublas --repeat 2 --csv "$R/f32_auto.csv" > "$R/f32_auto.txt" 2>&1
for f in lay_k14 lay_auto f32_k14 f32_auto; do echo "== $f"; medians "$R/$f.csv" | grep -v cublas; done
elapsed done
pack
