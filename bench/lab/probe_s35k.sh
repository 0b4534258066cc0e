#!/usr/bin/env bash
# Session 35, probe k: rule 13b (k14's pairs for M 65..80) on shapes chosen
# after the rule was written, through `auto`: old = the CI build of 80d5668,
# new = the same build with gemm.cu's rule 13b relinked.  Predicted: +5 to
# +15 % at the four shapes the rule takes (72 x 6144 x 4096, 76 x 8192 x
# 2048, 66 x 5120 x 8192, 80 x 8192 x 8192 with B K-major), no change at
# 84 x 8192 x 8192 (outside it).  Each new-CLI shape also verified tier 1.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
mkdir -p /tmp/new && tar xJf .carry/r13b.txz -C /tmp/new
for shp in "72 6144 4096 A:k,B:n" "76 8192 2048 A:k,B:n" "66 5120 8192 A:k,B:n" "80 8192 8192 A:k,B:k" "84 8192 8192 A:k,B:n"; do
  set -- $shp
  line="$1x$2x$3 $4"
  for b in old new; do
    bin=/tmp/cb/tessel; [ $b = new ] && bin=/tmp/new/tessel
    f="$R/r13b_${1}x${2}x${3}_${4/:/}_${b}.csv"; f=${f//,/_}; f=${f//:/}
    timeout 60 $bin bench gemm --m $1 --n $2 --k $3 --layout $4 --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    line="$line | $b $(python3 -c "
import csv,statistics as st
r=[x for x in csv.DictReader(open('$f')) if x['impl']!='cublas']
print('%.3f %s' % (st.median(float(x['ratio']) for x in r), r[0]['note'][:48]))" 2>/dev/null)"
  done
  timeout 60 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 --layout $4 --impl auto --verify tier1 --order none > "$R/tier1_${1}x${2}x${3}.log" 2>&1
  echo "$line | tier1: $(grep -oE 'verify auto: [a-z]+' "$R/tier1_${1}x${2}x${3}.log")"
done
elapsed held_out; pack
