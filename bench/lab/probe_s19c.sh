#!/usr/bin/env bash
# Session-19 device run 3: build everything the tests and benches need, run
# gemm_test (all suites) and gemm_api_test (stage "test"); then time the swap
# for small M, the fp32 ladder and the suite (stages "small", "suite").
#   bash bench/lab/probe_s19c.sh test|small|suite
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=/tmp/bn
t0=$(date +%s)
summ() {
python3 - "$@" <<'PY'
import csv,sys,statistics as st,collections
for f in sys.argv[1:]:
    g=collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['impl']!='cublas': g[(r['m'],r['n'],r['k'],r['dtype'],r['impl'],r['note'])].append(r)
    for k,v in g.items():
        med=lambda c: st.median(float(x[c]) for x in v if x[c] not in ('',None))
        try: print(f.split('/')[-1],k,'t_us %.1f cub %.1f ratio %.3f GB/s %.0f clk %.0f/%.0f W %.0f/%.0f'%(1e3*med('median_ms'),1e3*med('cublas_median_ms'),med('ratio'),med('gbytes_per_s'),med('sm_clock_mhz'),med('cublas_sm_clock_mhz'),med('power_w'),med('cublas_power_w')), v[0]['disposition'])
        except Exception as e: print(f, k, 'ERR', e, v[0].get('disposition'), v[0].get('note'))
PY
}
case "$1" in
test)
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
  cmake --build $B -j16 --target tessel_cli gemm_test gemm_api_test > "$OUT/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$OUT/build.log"; exit 1; }
  echo "build $(( $(date +%s) - t0 )) s"
  timeout 60 $B/tests/cuda/gemm_api_test > "$OUT/gemm_api_test.log" 2>&1; echo "gemm_api_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gemm_api_test.log" | tr '\n' ' ')"
  timeout 330 $B/tests/cuda/gemm_test > "$OUT/gemm_test.log" 2>&1
  echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gemm_test.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED|Failure" "$OUT/gemm_test.log" | head -30
  grep -E "^\[  FAILED" "$OUT/gemm_api_test.log" | head
  echo "elapsed $(( $(date +%s) - t0 )) s";;
small)
  cat > /tmp/sm.csv <<'CSV'
group,m,n,k
small_m,16,8192,8192
small_m,32,8192,8192
small_m,64,8192,8192
small_m,128,8192,8192
small_m,256,4096,4096
small_m,32,4096,4096
small_m,16,28672,8192
small_m,64,14336,4096
CSV
  $B/tessel bench gemm --suite /tmp/sm.csv --impl auto,cublas --repeat 3 --csv "$OUT/small_auto.csv" 2>/dev/null
  $B/tessel bench gemm --suite /tmp/sm.csv --impl k13 --swap-ab off --repeat 2 --csv "$OUT/small_noswap.csv" 2>/dev/null
  $B/tessel bench gemm --m 16,64 --n 8192 --k 8192 --impl k13 --swap-ab on --splits 1 --repeat 2 --csv "$OUT/small_swap_s1.csv" 2>/dev/null
  summ "$OUT"/small_*.csv
  echo "elapsed $(( $(date +%s) - t0 )) s"
  TESSEL_BIN=$B/tessel timeout 300 bash bench/fp32_ladder.sh "$OUT/fp32_ladder.csv" > "$OUT/fp32.log" 2>&1; echo "fp32 rc=$?"
  summ "$OUT/fp32_ladder.csv"
  echo "elapsed $(( $(date +%s) - t0 )) s";;
suite)
  $B/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,k14,cublas --repeat 3 --csv "$OUT/suite.csv" 2>/dev/null | tail -4
  summ "$OUT/suite.csv"
  echo "elapsed $(( $(date +%s) - t0 )) s";;
esac
