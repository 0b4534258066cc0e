#!/usr/bin/env bash
# The fp32 ladder (docs/ladder-fp32.md): every fp32 step
# (f01..f12) and cuBLASLt's fp32 GEMM (CUBLAS_COMPUTE_32F, no TF32) at 2048^3,
# 4096^3 and 8192^3 (bench/fp32_ladder_suite.csv: fp32 A, B and D, alpha 1,
# beta 0) on A:k, B:n and on A:m, B:n, 2 repeats, the L2 flushed by a read before every timed
# launch, tier-2 verification of every row against the fp64 reference; one
# CSV.  Needs a GPU and a CUDA build (scripts/setup.sh).
#   bash bench/fp32_ladder.sh OUT.csv      e.g. fp32_ladder_h100.csv
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bash bench/fp32_ladder.sh OUT.csv}
bin=${TESSEL_BIN:-build/sm90a/tessel}
mkdir -p "$(dirname "$out")"
# f01 (one thread per element) takes about a second per launch at 8192^3:
# it is timed over 10 launches after 2 warm-ups (the bench still times at
# least 200 ms); the other steps under the default protocol.
"$bin" bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f02,f03,f04,f05,f06,f07,f08,f09,f10,f11,f12,cublas \
  --layout "A:k,B:n;A:m,B:n" --repeat 2 --flush read --csv "$out"
"$bin" bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f01 --layout "A:k,B:n;A:m,B:n" \
  --repeat 2 --iterations 10 --warmup 2 --flush read --csv "$out.f01"
tail -n +2 "$out.f01" >> "$out"
rm -f "$out.f01"
echo "wrote $out"
