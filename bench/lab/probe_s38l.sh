#!/usr/bin/env bash
# Session 38, probe l: issue 12's rows (bench/lab/issue12_rows.csv) with
# auto (rule 10b) each alone against cuBLASLt with blocks of about 2 s
# (--order blocks, four repeats: cuBLASLt first in odd repeats, last in
# even ones).  plan = probe h's build.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/plan && tar xJf .carry/plan.txz -C /tmp/plan
B=/tmp/plan/tessel
for spec in "4096 4096 4096 8000" "4096 4096 14336 2500" "4096 6144 4096 5000" "4096 14336 4096 2500" \
            "8192 8192 28672 400" "8192 28672 8192 400" "128 8192 8192 20000"; do
  set -- $spec
  f="$R/alone_${1}x${2}x${3}.csv"
  timeout 150 $B bench gemm --m $1 --n $2 --k $3 --impl auto --order blocks --repeat 4 --iterations $4 \
    --csv "$f" > "${f%.csv}.log" 2>&1
  echo "$1x$2x$3 rc=$? $(python3 - "$f" <<'PY'
import csv, statistics as st, sys
v = [r for r in csv.DictReader(open(sys.argv[1])) if r['impl'] != 'cublas']
rs = sorted(float(x['ratio']) for x in v)
print('ratio %.3f (%s) ours %.0f MHz cublas %.0f MHz %s' % (st.median(rs), ' '.join('%.3f' % x for x in rs),
      st.median(float(x['sm_clock_mhz']) for x in v), st.median(float(x['cublas_sm_clock_mhz']) for x in v), v[0]['note']))
PY
)"
  pack
done
elapsed done
