#!/usr/bin/env bash
# Session 38, probe m: rule 10b's open part, the fused epilogue alone.
# bias + tanh GELU at 4096^3: auto (k15 fused by rule 10) against k13
# fused (128 x 256), each alone against cuBLASLt's GELU_BIAS with blocks
# of ~2 s (--order blocks --iterations 8000), both relative orders, two
# repeats each; the bench also times each step unfused and plain.
# plan = probe h's build.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/plan && tar xJf .carry/plan.txz -C /tmp/plan
B=/tmp/plan/tessel
for impls in auto,k13 k13,auto; do
  f="$R/epi_${impls/,/_}.csv"
  timeout 250 $B bench gemm --m 4096 --n 4096 --k 4096 --impl $impls --epilogue bias_gelu --order blocks --repeat 2 \
    --iterations 8000 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "$impls rc=$?"; pack
done
python3 - "$R" <<'PY'
import collections, csv, glob, statistics as st, sys
d = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + '/epi_*.csv'):
    for r in csv.DictReader(open(f)):
        if r['impl'] == 'cublas': continue
        d[r['impl']].append(r)
for impl, v in sorted(d.items()):
    rs = sorted(float(x['ratio']) for x in v)
    print('%-14s ratio %.3f (%s) %.4f ms ours %.0f MHz cublas %.0f MHz %s' % (impl, st.median(rs), ' '.join('%.3f' % x for x in rs),
          st.median(float(x['median_ms']) for x in v), st.median(float(x['sm_clock_mhz']) for x in v),
          st.median(float(x['cublas_sm_clock_mhz']) for x in v), v[0]['note']))
PY
elapsed done
