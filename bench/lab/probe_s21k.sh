#!/usr/bin/env bash
# Session-21 device run 11 (last budget): GemmEpiJit with the fixed
# expectation, then compute-sanitizer racecheck of f08 at a small edge shape
# (515x260x77 timed out twice under racecheck; 256x128x64 passed).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || exit 1
cmake --build $B -j16 --target gemm_test tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
TESSEL_CACHE_DIR=/tmp/jitcache timeout 120 $B/tests/cuda/gemm_test --gtest_filter='Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gpu_tests_jit_h100.log" 2>&1
echo "gemm_test JIT rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gpu_tests_jit_h100.log" | tr '\n' ' ') $(( $(date +%s) - t0 )) s"; grep -E "^\[  FAILED" "$R/gpu_tests_jit_h100.log" | head -3
pack
for shape in "300 200 40"; do
  set -- $shape
  timeout 100 compute-sanitizer --tool racecheck --kernel-name kns=thread_tile $B/tessel bench gemm --dtype fp32 --impl f08 --m $1 --n $2 --k $3 --verify tier1 --warmup 1 --iterations 1 > "$R/racecheck_f08_$1x$2x$3.log" 2>&1
  echo "racecheck f08 $shape rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck_f08_$1x$2x$3.log")"
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
