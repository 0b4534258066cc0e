#!/usr/bin/env bash
# Session 38, probe k: rule 10b's comparison (k15 against k13 alone) with
# blocks of about 2 s instead of 0.2-0.3 s.  Probe j: at the cap the SM
# clock swings 1170-1425 MHz with a period of about 1 s (the power
# controller), so a short block catches one phase of it and its time with
# it; a block of several periods averages them as the interleaved loop
# does.  Both relative orders (k15,k13 and k13,k15), two repeats each.
# plan = probe h's build.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/plan && tar xJf .carry/plan.txz -C /tmp/plan
B=/tmp/plan/tessel
for spec in "4096 4096 4096 8000" "4096 14336 4096 3000" "6144 6144 6144 3000" "8192 8192 8192 1200"; do
  set -- $spec
  for impls in k15,k13 k13,k15; do
    f="$R/long_${1}x${2}x${3}_${impls/,/_}.csv"
    timeout 150 $B bench gemm --m $1 --n $2 --k $3 --impl $impls --order blocks --repeat 2 --iterations $4 \
      --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$1x$2x$3 $impls rc=$?"
  done
  pack
done
python3 - "$R" <<'PY'
import collections, csv, glob, statistics as st, sys
d = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/long_*.csv')):
    for r in csv.DictReader(open(f)):
        if r['impl'] == 'cublas': continue
        d[((int(r['m']), int(r['n']), int(r['k'])), r['impl'])].append(r)
for (shape, impl), v in sorted(d.items()):
    rs = sorted(float(x['ratio']) for x in v)
    print('%dx%dx%d %s ratio %.3f (%s) ours %.0f MHz cublas %.0f MHz' % (*shape, impl, st.median(rs), ' '.join('%.3f' % x for x in rs),
          st.median(float(x['sm_clock_mhz']) for x in v), st.median(float(x['cublas_sm_clock_mhz']) for x in v)))
PY
elapsed done
