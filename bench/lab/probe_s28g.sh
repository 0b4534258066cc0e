#!/usr/bin/env bash
# Session-28 device run (g): the second repeat of rule 1b's domain (s28b ran
# one before the 600 s limit), four layouts, auto against the old 128 x 64;
# then fp32 output on four of its shapes (auto against 128 x 64), with cuBLASLt
# on the same types beside each.
# Predicted: the same signs as s28b's first repeat (56 of 60 rows up).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
S=bench/lab/rule1b_s28_suite.csv
L="A:k,B:n;A:m,B:n;A:k,B:k;A:m,B:k"
timeout 150 /tmp/bn/tessel bench gemm --suite $S --layout "$L" --impl auto,cublas --repeat 1 --csv "$R/r1b_auto_2.csv" > "$R/r1b_auto_2.txt" 2>&1
timeout 150 /tmp/bn/tessel bench gemm --suite $S --layout "$L" --impl k13,cublas --tile-n 64 --swap-ab off --repeat 1 --csv "$R/r1b_n64_2.csv" > "$R/r1b_n64_2.txt" 2>&1
elapsed "rep 2"; pack
for spec in "auto" "k13 --tile-n 64 --swap-ab off"; do
  timeout 60 /tmp/bn/tessel bench gemm --m 1024,512,2048 --n 1024,2048,512 --k 4096 --out-dtype fp32 --impl $spec,cublas --repeat 2 \
    --csv "$R/fp32_${spec%% *}.csv" > "$R/fp32_${spec%% *}.txt" 2>&1
done
for f in fp32_auto fp32_k13; do echo "== $f"; medians "$R/$f.csv" | grep -v cublas; done
elapsed "done"
pack
