#!/usr/bin/env bash
# Session 34, probe w: issue 12's rows that must be >= 1.00 (4096^3, the five
# llm shapes, 128 x 8192 x 8192), three separate runs of two repeats on the
# CI build of 40c1abc: how far one run's median moves from the next at the
# power cap, for the question "at or above 1.00 on every run".
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for run in 1 2 3; do
  f="$R/issue12_rows_run$run.csv"
  timeout 180 /tmp/cb/tessel bench gemm --suite bench/lab/issue12_rows.csv --impl auto,cublas --repeat 2 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "run $run rc=$?"; medians "$f" | grep -v cublas
  pack
done
elapsed runs
