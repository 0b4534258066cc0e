#!/usr/bin/env python3
"""Summary of bench/lab/timeline/timeline_k15.cuh's TL rows (k15's batched
kernel, session 34).  Usage: summary_k15.py FILE [MHz]
Per CTA: TL cta smid gt_entry gt_exit, then slots 4..49 in SM cycles from the
CTA's entry (-1: never stamped).  Prints the launch's span (globaltimer), the
spread of CTA entries, and the median CTA's phases."""
import statistics as st
import sys

path = sys.argv[1]
mhz = float(sys.argv[2]) if len(sys.argv) > 2 else 1980.0
rows = []
for line in open(path):
    if line.startswith('TL '):
        f = line.split()
        rows.append({'cta': int(f[1]), 'sm': int(f[2]), 'in': int(f[3]), 'out': int(f[4]),
                     's': {i + 4: int(x) for i, x in enumerate(f[5:])}})
if not rows:
    sys.exit(path + ': no TL rows')
t0 = min(r['in'] for r in rows)
ins = sorted(r['in'] - t0 for r in rows)
outs = sorted(r['out'] - t0 for r in rows if r['out'] > 0)
print('%s: %d CTAs at %.0f MHz' % (path, len(rows), mhz))
print('  entries (ns after the first): median %d, p90 %d, last %d' % (ins[len(ins) // 2], ins[len(ins) * 9 // 10], ins[-1]))
print('  warpgroup 0 done (ns after the first entry): first %d, median %d, last %d' % (outs[0], outs[len(outs) // 2], outs[-1]))


def med(slot):
    v = [r['s'][slot] for r in rows if r['s'][slot] >= 0]
    return (st.median(v), max(v), len(v)) if v else (float('nan'), float('nan'), 0)


def line(name, slot):
    m, mx, n = med(slot)
    print('  %-38s median %6.0f cycles (%6.0f ns)  max %6.0f  (%d CTAs)' % (name, m, m * 1000 / mhz, mx, n))


line('prologue __syncthreads passed', 4)
line('producer elected', 5)
line('producer: first TMA issued', 6)
line('producer: last TMA issued', 7)
for w in range(2):
    for j in range(4):
        b = 8 + 20 * w + 4 * j
        if med(b)[2] == 0:
            continue
        for k, what in enumerate(('start', 'turn passed', 'main loop done', 'stores issued')):
            line('wg%d unit %d: %s' % (w, j, what), b + k)
    line('wg%d: finish (stores read smem)' % w, 48 + w)
