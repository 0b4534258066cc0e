#!/usr/bin/env bash
# Regenerates the GEMM ladder results: every step (k01..k11) at 2048^3, 4096^3
# and 8192^3 (bf16, A:k, B:n), the shape suite for the best step (k11), the
# plots and the table in docs/ladder.md.  Needs a GPU and a CUDA build
# (scripts/setup.sh).
#   bash bench/ladder.sh [gpu-name]      e.g. h100 (default: from nvidia-smi)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
gpu=${1:-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | awk '{print tolower($2)}')}
best=auto  # the plan's choice: the shape suite and the headline are measured for it
out=bench/results
mkdir -p "$out"
"$bin" bench gemm --suite bench/ladder_suite.csv --impl all --repeat 2 --csv "$out/ladder_$gpu.csv"
"$bin" bench gemm --suite tests/data/bench_suite.csv --impl "$best" --repeat 2 --csv "$out/suite_${best}_$gpu.csv"
python3 bench/plot_gemm.py "$out/ladder_$gpu.csv" --out "docs/ladder_$gpu.png"
python3 bench/plot_gemm.py "$out/suite_${best}_$gpu.csv" --out "docs/suite_${best}_$gpu.png"
python3 bench/ladder_table.py "$out/ladder_$gpu.csv" "$out/suite_${best}_$gpu.csv" docs/ladder.md "$best"
