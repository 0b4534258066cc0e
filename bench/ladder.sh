#!/usr/bin/env bash
# Regenerates the GEMM ladder results: every step (k01..k15) at 2048^3, 4096^3
# and 8192^3 (bf16, A:k, B:n), each alone; the shape suite for the plan's
# choice (auto), interleaved and alone; the plots and the table in
# docs/ladder.md.  Needs a GPU and a CUDA build (scripts/setup.sh).
#   bash bench/ladder.sh [gpu-name]      e.g. h100 (default: from nvidia-smi)
# Why the orders (docs/bench-protocol.md §3): the ladder's steps each run
# alone (--order blocks), because in one interleaved loop k01's 30 ms
# launches hold the card far below its power cap while k13 needs 1200
# launches, so every fast step would be timed uncapped, and the loop takes
# minutes per problem; 1 s blocks with the heat.  The suite runs both ways:
# interleaved (the protocol's default: one clock for both libraries) and
# alone with 2 s blocks (the clock each library's own power sets).  About
# 15 minutes on an H100.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
gpu=${1:-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | awk '{print tolower($2)}')}
best=auto  # the plan's choice: the shape suite and the headline are measured for it
out=bench/results
mkdir -p "$out"
"$bin" bench gemm --suite bench/ladder_suite.csv --impl all --order blocks --min-ms 1000 --repeat 2 \
  --csv "$out/ladder_$gpu.csv"
"$bin" bench gemm --suite tests/data/bench_suite.csv --impl "$best" --repeat 2 --csv "$out/suite_${best}_$gpu.csv"
"$bin" bench gemm --suite tests/data/bench_suite.csv --impl "$best" --order blocks --min-ms 2000 --repeat 2 \
  --csv "$out/suite_${best}_alone_$gpu.csv"
python3 bench/plot_gemm.py "$out/ladder_$gpu.csv" --out "docs/ladder_$gpu.png"
python3 bench/plot_gemm.py "$out/suite_${best}_$gpu.csv" --out "docs/suite_${best}_$gpu.png"
python3 bench/ladder_table.py "$out/ladder_$gpu.csv" "$out/suite_${best}_$gpu.csv" docs/ladder.md "$best" \
  "$out/suite_${best}_alone_$gpu.csv"
