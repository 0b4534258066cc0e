#!/usr/bin/env bash
# Session-19 probe 2: build and test k14 (clusters + multicast) and k13's
# staged stores for unaligned D; then (stage 2) time them against cuBLASLt.
#   bash bench/lab/probe_s19b.sh build|bench
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=/tmp/bn
t0=$(date +%s)
if [ "$1" = build ]; then
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
  cmake --build $B -j16 --target tessel_cli gemm_test > "$OUT/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$OUT/build.log"; exit 1; }
  echo "build $(( $(date +%s) - t0 )) s"
  timeout 240 $B/tests/cuda/gemm_test --gtest_filter='*k13*:*K13*:*K14*:*k14*:Plan*' > "$OUT/gemm_test.log" 2>&1
  echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gemm_test.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED|Failure|error" "$OUT/gemm_test.log" | head -20
  echo "elapsed $(( $(date +%s) - t0 )) s"
  exit 0
fi
cat > /tmp/s.csv <<'CSV'
group,m,n,k
square,1024,1024,1024
odd,1000,1000,1000
square,2048,2048,2048
square,4096,4096,4096
square,8192,8192,8192
llm,4096,4096,14336
llm,4096,6144,4096
odd,4095,4095,4095
odd,4097,4097,4097
CSV
$B/tessel bench gemm --suite /tmp/s.csv --impl auto,k14,cublas --repeat 2 --csv "$OUT/k14_auto.csv" 2>/dev/null
echo "elapsed $(( $(date +%s) - t0 )) s"
cat > /tmp/s2.csv <<'CSV'
group,m,n,k
square,1024,1024,1024
odd,1000,1000,1000
odd,4097,4097,4097
CSV
$B/tessel bench gemm --suite /tmp/s2.csv --impl k14,k13 --tile-n 128 --splits 1 --repeat 2 --csv "$OUT/k14_n128.csv" 2>/dev/null
$B/tessel bench gemm --m 4097 --n 4097 --k 4097 --impl k13,k14 --tile-n 256 --splits 1 --repeat 2 --csv "$OUT/k_4097_n256.csv" 2>/dev/null
python3 - "$OUT"/k14_auto.csv "$OUT"/k14_n128.csv "$OUT"/k_4097_n256.csv <<'PY'
import csv,sys,statistics as st,collections
for f in sys.argv[1:]:
    g=collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['impl']!='cublas': g[(r['m'],r['n'],r['k'],r['impl'],r['note'])].append(r)
    for k,v in g.items():
        med=lambda c: st.median(float(x[c]) for x in v)
        print(f.split('/')[-1],k,'t_us %.1f cub %.1f ratio %.3f clk %.0f/%.0f W %.0f/%.0f'%(1e3*med('median_ms'),1e3*med('cublas_median_ms'),med('ratio'),med('sm_clock_mhz'),med('cublas_sm_clock_mhz'),med('power_w'),med('cublas_power_w')), v[0]['disposition'])
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
