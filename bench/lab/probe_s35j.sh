#!/usr/bin/env bash
# Session 35, probe j: where k14's 64 x 128 pairs lead k13's 64 x 128 tiles
# for M just above 64 (probe c: 80 x 8192 x 8192 0.968 against 0.917, 96
# 0.986 against 0.993; probe i: under ncu at M = 80 k13 takes 58.1 us, k14
# 49.9, cuBLASLt 50.8).  M from 65 to 120 at N = K = 8192, and M = 80 and
# 96 at two other N, K; auto and k14 (--tile-m 64) each against cuBLASLt,
# three repeats.  The CI build of 80d5668.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for shp in "65 8192 8192" "72 8192 8192" "80 8192 8192" "88 8192 8192" "96 8192 8192" "104 8192 8192" "112 8192 8192" "120 8192 8192" \
           "80 8192 4096" "96 8192 4096" "80 6144 8192" "96 6144 8192"; do
  set -- $shp
  line="$shp"
  for impl in auto k14; do
    extra=(); [ $impl = k14 ] && extra=(--tile-m 64)
    f="$R/sm_${1}x${2}x${3}_${impl}.csv"
    timeout 60 /tmp/cb/tessel bench gemm --m $1 --n $2 --k $3 --impl $impl,cublas "${extra[@]}" --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    line="$line | $impl $(python3 -c "
import csv,statistics as st
r=[x for x in csv.DictReader(open('$f')) if x['impl']!='cublas']
print('%.3f %s' % (st.median(float(x['ratio']) for x in r), r[0]['note'][:40]))" 2>/dev/null)"
  done
  echo "$line"
done
elapsed sweep; pack
