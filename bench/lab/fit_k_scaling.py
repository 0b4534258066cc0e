#!/usr/bin/env python3
"""Fits time = intercept + slope x K per (M, N, layout, implementation) over a
`tessel bench gemm` CSV whose rows differ only in K (a suite of one M, N
and layout at several K): the slope is the streaming rate, the
intercept the fixed cost of a call.  cuBLASLt's side comes from each row's
cublas_median_ms.  Usage: fit_k_scaling.py CSV [CSV...]"""
import collections
import csv
import statistics as st
import sys

t = collections.defaultdict(list)
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)):
        if r['impl'] == 'cublas' or r['disposition'] != 'passed':
            continue
        key = (int(r['m']), int(r['n']), r['layout'])
        t[key + (r['impl'], int(r['k']))].append(float(r['median_ms']) * 1e3)
        t[key + ('cublas/' + r['impl'], int(r['k']))].append(float(r['cublas_median_ms']) * 1e3)
for key in sorted({k[:4] for k in t}):
    ks = sorted(k[4] for k in t if k[:4] == key)
    if len(ks) < 2:
        continue
    xs = [k / 1024 for k in ks]
    ys = [st.median(t[key + (k,)]) for k in ks]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    gbs = key[1] * 1024 * 2 / (b * 1e-6) / 1e9  # B's bytes per K = 1024 over the slope
    print('%4dx%5d %-8s %-12s %.3f us per K=1024 (%4.0f GB/s of B)  intercept %5.2f us  us: %s' %
          (key[0], key[1], key[2], key[3], b, gbs, a, ' '.join('%.1f' % y for y in ys)))
