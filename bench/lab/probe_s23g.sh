#!/usr/bin/env bash
# Session-23 device run 7: (1) rule 1 keeps 128 x 128 for small grids whose
# A rows are not whole 128-byte lines (1000^3: k13 0.82-0.86), where k15
# measured 0.87-0.88 three times: does k15 lead over that whole class
# (tiles <= SMs, lda % 64 != 0)?  (2) small M baselines for run 8 (stage caps).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; pack; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
i=0
while read -r m n k impls flags; do
  [ -z "$m" ] && continue
  i=$((i+1))
  timeout 60 $B/tessel bench gemm --m $m --n $n --k $k --impl $impls,cublas $flags --repeat 3 --csv "$R/t$i.csv" > /dev/null 2>&1
  python3 - "$R/t$i.csv" "$m $n $k $flags" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl']!='cublas': g[r['impl']].append(r)
line='%-30s' % sys.argv[2]
for impl,rs in g.items():
    rt=[float(r['ratio']) for r in rs if r['ratio']]
    line+='  %s %.3f (%s)' % (impl, st.median(rt) if rt else -1, rs[0]['note'][:24])
print(line)
PY
done <<'L'
1000 1000 1000 auto,k15
1000 1000 4000 auto,k15
1000 2000 1000 auto,k15
1000 500 1000 auto,k15
520 1000 1000 auto,k15
1000 1000 256 auto,k15
200 1000 2000 auto,k15
1000 1000 1000 auto,k15 --layout A:k,B:k
1000 1000 1000 auto,k15 --out-dtype fp32
1016 1016 1016 auto,k15
16 8192 8192 auto
32 8192 8192 auto
16 8192 8192 auto --layout A:k,B:k
L
(head -1 $R/t1.csv; for f in $R/t*.csv; do tail -n +2 $f; done) > $R/rule1_k15_class.csv; rm -f $R/t*.csv
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
