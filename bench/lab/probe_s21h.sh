#!/usr/bin/env bash
# Session-21 device run 8: f08 now runs the screen's best tile (128 x 256,
# k-tiles of 8, 4 stages; predicted 0.90-0.92 of cuBLAS at 4096^3/8192^3 as
# in the screen), `auto` takes rule 9 (f08 where 2 x its tiles >= SMs, else
# f07).  The fp32 ladder table (every step, 2048^3/4096^3/8192^3) and rule 9's
# shapes; the fp32 tier-1 tests and the API tests.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test gemm_api_test > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 240 $B/tests/cuda/gemm_test --gtest_filter='*GemmF32*' > "$R/gpu_tests_f32_h100.log" 2>&1
echo "gemm_test GemmF32 rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gpu_tests_f32_h100.log" | tr '\n' ' ')"; grep -E "^\[  FAILED" "$R/gpu_tests_f32_h100.log" | head
timeout 60 $B/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1
echo "gemm_api_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_api_test.log" | tr '\n' ' ')"
echo "elapsed $(( $(date +%s) - t0 )) s"
TESSEL_BIN=$B/tessel timeout 330 bash bench/fp32_ladder.sh "$R/fp32_ladder_h100.csv" > "$R/fp32_ladder.log" 2>&1
echo "ladder rc=$?"
summ() {
python3 - "$1" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[(r['m'],r['n'],r['k'],r['impl'])].append(r)
for (m,n,k,i),v in g.items():
    rt=[float(r['ratio']) for r in v if r['ratio']]; tf=[float(r['tflops']) for r in v if r['tflops']]
    print(m,n,k,'%-7s'%i,v[0]['disposition'],'TF %.2f'%st.median(tf) if tf else '-','ratio %.3f'%st.median(rt) if rt else '-','clk',v[0]['sm_clock_mhz'][:6],'W',v[0]['power_w'][:5],v[0]['note'][:40])
PY
}
summ "$R/fp32_ladder_h100.csv"
echo "elapsed $(( $(date +%s) - t0 )) s"
timeout 150 $B/tessel bench gemm --suite bench/fp32_rule9_suite.csv --dtype fp32 --impl f07,f08,auto,cublas --repeat 2 --flush read --csv "$R/fp32_rule9_h100.csv" > "$R/fp32_rule9.log" 2>&1
echo "rule9 rc=$?"; summ "$R/fp32_rule9_h100.csv"
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
