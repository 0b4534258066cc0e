#!/usr/bin/env bash
# Session-23 device run 5: cuBLASLt runs 1000^3 as 64x128 tiles in 2x1
# clusters (ncu, s23d) and 1024^3 as 128x64 in 1x2 clusters.  Does k14
# (2-CTA clusters multicasting B) at 128x64 or 128x128 beat k13/k15 there?
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
while read -r m n k impl flags; do
  [ -z "$m" ] && continue
  i=$((i+1))
  timeout 60 $B/tessel bench gemm --m $m --n $n --k $k --impl $impl,cublas $flags --repeat 3 --csv "$R/t$i.csv" > /dev/null 2>&1
  python3 - "$R/t$i.csv" "$m $n $k $impl $flags" <<'PY'
import csv,sys,statistics as st
rs=[r for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas']
rt=[float(r['ratio']) for r in rs if r['ratio']]
us=[1e3*float(r['median_ms']) for r in rs if r['median_ms']]
print('%-44s %.3f %7.1f us  %s %s' % (sys.argv[2], st.median(rt) if rt else -1, st.median(us) if us else -1, rs[0]['disposition'] if rs else '', rs[0]['note'] if rs else 'none'))
PY
done <<'L'
1000 1000 1000 k14 --tile-n 64
1000 1000 1000 k14 --tile-n 128
1000 1000 1000 k15
1024 1024 1024 k14 --tile-n 64
1024 1024 1024 k14 --tile-n 128
1024 1024 1024 auto
1000 1000 1000 k14 --tile-n 64 --layout A:k,B:k
1000 1000 1000 auto --layout A:k,B:k
L
(head -1 $R/t1.csv; for f in $R/t*.csv; do tail -n +2 $f; done) > $R/k14_small.csv; rm -f $R/t*.csv
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
