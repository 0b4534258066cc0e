#!/usr/bin/env bash
# Session-22 device run 5: rule 10 (auto picks k15) checked: the GPU tests
# (k15, the pingpong many-tile test, the plan and the epilogue suites), the
# sanitizer on k15, and the fused bias+GELU table with auto.
# Predictions: auto's fused row at 4096^3 is k15's (0.209 ms in run 3, +4.7 %
# over k15 plain); at 8192x28672x8192 auto stays k13 (rule 10's flop bound).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target gemm_test tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 200 $B/tests/cuda/gemm_test --gtest_filter='*k15*:GemmPingpong.*:Plan/*:*GemmEpi.*' > "$R/gpu_tests_k15_plan_h100.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gpu_tests_k15_plan_h100.log" | tr '\n' ' ') $(( $(date +%s) - t0 )) s"; grep -E "^\[  FAILED" "$R/gpu_tests_k15_plan_h100.log" | head -12
pack
TESSEL_BIN=$B/tessel timeout 330 bash bench/sanitize_k15.sh > "$R/sanitizer_k15_h100.log" 2>&1
echo "sanitizer rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^== |^exit|SUMMARY" "$R/sanitizer_k15_h100.log" | paste - - - | awk '{print}' | head -20
pack
summ() {
python3 - "$1" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[r['impl']].append(r)
for k,v in g.items():
    ms=[float(r['median_ms']) for r in v if r['median_ms']]
    rt=[float(r['ratio']) for r in v if r['ratio']]
    print(v[0]['m'],v[0]['n'],v[0]['k'],'%-14s'%k,v[0]['disposition'],'ms %.4f'%st.median(ms) if ms else '-', 'ratio %.3f'%st.median(rt) if rt else '-', 'clk',v[0]['sm_clock_mhz'][:6],'W',v[0]['power_w'][:5], v[0]['note'][:50])
PY
}
for shape in "4096 4096 4096" "8192 28672 8192"; do
  set -- $shape
  timeout 60 $B/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$R/epi_auto_$1x$2x$3.csv" > /dev/null 2>&1; summ "$R/epi_auto_$1x$2x$3.csv"
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
