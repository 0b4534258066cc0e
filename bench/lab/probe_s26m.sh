#!/usr/bin/env bash
# Session-26 device run: `auto` with rule 9's last threshold (B's copy from
# M = 192, commit 047a0aa) on the row s26l missed (200 x 6000 x 3000,
# A:m,B:k: f07 0.701 ran, f12 0.861 forced) and on 300 x 4096 x 4096.
# Predicted: auto = f12 on both, ~0.86 and ~0.75.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
printf 'group,m,n,k,dtype\nunseen,200,6000,3000,fp32\nunseen,300,4096,4096,fp32\n' > /tmp/m_suite.csv
timeout 100 /tmp/bn/tessel bench gemm --suite /tmp/m_suite.csv --dtype fp32 --impl auto,cublas --layout "A:m,B:k" \
  --repeat 2 --csv "$R/rule9_m192.csv" > "$R/rule9_m192.txt" 2>&1; echo "bench rc=$?"
medians "$R/rule9_m192.csv" | grep -v cublas
grep -o "fp32 inputs: f[0-9]*" "$R/rule9_m192.csv" | sort | uniq -c
pack
