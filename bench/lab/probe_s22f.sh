#!/usr/bin/env bash
# Session-22 device run 6 (right after run 5, on its build): the suite with
# auto (rule 10) against cuBLASLt, and the ladder's k13/k15 rows at 2048^3,
# 4096^3, 8192^3.  Prediction: auto's geomean rises by ~1 % (k15 at 2048^3,
# 4096^3, 6144^3, 8192^3, 8192x8192x256, the 4096 llm shapes), no shape worse.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1; cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 200 $B/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 3 --csv "$R/suite_auto_k15_h100.csv" --json "$R/suite_auto_k15_h100.json" > "$R/suite_auto_k15_h100.log" 2>&1
echo "suite rc=$? $(( $(date +%s) - t0 )) s"; tail -4 "$R/suite_auto_k15_h100.log"
pack
for n in 2048 4096 8192; do
  timeout 60 $B/tessel bench gemm --m $n --n $n --k $n --impl k13,k15,cublas --repeat 3 --csv "$R/ladder_k15_$n.csv" > /dev/null 2>&1
  echo "ladder $n rc=$?"
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
