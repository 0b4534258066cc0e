#!/usr/bin/env bash
# Session-23 device run 6: the whole gemm_test (minus the JIT suites, which
# need nvcc at run time) and gemm_api_test after k15's batched kernel and
# the shared grouped launcher; then racecheck on earlier persistent TMA
# kernels (k10, k11, k13 at 128 x 256) at shapes where a CTA takes two
# tiles: does the tool's "failed to handle a hardware exception" follow the
# second tile in kernels without k15's turn or 128-wide tiles?
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test gemm_api_test > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; pack; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 300 $B/tests/cuda/gemm_test --gtest_filter='-Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gpu_tests_gemm_full_h100.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)|tests ran' "$R/gpu_tests_gemm_full_h100.log" | tr '\n' ' ') $(( $(date +%s) - t0 )) s"
grep -E "^\[  FAILED" "$R/gpu_tests_gemm_full_h100.log" | head
timeout 100 $B/tests/cuda/gemm_api_test > "$R/gemm_api_test_h100.log" 2>&1
echo "gemm_api_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_api_test_h100.log" | tr '\n' ' ')"
for c in "k10 4096 2048 128 0" "k11 4096 2048 128 0" "k13 4096 2048 128 256" "k13 2048 2048 128 256"; do
  set -- $c
  tn=""; [ "$5" != 0 ] && tn="--tile-n $5"
  echo "== racecheck $1 $2x$3x$4 $tn"
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 --kernel-name kns=gemm "$B/tessel" bench gemm \
    --m $2 --n $3 --k $4 --impl $1 $tn --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu," | tail -4
  echo "exit ${PIPESTATUS[0]}"
done > "$R/racecheck_two_tiles.log" 2>&1
cat "$R/racecheck_two_tiles.log"
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
