#!/usr/bin/env bash
# Session-24 device run 4: f10 with its fragments read unconditionally at a
# k-tile's end and, for A:m, the serpentine FFMA order (SASS: FFMAs with two
# source registers in one bank 22.1 -> 14.9 % of the A:m main loop, 28.9 ->
# 25.0 % of A:k's; bench/lab/ffma_banks.py).  Predicted: f10 on A:m, B:n
# from 0.944 / 0.923 (s24a) to 0.97-1.00 of cuBLAS fp32 at 4096^3 / 8192^3;
# on A:k, B:n +1-2 % (0.86 -> 0.87).  f08 and cuBLAS in the same run.  Then
# tier 1 of f10 (gemm_test's fp32 sweep).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
b=/tmp/bn
cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1
cmake --build $b -j16 --target tessel_cli > "$R/build.log" 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 150 $b/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f08,f10,cublas --layout "A:m,B:n;A:k,B:n" --repeat 2 --flush read --csv "$R/fp32_f10_serpentine.csv" > "$R/fp32_f10_serpentine.txt" 2>&1; echo "fp32 rc=$?"
python3 - "$R/fp32_f10_serpentine.csv" <<'PY'
import csv,sys,statistics as st,collections
d=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    d[(r['m'],r['layout'],r['impl'])].append((float(r['ratio']),float(r['tflops']),r['disposition'],r['sm_clock_mhz'],r['power_w']))
for k in sorted(d): print(k, '%.3f'%st.median(x[0] for x in d[k]), '%.1f'%st.median(x[1] for x in d[k]), set(x[2] for x in d[k]), d[k][0][3], d[k][0][4][:5])
PY
pack
cmake --build $b -j16 --target gemm_test > "$R/build_test.log" 2>&1; echo "gemm_test build rc=$? $(( $(date +%s) - t0 )) s"
timeout 120 $b/tests/cuda/gemm_test --gtest_filter='*GemmF32*f10*' > "$R/gpu_tests_f10.log" 2>&1; echo "tests rc=$?"; grep -E "PASSED|FAILED" "$R/gpu_tests_f10.log" | head -5
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
