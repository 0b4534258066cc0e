#!/usr/bin/env bash
# Session 38, probe g: k15 against k13 (the plan's tile, 128 x 256 at these
# shapes) where rule 10 runs k15, each alone (--order blocks), in both
# relative orders (--impl k15,k13 and k13,k15, two repeats each), and in
# the interleaved loop (two repeats): does the order of the timing decide
# which kernel is faster at the power cap?  Shapes from 2048^3 (below the
# cap in this bench) up to 8192^3.  new = the build of probe d.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/new && tar xJf .carry/new.txz -C /tmp/new
B=/tmp/new/tessel
for spec in "blocks_15_13 k15,k13 blocks" "blocks_13_15 k13,k15 blocks" "inter k15,k13 interleaved"; do
  set -- $spec
  f="$R/$1.csv"
  timeout 250 $B bench gemm --suite bench/lab/s38_k15_k13_suite.csv --impl $2 --order $3 --repeat 2 --csv "$f" > "$R/$1.log" 2>&1
  echo "$1 rc=$?"; elapsed "$1"; pack
done
python3 - "$R" <<'PY'
import collections, csv, statistics as st, sys
d = collections.defaultdict(list)
for name in ('blocks_15_13', 'blocks_13_15', 'inter'):
    for r in csv.DictReader(open(f'{sys.argv[1]}/{name}.csv')):
        if r['impl'] == 'cublas': continue
        order = 'inter' if name == 'inter' else 'blocks'
        d[((int(r['m']), int(r['n']), int(r['k'])), order, r['impl'])].append((float(r['ratio']), float(r['sm_clock_mhz'])))
for shape in sorted({k[0] for k in d}):
    line = '%dx%dx%d' % shape
    for order in ('blocks', 'inter'):
        for impl in ('k15', 'k13'):
            v = d.get((shape, order, impl), [])
            if v: line += '  %s %s %.3f %4.0f MHz' % (order, impl, st.median(x[0] for x in v), st.median(x[1] for x in v))
    print(line)
PY
