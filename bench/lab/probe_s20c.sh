#!/usr/bin/env bash
# Session-20 device run 3: issue 13 (fused epilogues; batched and grouped where
# merged) and issue 14 (tessel.gemm from Python): GPU tests, then the
# acceptance benchmarks.  Predictions (docs/epilogues.md): fused bias + GELU
# within 3 % of the plain GEMM at 4096^3 and 8192 x 28672 x 8192 (the
# epilogue is O(MN) against O(MNK)), ahead of the unfused pair (a second pass
# over D: +2-4 %) and of cuBLASLt's GELU_BIAS.  Results are packed into one
# archive (only 8 files come back from the device).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc -DTESSEL_BUILD_PYTHON=ON > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test gemm_api_test _tessel > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 60 $B/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1; echo "gemm_api_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_api_test.log" | tr '\n' ' ')"
timeout 240 $B/tests/cuda/gemm_test --gtest_filter="${GEMM_FILTER:-*GemmEpi*:Batched/*:Grouped/*:Plan/*:K13*:K14*}" > "$R/gemm_test.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_test.log" | tr '\n' ' ')"; grep -E "^\[  FAILED" "$R/gemm_test.log" | head -20
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
