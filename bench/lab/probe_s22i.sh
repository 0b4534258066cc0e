#!/usr/bin/env bash
# Session-22 device run 9: the sanitizer script on the final k15 (warp-uniform
# warpgroup index), and racecheck of k13 with 128-wide tiles at 2048^2 x 128
# (256 tiles: two per CTA, a path racecheck never saw) beside k15's: k15's
# racecheck failed there with "Internal Sanitizer Error: failed to handle a
# hardware exception" in runs 5 and 7 (memcheck and synccheck clean, results
# exact); if k13 fails the same way the limit is the tool's on persistent
# wgmma kernels, not k15's.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for args in "k13 --tile-n 128:wgmma_in_flight" "k15:pingpong"; do
  impl=${args%%:*}; kn=${args##*:}; f="$R/racecheck_2048_$(echo $impl | tr -d ' -').log"
  # shellcheck disable=SC2086
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 --kernel-name kns=$kn $B/tessel bench gemm --m 2048 --n 2048 --k 128 --impl $impl --verify tier1 --warmup 1 --iterations 1 > "$f" 2>&1
  echo "racecheck $impl rc=$? $(grep -E 'SUMMARY|Internal|verify' "$f" | head -3 | tr '\n' ' ')"
done
pack
TESSEL_BIN=$B/tessel timeout 330 bash bench/sanitize_k15.sh > "$R/sanitizer_k15_h100.log" 2>&1
echo "sanitizer rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^== |^exit|SUMMARY" "$R/sanitizer_k15_h100.log" | paste - - - | head -20
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
