#!/usr/bin/env bash
# Runs the k09 lab (build it first: bash bench/lab/build.sh "VARIANTS") at
# 4096^3: bit-exact verification of every variant, two burst passes (50
# launches each), then each variant alone for 1500 launches ("sustained",
# about 0.5 s at the GPU's power limit) with nvidia-smi sampling the SM
# clock and the board power every 50 ms (bench/lab/sampled.sh).  Needs a GPU.
#   bash bench/lab/run.sh "VARIANTS" > bench/results/k09_variants_<gpu>.log
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
lab=${TESSEL_LAB:-$root/build/lab/lab}
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
echo "== burst: verification, then 2 passes x 2 repeats of 50 launches"
"$lab" 4096 4096 4096 50 2>&1 | grep -v '^map'
"$lab" 4096 4096 4096 50 2>&1 | grep '^rep'
echo "== sustained: 1500 launches per variant, SM clock and board power (bench/lab/sampled.sh)"
for v in $1; do
  bash "$root/bench/lab/sampled.sh" "v$v" "$lab" 4096 4096 4096 1500 "v$v" 2>&1 | grep -E '^rep|^sampled'
done
