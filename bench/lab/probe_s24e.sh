#!/usr/bin/env bash
# Session-24 device run 5: compute-sanitizer memcheck, racecheck and
# synccheck of f10 (now the best fp32 step, on A:m, B:n) after its change
# (the next k-tile's fragments read without a branch: after the last k-tile
# a stage is read whose values nothing uses).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
t0=$(date +%s)
b=/tmp/bn
cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1
cmake --build $b -j16 --target tessel_cli > "$R/build.log" 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
TESSEL_BIN=$b/tessel IMPLS=f10 LAYOUT=A:m,B:n timeout 150 bash bench/sanitize_fp32.sh > "$R/sanitizer_fp32_f10_mn_h100.log" 2>&1
grep -E "^==|ERROR SUMMARY|^exit" "$R/sanitizer_fp32_f10_mn_h100.log"
echo "elapsed $(( $(date +%s) - t0 )) s"
