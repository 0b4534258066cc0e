#!/usr/bin/env bash
# Session 38, probe f: the power-capped shapes with each implementation
# alone (--order blocks: ours and cuBLASLt in loops of their own, which goes
# first alternating per repeat), four repeats: auto, k13 at 128 x 256, k14 at
# 128 x 256 (clusters of two sharing B) and k15; then issue 12's other rows
# and the small ones with auto.  Probe e found k15 at 4096^3 running about
# 150 MHz below cuBLASLt when each runs alone (0.94), where the interleaved
# loop gives 0.997.  new = the build of probe d.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/new && tar xJf .carry/new.txz -C /tmp/new
B=/tmp/new/tessel
summ() {
  python3 - "$1" <<'PY'
import collections, csv, statistics as st, sys
d = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl'] != 'cublas': d[(int(r['m']), int(r['n']), int(r['k']))].append(r)
for k, v in sorted(d.items()):
    med = lambda c: st.median(float(x[c]) for x in v)
    print('  %dx%dx%d %.3f (%.3f-%.3f) ours %4.0f MHz cublas %4.0f MHz %s' % (*k, med('ratio'), min(float(x['ratio']) for x in v),
          max(float(x['ratio']) for x in v), med('sm_clock_mhz'), med('cublas_sm_clock_mhz'), v[0]['note']))
PY
}
for spec in "auto --impl auto" "k15 --impl k15" "k13 --impl k13 --tile-n 256" "k14 --impl k14 --tile-n 256"; do
  set -- $spec; name=$1; shift
  f="$R/capped_${name}.csv"
  timeout 240 $B bench gemm --suite bench/lab/s38_capped_suite.csv "$@" --order blocks --repeat 4 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "$name rc=$?"; summ "$f"; elapsed "$name"; pack
done
f="$R/rows_auto_blocks.csv"
timeout 200 $B bench gemm --suite bench/lab/s38_rows_suite.csv --impl auto --order blocks --repeat 4 --csv "$f" > "${f%.csv}.log" 2>&1
echo "rows rc=$?"; summ "$f"; elapsed rows; pack
