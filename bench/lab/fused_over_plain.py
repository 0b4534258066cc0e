#!/usr/bin/env python3
"""Fused-over-plain cost from `tessel bench gemm --epilogue ...` CSVs: per
repeat, t(auto) / t(auto:plain) - 1 (the two rows of one repeat ran back to
back), then the median over the repeats; with auto's and auto:plain's median
ratios against cuBLASLt and the mean clock and power.
    python3 bench/lab/fused_over_plain.py CSV..."""
import csv
import statistics as st
import sys

for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path)))
    by = {}
    for r in rows:
        by.setdefault(r['impl'], {})[int(r['repeat'])] = r
    fused, plain = by.get('auto', {}), by.get('auto:plain', {})
    costs = [float(fused[k]['median_ms']) / float(plain[k]['median_ms']) - 1 for k in fused if k in plain]
    ratio = lambda impl: st.median(float(r['ratio']) for r in by[impl].values())
    clock = st.mean(float(r['sm_clock_mhz']) for r in fused.values())
    power = st.mean(float(r['power_w']) for r in fused.values())
    r0 = rows[0]
    print('%s %sx%sx%s %s: fused over plain %+.2f %% (repeats %s); auto %.3f, plain %.3f of cuBLASLt; %.0f MHz %.0f W' %
          (r0['commit'], r0['m'], r0['n'], r0['k'], r0['epilogue'], 100 * st.median(costs),
           ' '.join('%+.2f' % (100 * c) for c in costs), ratio('auto'), ratio('auto:plain'), clock, power))
