#!/usr/bin/env bash
# Session-21 device run 5: f09 (copies spread over 8 k-steps) measured 0.82
# (worse than f08's 0.89: +5.6 % instructions, wait and short_scoreboard
# stalls up).  f08 is now a template over its configuration; this run
# screens ten configurations (tile 256x128 / 128x256, k-tiles 8/16, 3/4
# stages, spread 0/2/4) against cublasSgemm at 4096^3 and 8192^3
# (bench/lab/fp32_configs.cu), and re-runs the fp32 tier-1 tests after the
# refactor.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude bench/lab/fp32_configs.cu -lcublas -o /tmp/fp32_configs > "$R/lab_build.log" 2>&1 &
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc -DTESSEL_BUILD_PYTHON=ON > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
wait
echo "build $(( $(date +%s) - t0 )) s"; tail -3 "$R/lab_build.log"
timeout 200 /tmp/fp32_configs 4096 8192 2>&1 | tee "$R/fp32_configs_h100.txt"
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader
echo "elapsed $(( $(date +%s) - t0 )) s"
timeout 240 $B/tests/cuda/gemm_test --gtest_filter='*GemmF32*' > "$R/gemm_test_f32.log" 2>&1
echo "gemm_test GemmF32 rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_test_f32.log" | tr '\n' ' ')"; grep -E "^\[  FAILED" "$R/gemm_test_f32.log" | head
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
