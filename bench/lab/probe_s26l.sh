#!/usr/bin/env bash
# Session-26 device run: rule 9's final f12 thresholds on shapes they were
# not set on (bench/lab/fp32_rule9_s26_suite.csv), A:k,B:n and A:m,B:k:
# auto against f07, f11, f12 and cuBLASLt, one repeat.
# Predicted: auto picks the fastest of the three within ~2 % on every row.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
timeout 200 /tmp/bn/tessel bench gemm --suite bench/lab/fp32_rule9_s26_suite.csv --dtype fp32 --impl auto,f07,f11,f12,cublas \
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
