#!/usr/bin/env bash
# Session 37, probe h: the clean-clone CI build of 6fc6388 (k13's first
# k-tile's loads before the CTA's barrier; binaries carried,
# bench/lab/pack_bins.sh): the shape suite with --impl auto against
# cuBLASLt (two repeats), then issue 12's rows (bench/lab/issue12_rows.csv)
# once more, three repeats.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
B=/tmp/cb/tessel
timeout 280 $B bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 2 \
  --csv "$R/suite_auto_s37h.csv" > "$R/suite_auto_s37h.txt" 2>&1; echo "suite rc=$?"
medians "$R/suite_auto_s37h.csv" | grep -v cublas | tee "$R/suite_medians.txt"
elapsed suite; pack
timeout 200 $B bench gemm --suite bench/lab/issue12_rows.csv --impl auto,cublas --repeat 3 \
  --csv "$R/issue12_rows.csv" > "$R/issue12_rows.txt" 2>&1; echo "rows rc=$?"
medians "$R/issue12_rows.csv" | grep -v cublas
elapsed rows; pack
