#!/usr/bin/env bash
# Session-27 device run (i): (1) the 64 x 64 swapped tile capped at 8 stages
# (13 fit: 104 KB of B in flight per CTA, 13 MB over 128 CTAs, where the
# 16- and 32-wide tiles keep 64 KB).  s27h: M = 64 streamed 3.02 TB/s against
# 3.11 at M = 16.  Predicted: 3.02 -> ~3.1 TB/s, 64 x 8192 x 8192 0.959 ->
# 0.97-0.99 (A's 8 KB a stage, read by all 128 CTAs, may be the rest of the
# difference).  The 64-row sweeps first.  (2) Rule 9 through auto on the
# shapes its thresholds were not set on (session 26's last change, B's copy
# from M = 192, never ran through auto on the GPU).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 200 /tmp/bn/tests/cuda/gemm_test --gtest_filter='K13SwapRows64/*:GemmSwapRows64.*' > "$R/gpu_tests_cap8.log" 2>&1
echo "tests rc=$?"; grep -E "PASSED|FAILED" "$R/gpu_tests_cap8.log" | head; pack
B=/tmp/bn/tessel
timeout 150 $B bench gemm --m 64 --n 8192 --k 4096,8192,16384,32768 --impl auto,cublas --repeat 2 --csv "$R/m64_cap8.csv" > "$R/m64.txt" 2>&1
python3 bench/lab/fit_k_scaling.py "$R/m64_cap8.csv"; medians "$R/m64_cap8.csv" | grep -v cublas; elapsed "m64"; pack
timeout 200 $B bench gemm --suite bench/lab/fp32_rule9_s26_suite.csv --dtype fp32 --impl auto,f07,f11,f12,cublas \
  --layout "A:k,B:n;A:m,B:k" --repeat 1 --csv "$R/rule9_unseen.csv" > "$R/rule9_unseen.txt" 2>&1; echo "bench rc=$?"
python3 - "$R/rule9_unseen.csv" <<'PY'
import csv, collections, sys
rows = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl'] != 'cublas' and r['disposition'] == 'passed':
        rows[(int(r['m']), int(r['n']), int(r['k']), r['layout'])][r['impl']] = (float(r['ratio']), r['note'])
for k in sorted(rows):
    v = rows[k]
    print('%5dx%5dx%5d %-8s' % k, ' '.join('%s %.3f' % (i, v[i][0]) for i in ('auto', 'f07', 'f11', 'f12') if i in v),
          ' auto=' + v.get('auto', (0, '?'))[1])
PY
elapsed "done"
pack
