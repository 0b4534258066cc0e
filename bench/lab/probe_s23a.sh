#!/usr/bin/env bash
# Session-23 device run 1: k15's batched kernel (k15_grouped.cuh).
# Build; the batched and plan GPU tests (k15 added to GemmBatched); then the
# two strided batches of issue 13 (batch 32, K = 128, 512^2 and 2048^2) with
# auto (rule 11 -> k15), k13 (its batched kernel, rule 8's width) and k15
# against cuBLASLt strided batched, 3 repeats, interleaved.
# Prediction (k15_grouped.cuh): 2048^2 from 0.85 to >= 0.97, 512^2 from 0.82
# to ~0.95.  Last: cli_test's GPU test of --order none (never run yet).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; pack; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 200 $B/tests/cuda/gemm_test --gtest_filter='Batched/*:GemmPingpong*' > "$R/gpu_tests_batched.log" 2>&1
echo "tests rc=$? $(grep -c '^\[       OK' "$R/gpu_tests_batched.log") ok; $(grep '^\[  FAILED\|^\[  PASSED' "$R/gpu_tests_batched.log" | head -3)"
grep -m10 -A3 "Failure" "$R/gpu_tests_batched.log"
for mn in 512 2048; do
  timeout 100 $B/tessel bench gemm --m $mn --n $mn --k 128 --batch 32 --impl auto,k13,k15,cublas --repeat 3 \
    --csv "$R/batched_${mn}.csv" > /dev/null 2>&1
  echo "batch 32 x ${mn}^2 x 128 rc=$?"
  python3 - "$R/batched_${mn}.csv" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[r['impl']].append(r)
for impl,rs in g.items():
    rt=[float(r['ratio']) for r in rs if r['ratio']]
    ms=[float(r['median_ms']) for r in rs if r['median_ms']]
    print('  %-7s ratio %.3f  %.1f us  %s  clk %s W %s  %s' % (impl, st.median(rt) if rt else -1, 1e3*st.median(ms) if ms else -1,
          rs[0]['disposition'], rs[0]['sm_clock_mhz'][:4], rs[0]['power_w'][:3], rs[0]['note']))
PY
done
echo "elapsed $(( $(date +%s) - t0 )) s"
timeout 120 python3 tests/cli_test.py $B/tessel -k gpu > "$R/cli_test_gpu.log" 2>&1
echo "cli_test gpu rc=$? $(tail -3 "$R/cli_test_gpu.log" | tr '\n' ' ')"
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
