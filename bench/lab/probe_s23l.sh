#!/usr/bin/env bash
# Session-23 device run 12: after k13::produce_units (the grouped kernels'
# producer loop written once; k15 batched +4 instructions): the batched GPU
# suite, the two batches again, and bench/sanitize_k15.sh with --order none
# (verification launches only; its session-22 log had the timing loop's
# "Unable to allocate" errors).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; pack; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 150 $B/tests/cuda/gemm_test --gtest_filter='Batched/*:Grouped*' > "$R/gpu_tests_batched_grouped_h100.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gpu_tests_batched_grouped_h100.log" | tr '\n' ' ') $(( $(date +%s) - t0 )) s"
for mn in 512 2048; do
  timeout 100 $B/tessel bench gemm --m $mn --n $mn --k 128 --batch 32 --impl auto,k13,cublas --repeat 3 \
    --csv "$R/batched_${mn}_after_refactor.csv" > /dev/null 2>&1
  python3 - "$R/batched_${mn}_after_refactor.csv" "$mn" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl']!='cublas': g[r['impl']].append(r)
print('batch 32 x %s^2 x 128: ' % sys.argv[2] + '  '.join('%s %.3f (%s)' % (i, st.median(float(r['ratio']) for r in v), v[0]['note']) for i,v in g.items()))
PY
done
TESSEL_BIN=$B/tessel timeout 300 bash bench/sanitize_k15.sh > "$R/sanitizer_k15_h100.log" 2>&1
echo "sanitize_k15 rc=$? $(( $(date +%s) - t0 )) s"
grep "^==\|^exit\|SUMMARY\|Internal" "$R/sanitizer_k15_h100.log" | paste - - - | cut -c1-150
pack
