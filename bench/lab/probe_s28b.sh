#!/usr/bin/env bash
# Session-28 device run (b): rule 1b in the plan (k13's unswapped 64 x 128
# tile where rule 1 ran 128 x 64).  The plan's GPU tests (Plan/*: auto exact
# on the sweep), then bench/lab/rule1b_s28_suite.csv on four layouts: auto
# against the old 128 x 64 (--tile-n 64 --swap-ab off), two repeats; then the
# suite with auto against cuBLASLt, two repeats.
# Predicted from s28a: the domain's rows +2..28 % (1024 x 1024 x 4096 the
# most); small M (65..128 x 8192) unknown: B is read by two tile rows of 64
# instead of one of 128; suite 1024^3 0.89 -> 0.91, other suite rows unchanged.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 200 /tmp/bn/tests/cuda/gemm_test --gtest_filter='Plan/*:*RejectsBadK13Tuning*:GemmSwapRows64.*' \
  > "$R/gpu_tests_plan.log" 2>&1; echo "tests rc=$?"; grep -E "PASSED|FAILED" "$R/gpu_tests_plan.log" | head; pack
S=bench/lab/rule1b_s28_suite.csv
L="A:k,B:n;A:m,B:n;A:k,B:k;A:m,B:k"
for rep in 1 2; do
  timeout 150 /tmp/bn/tessel bench gemm --suite $S --layout "$L" --impl auto,cublas --repeat 1 --csv "$R/r1b_auto_$rep.csv" > "$R/r1b_auto_$rep.txt" 2>&1
  timeout 150 /tmp/bn/tessel bench gemm --suite $S --layout "$L" --impl k13,cublas --tile-n 64 --swap-ab off --repeat 1 --csv "$R/r1b_n64_$rep.csv" > "$R/r1b_n64_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
for f in r1b_auto r1b_n64; do cat "$R/${f}_1.csv" > "$R/$f.csv"; tail -n +2 "$R/${f}_2.csv" >> "$R/$f.csv"; done
python3 - "$R/r1b_auto.csv" "$R/r1b_n64.csv" <<'PY'
import collections, csv, statistics as st, sys
def load(p, impl):
    d = collections.defaultdict(list)
    for r in csv.DictReader(open(p)):
        if r['impl'] == impl: d[(int(r['m']), int(r['n']), int(r['k']), r['layout'])].append(float(r['ratio']))
    return {k: st.median(v) for k, v in d.items()}
a, b = load(sys.argv[1], 'auto'), load(sys.argv[2], 'k13')
for k in sorted(a):
    print('%5dx%5dx%5d %-8s 128x64 %.3f  auto %.3f  %+5.1f %%' % (*k, b.get(k, float('nan')), a[k], 100 * (a[k] / b.get(k, float('nan')) - 1)))
PY
timeout 300 /tmp/bn/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 2 --csv "$R/suite_auto_s28.csv" > "$R/suite.txt" 2>&1
elapsed "suite"; pack
medians "$R/suite_auto_s28.csv" | grep -v cublas
elapsed "done"
pack
