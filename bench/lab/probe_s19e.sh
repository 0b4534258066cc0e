#!/usr/bin/env bash
# Session-19 device run 5 (interleaved timing, the new default): k13 against
# k14 on short-K shapes (each in its own invocation beside cuBLASLt, k13, k14,
# k13, k14); the swapped k13 for M <= 64 with and without split K; the suite
# with the current plan.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$OUT/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
med() {
python3 - "$@" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        if r['impl']!='cublas' and r['ratio']: g[(r['m'],r['n'],r['k'],r['impl'],r['note'])].append(r)
for k,v in sorted(g.items()):
    print(k,'ratio med %.3f'%st.median(float(x['ratio']) for x in v),'all',' '.join('%.3f'%float(x['ratio']) for x in v),'t_us %.1f cub %.1f'%(1e3*st.median(float(x['median_ms']) for x in v),1e3*st.median(float(x['cublas_median_ms']) for x in v)), v[0]['timing'])
PY
}
cat > /tmp/skinny.csv <<'CSV'
group,m,n,k
skinny_k,8192,8192,256
skinny_k,16384,16384,128
skinny_k,8192,8192,512
skinny_k,4096,4096,256
skinny_k,16384,8192,256
skinny_k,8192,8192,1024
CSV
for round in 1 2; do for impl in k13 k14; do
  $B/tessel bench gemm --suite /tmp/skinny.csv --impl $impl,cublas --tile-n 256 --csv "$OUT/sk_${impl}_$round.csv" 2>/dev/null | tail -1
done; done
head -1 "$OUT/sk_k13_1.csv" > "$OUT/skinny_k13_k14.csv"; for f in "$OUT"/sk_*.csv; do tail -n +2 "$f" >> "$OUT/skinny_k13_k14.csv"; rm -f "$f"; done
med "$OUT/skinny_k13_k14.csv"
for s in 1 2; do
  $B/tessel bench gemm --m 16,32,64 --n 8192,14336 --k 8192 --impl k13,cublas --swap-ab on --splits $s --repeat 2 --csv "$OUT/sw_s$s.csv" 2>/dev/null | tail -1
done
head -1 "$OUT/sw_s1.csv" > "$OUT/swap_splits.csv"; for f in "$OUT"/sw_s*.csv; do tail -n +2 "$f" >> "$OUT/swap_splits.csv"; rm -f "$f"; done
med "$OUT/swap_splits.csv"
echo "elapsed $(( $(date +%s) - t0 )) s"
$B/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 3 --csv "$OUT/suite_interleaved.csv" 2>/dev/null | tail -2
med "$OUT/suite_interleaved.csv"
echo "elapsed $(( $(date +%s) - t0 )) s"
