#!/usr/bin/env bash
# Session-26 device run: the whole fp32 ladder f01..f12 on A:k,B:n and
# A:m,B:n (bench/fp32_ladder.sh, for docs/ladder.md's table), and `auto`
# with rule 9's final thresholds for f12 (A's copy from N = 1024 and 2^32
# flops, B's from M = 1024) on rule 9's partial waves, A:k,B:n and A:m,B:k.
# Predicted: auto = f12 wherever s26j measured f12 ahead (1536^3,
# 6144 x 1024 x 2048, 1000 x 1000 x 8192 on A:k, every A:m,B:k row), f11 at
# 1024^3 A:k,B:n.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
TESSEL_BIN=/tmp/bn/tessel timeout 420 bash bench/fp32_ladder.sh "$R/fp32_ladder_h100.csv" > "$R/fp32_ladder.log" 2>&1; echo "ladder rc=$?"
medians "$R/fp32_ladder_h100.csv" | grep -E "f1[012]|cublas"
pack
timeout 150 /tmp/bn/tessel bench gemm --suite bench/lab/fp32_rule9_s25_suite.csv --dtype fp32 --impl auto,cublas \
  --layout "A:k,B:n;A:m,B:k" --repeat 2 --csv "$R/rule9_auto.csv" > "$R/rule9_auto.txt" 2>&1; echo "bench rc=$?"
python3 - "$R/rule9_auto.csv" <<'PY'
import csv, collections, statistics as st, sys
d = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl'] == 'auto':
        d[(int(r['m']), int(r['n']), int(r['k']), r['layout'])].append((float(r['ratio']), r['note']))
for k in sorted(d):
    print('%5dx%5dx%5d %-8s auto %.3f  %s' % (*k, st.median(x[0] for x in d[k]), d[k][0][1]))
PY
elapsed "done"
pack
