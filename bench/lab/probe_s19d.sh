#!/usr/bin/env bash
# Session-19 device run 4: k13 against k14 on the large shapes, each in its own
# invocation beside cuBLASLt (two implementations per run, so the bench's
# alternating order puts each first and last equally often), interleaved
# k13, k14, k13, k14; then gemm_api_test.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_api_test > "$OUT/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
cat > /tmp/big.csv <<'CSV'
group,m,n,k
square,4096,4096,4096
square,8192,8192,8192
square,6144,6144,6144
llm,4096,14336,4096
llm,4096,4096,14336
llm,8192,8192,28672
skinny_k,8192,8192,256
CSV
for round in 1 2; do
  for impl in k13 k14; do
    $B/tessel bench gemm --suite /tmp/big.csv --impl $impl,cublas --tile-n 256 --repeat 2 --csv "$OUT/big_${impl}_$round.csv" 2>/dev/null | tail -1
  done
done
head -1 "$OUT/big_k13_1.csv" > "$OUT/k13_vs_k14_big.csv"; for f in "$OUT"/big_*.csv; do tail -n +2 "$f" >> "$OUT/k13_vs_k14_big.csv"; rm -f "$f"; done
python3 - "$OUT/k13_vs_k14_big.csv" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl']!='cublas': g[(r['m'],r['n'],r['k'],r['impl'])].append(r)
for k,v in sorted(g.items()):
    cyc=[float(x['median_ms'])*float(x['sm_clock_mhz']) for x in v]
    print(k,'ratio med %.3f'%st.median(float(x['ratio']) for x in v),'all',' '.join('%.3f'%float(x['ratio']) for x in v),'Mcycles med %.0f'%st.median(cyc),'clk',' '.join(x['sm_clock_mhz'][:4] for x in v))
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
timeout 40 $B/tests/cuda/gemm_api_test > "$OUT/gemm_api_test.log" 2>&1; echo "gemm_api_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gemm_api_test.log" | tr '\n' ' ')"
TESSEL_BIN=$B/tessel timeout 200 bash bench/sanitize_k14_swap.sh > "$OUT/sanitizer_k14_swap_h100.log" 2>&1
echo "sanitizer: $(grep -c '^exit 0' "$OUT/sanitizer_k14_swap_h100.log") exit 0, $(grep '^exit' "$OUT/sanitizer_k14_swap_h100.log" | grep -vc 'exit 0') other; $(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/sanitizer_k14_swap_h100.log") clean summaries"
echo "elapsed $(( $(date +%s) - t0 )) s"
