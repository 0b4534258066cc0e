#!/usr/bin/env bash
# Session-23 device run 10: k15's raster group (rule 6 gives every kernel 8
# tile rows per group, measured on k13) at the shapes k15 serves or loses:
# 4096^3, 8192^3 (auto = k15), 8192 x 28672 x 8192 (k15 forced: 0.77-0.83,
# 1.18x k13's DRAM bytes), and the two batched shapes (k15 batched).
# Groups 2, 4, 8, 16, 32.  Prediction: none moves 4096^3 by more than 1 %
# (its A and B fit in L2); the 28672 shape may gain from taller groups.
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
while read -r m n k flags; do
  [ -z "$m" ] && continue
  line="$m $n $k $flags:"
  for g in 2 4 8 16 32; do
    i=$((i+1))
    timeout 60 $B/tessel bench gemm --m $m --n $n --k $k --impl k15,cublas $flags --raster-group $g --repeat 3 --csv "$R/t$i.csv" > /dev/null 2>&1
    line="$line $(python3 - "$R/t$i.csv" <<'PY'
import csv,sys,statistics as st
rs=[r for r in csv.DictReader(open(sys.argv[1])) if r['impl']=='k15']
rt=[float(r['ratio']) for r in rs if r['ratio']]
print('%.3f' % (st.median(rt) if rt else -1), end='')
PY
)"
  done
  echo "$line  (groups 2 4 8 16 32)"
done <<'L'
4096 4096 4096
8192 8192 8192
8192 28672 8192
2048 2048 128 --batch 32
512 512 128 --batch 32
L
(head -1 $R/t1.csv; for f in $R/t*.csv; do tail -n +2 $f; done) > $R/k15_raster_groups.csv; rm -f $R/t*.csv
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
