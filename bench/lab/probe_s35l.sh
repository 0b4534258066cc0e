#!/usr/bin/env bash
# Session 35, probe l: rule 13b's bound.  At 84 x 8192 x 8192 k13 ran 0.949
# and 0.869 in two runs of probe k; here k13 (auto of the CI build of
# 80d5668) and k14's pairs alternate three times at 82, 84 and 88 rows.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for m in 82 84 88; do
  line="$m x 8192 x 8192"
  for round in 1 2 3; do
    for impl in auto k14; do
      extra=(); [ $impl = k14 ] && extra=(--tile-m 64)
      f="$R/b_${m}_${impl}_r${round}.csv"
      timeout 60 /tmp/cb/tessel bench gemm --m $m --n 8192 --k 8192 --impl $impl,cublas "${extra[@]}" --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
      line="$line | $impl $(python3 -c "
import csv,statistics as st
r=[x for x in csv.DictReader(open('$f')) if x['impl']!='cublas']
print('%.3f' % st.median(float(x['ratio']) for x in r))" 2>/dev/null)"
    done
  done
  echo "$line"
done
elapsed bound; pack
