#!/usr/bin/env python3
"""One line per timeline file (bench/lab/timeline/timeline.cuh's TL rows):
median CTA's phases in SM cycles from kernel entry, the slowest CTA's end,
the steady k-tile and the epilogue.  Usage: summary.py K FILE... (K: the
problem's K, for the k-tile count); the probes s31a/s31b print the same."""
import statistics as st
import sys

k = int(sys.argv[1])
kt = (k + 63) // 64
for path in sys.argv[2:]:
    rows = [list(map(int, line.split()[1:])) for line in open(path) if line.startswith('TL ')]
    if not rows:
        print(path, 'no rows')
        continue
    # r: cta sm globaltimer d1 d2 d3 d4 d5 d8 d9 d10 d11 d12
    med = lambda i: st.median(r[i] for r in rows)
    print('%-40s ctas %3d | sync %5.0f maps %5.0f unit %5.0f load %5.0f | full1 %5.0f | lastfull %6.0f mma %6.0f '
          'issued %6.0f stored %6.0f (max %6.0f) | k-tile %4.0f | epi %5.0f' %
          (path.split('/')[-2] + '/' + path.split('/')[-1], len(rows), med(8), med(9), med(10), med(3), med(4), med(5),
           med(6), med(12), med(7), max(r[7] for r in rows), (med(5) - med(4)) / max(kt - 1, 1), med(12) - med(6)))
