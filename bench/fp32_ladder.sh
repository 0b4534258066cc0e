#!/usr/bin/env bash
# The fp32 ladder (docs/ladder.md, "The fp32 ladder"): every fp32 step
# (f01..f06) and cuBLASLt's fp32 GEMM (CUBLAS_COMPUTE_32F, no TF32) at 2048^3,
# 4096^3 and 8192^3 (bench/fp32_ladder_suite.csv: fp32 A, B and D, A:k, B:n,
# alpha 1, beta 0), 2 repeats, the L2 flushed by a read before every timed
# launch, tier-2 verification of every row against the fp64 reference; one
# CSV.  Needs a GPU and a CUDA build (scripts/setup.sh).
#   bash bench/fp32_ladder.sh OUT.csv      e.g. bench/results/fp32_ladder_h100.csv
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bash bench/fp32_ladder.sh OUT.csv}
bin=${TESSEL_BIN:-build/sm90a/tessel}
mkdir -p "$(dirname "$out")"
"$bin" bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl all --repeat 2 --flush read --csv "$out"
echo "wrote $out"
