#!/usr/bin/env bash
# Session-24 device run 1: (a) the committed 4-stage cap of k13's swapped
# 16/32-wide tiles through gemm_test's swap cases; (b) the fp32 ladder's best
# steps (f07, f08, f10) at all four layouts against cuBLASLt fp32 on the same
# layout in the same run: the seed's last step is a layout change (column-major
# B), and f10's A:m instance needs 207 registers against A:k's 255.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
b=/tmp/bn
cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1
cmake --build $b -j16 --target tessel_cli gemm_test > "$R/build.log" 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 200 $b/tests/cuda/gemm_test --gtest_filter='*Swap*:*swap*' > "$R/gpu_tests_swap_cap4.log" 2>&1; echo "swap tests rc=$?"; tail -3 "$R/gpu_tests_swap_cap4.log"
pack
timeout 240 $b/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f07,f08,f10,cublas --layout all --repeat 2 --flush read --csv "$R/fp32_layouts.csv" > "$R/fp32_layouts.txt" 2>&1; echo "fp32 rc=$?"
python3 - "$R/fp32_layouts.csv" <<'PY'
import csv,sys,statistics as st,collections
d=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    d[(r['m'],r['layout'],r['impl'])].append((float(r['ratio']),float(r['tflops']),r['disposition']))
for k in sorted(d): print(k, '%.3f'%st.median(x[0] for x in d[k]), '%.1f'%st.median(x[1] for x in d[k]), set(x[2] for x in d[k]))
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
