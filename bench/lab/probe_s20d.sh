#!/usr/bin/env bash
# Session-20 device run 4 (after probe_s20c.sh on the same warm machine, build
# in /tmp/bn): tessel.gemm from Python (tests, call overhead), then the
# acceptance benchmarks of issue 13: fused bias + GELU, grouped MoE, strided
# batched.  Predictions in probe_s20c.sh and docs/batched.md.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
mkdir -p /tmp/pkg/tessel && cp python/tessel/*.py /tmp/pkg/tessel/ && cp $B/python/_tessel*.so /tmp/pkg/tessel/
PYTHONPATH=/tmp/pkg timeout 200 python3 -m pytest -q -p no:cacheprovider python/tests/test_gemm.py > "$R/pytest_gemm.log" 2>&1
echo "pytest test_gemm rc=$? $(tail -1 "$R/pytest_gemm.log")"; grep -E "^FAILED|Error" "$R/pytest_gemm.log" | head -10
PYTHONPATH=/tmp/pkg timeout 60 python3 -m tessel.bench --overhead --calls 1000 2>&1 | tee "$R/py_overhead.log"
echo "elapsed $(( $(date +%s) - t0 )) s"
for shape in "4096 4096 4096" "8192 28672 8192"; do
  set -- $shape
  timeout 150 $B/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$R/epi_${1}_${2}_${3}.csv" > "$R/epi_${1}_${2}_${3}.log" 2>&1
  python3 - "$R/epi_${1}_${2}_${3}.csv" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[r['impl']].append(r)
for k,v in g.items():
    ms=[float(r['median_ms']) for r in v if r['median_ms']]
    rt=[float(r['ratio']) for r in v if r['ratio']]
    print(v[0]['m'],v[0]['n'],v[0]['k'],'%-14s'%k,v[0]['disposition'],'ms %.4f'%st.median(ms) if ms else '-', 'ratio %.3f'%st.median(rt) if rt else '-', v[0]['note'][:70])
PY
done
echo "elapsed $(( $(date +%s) - t0 )) s"
summ() {
python3 - "$1" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[r['impl']].append(r)
for k,v in g.items():
    ms=[float(r['median_ms']) for r in v if r['median_ms']]
    rt=[float(r['ratio']) for r in v if r['ratio']]
    print(v[0]['m'],v[0]['n'],v[0]['k'],v[0].get('batch',''),v[0].get('group_m','')[:30],'%-10s'%k,v[0]['disposition'],'ms %.4f'%st.median(ms) if ms else '-', 'ratio %.3f'%st.median(rt) if rt else '-', v[0]['note'][:90])
PY
}
timeout 150 $B/tessel bench gemm --grouped moe --impl auto,cublas --repeat 3 --csv "$R/moe.csv" > "$R/moe.log" 2>&1; echo "moe rc=$?"; summ "$R/moe.csv"
for mn in 512 2048; do
  timeout 100 $B/tessel bench gemm --batch 32 --m $mn --n $mn --k 128 --impl auto,cublas --repeat 3 --csv "$R/batched_$mn.csv" > "$R/batched_$mn.log" 2>&1; echo "batched $mn rc=$?"; summ "$R/batched_$mn.csv"
done
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
