#!/usr/bin/env bash
# Session 34, probe q: on the CI build of the final code (as probe p): the
# fused bias + GELU rows of issue 13's first criterion (4096^3 and
# 8192 x 28672 x 8192, as bench/lab/probe_s29a.sh), so that every measured
# criterion of issue 13 is from one day's code; then the shape suite with
# --impl auto against cuBLASLt (two repeats), a regression check of the
# raster's clamp (GroupedRasterN::tile_of, in every persistent kernel) on
# issue 12's rows.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
B=/tmp/cb/tessel
for shp in "4096 4096 4096" "8192 28672 8192"; do
  set -- $shp
  timeout 200 $B bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$R/epi_${1}_${2}_${3}.csv" > "$R/epi_${1}_${2}_${3}.log" 2>&1
  medians "$R/epi_${1}_${2}_${3}.csv"
  elapsed "epi $1"; pack
done
timeout 250 $B bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 2 \
  --csv "$R/suite_auto_s34q.csv" > "$R/suite_auto_s34q.txt" 2>&1; echo "suite rc=$?"
medians "$R/suite_auto_s34q.csv" | grep -v cublas | tee "$R/suite_medians.txt"
elapsed suite; pack
