#!/usr/bin/env bash
# Session-23 device run 13: raster group 4 took k15 at 8192 x 28672 x 8192
# from 0.81 to 0.97 (k13 1.00).  The other shapes past rule 10's flop bound,
# 16384^3 and 8192 x 8192 x 28672 (k15 0.81-0.88 at group 8): k13 and k15
# at groups 4 and 8, interleaved with cuBLASLt.  If k15 at 4 beats k13
# there, rule 10's bound could give way to a raster rule.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; pack; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for shape in "16384 16384 16384" "8192 8192 28672"; do
  set -- $shape
  for g in 4 8; do
    timeout 150 $B/tessel bench gemm --m $1 --n $2 --k $3 --impl k13,k15,cublas --raster-group $g --repeat 3 --csv "$R/big_$1x$2x$3_g$g.csv" > /dev/null 2>&1
    python3 - "$R/big_$1x$2x$3_g$g.csv" "$1x$2x$3 group $g" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl']!='cublas': g[r['impl']].append(r)
print(sys.argv[2] + ': ' + '  '.join('%s %s' % (i, ' '.join('%.3f' % float(r['ratio']) for r in v)) for i,v in g.items()))
PY
  done
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
