#!/usr/bin/env bash
# Session 34, probe p: issue 13's strided and grouped acceptance rows on the
# clean-clone CI build of ce5bd01 (/tmp/ci35/build/sm90a on the 2-core
# machine, carried as .carry/bins.txz): the two strided batches through
# auto against cuBLASLt strided batched, five repeats, two runs; the MoE
# group against cuBLAS's grouped call (GroupProblem grew by the raster's
# divisors: the group's kernel and descriptors changed), three repeats;
# gemm_test (all of it: the raster's clamp is in every persistent kernel) and gemm_api_test.  Probe q: the fused
# epilogue rows and the suite.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
B=/tmp/cb/tessel
timeout 400 /tmp/cb/tests/cuda/gemm_test > "$R/gpu_tests_gemm_full.log" 2>&1
echo "gemm_test (all) rc=$?: $(grep -E '^\[  (PASSED|FAILED) |tests from .* ran' "$R/gpu_tests_gemm_full.log" | tr '\n' ' ')"
timeout 200 /tmp/cb/tests/cuda/gemm_api_test > "$R/gpu_tests_gemm_api.log" 2>&1
echo "gemm_api_test rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$R/gpu_tests_gemm_api.log" | tr '\n' ' ')"
elapsed tests; pack
for run in 1 2; do
  for mn in 512 2048; do
    f="$R/batched_${mn}_run${run}.csv"
    timeout 150 $B bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 5 --csv "$f" > "${f%.csv}.log" 2>&1
    medians "$f"
  done
done
elapsed strided; pack
f="$R/moe.csv"
timeout 200 $B bench gemm --grouped moe --impl auto,cublas --repeat 3 --csv "$f" > "$R/moe.log" 2>&1
echo "moe rc=$?"; medians "$f"; tail -4 "$R/moe.log"
elapsed moe; pack
