#!/usr/bin/env python3
"""ncu PC-sampling per SASS instruction, summed by region: the samples of a
persistent warp-specialized GEMM kernel split into its main loop (the
instructions executed at least MAIN_MIN times: once per k-tile per warp),
the consumers' per-unit code (epilogue, scheduler, bias staging), and the
producer (from 40 instructions ahead of the first UTMALDG to the end).
Input: `ncu -i REPORT --page source --csv --print-source sass > CSV` (one
block per profiled kernel).  docs/epilogues.md reads its output.
    python3 bench/lab/sass_regions.py CSV[.xz]... [--main-min N] [--top N]"""
import argparse
import collections
import csv
import io
import lzma


def kernels(path):
    text = lzma.open(path, 'rt').read() if path.endswith('.xz') else open(path).read()
    rows, out, cur, hdr = list(csv.reader(io.StringIO(text))), [], None, None
    i = 0
    while i < len(rows):
        r = rows[i]
        if r and r[0] == 'Kernel Name':
            cur = {'name': r[1], 'rows': []}
            out.append(cur)
            hdr = rows[i + 1]
            i += 2
            continue
        if r:
            cur['rows'].append(dict(zip(hdr, r)))
        i += 1
    return out


ap = argparse.ArgumentParser()
ap.add_argument('csv', nargs='+')
ap.add_argument('--main-min', type=int, default=7_000_000)
ap.add_argument('--top', type=int, default=0, help='list the consumer instructions with at least this many samples')
a = ap.parse_args()
for path in a.csv:
    for k in kernels(path):
        rows = k['rows']
        stalls = [h for h in rows[0] if h.startswith('stall_') and 'Not Issued' not in h]
        first_tma = min(i for i, r in enumerate(rows) if 'UTMALDG' in r['Source'])
        regions = collections.defaultdict(collections.Counter)
        executed = collections.Counter()
        for i, r in enumerate(rows):
            ex = int(r['Instructions Executed'])
            g = 'producer' if i >= first_tma - 40 else ('main' if ex >= a.main_min else 'consumer')
            executed[g] += ex
            for s in stalls:
                regions[g][s[6:]] += int(r[s])
        name = k['name']
        print('%s: %s' % (path, name[name.find('Config'):name.find('>>') + 2] or name[:80]))
        for g in ('main', 'consumer', 'producer'):
            c = regions[g]
            print('  %-8s %11d warp instructions %7d samples: %s' % (g, executed[g], sum(c.values()), ' '.join(
                '%s=%d' % kv for kv in c.most_common(8))))
        if a.top:
            for i, r in enumerate(rows):
                ex, n = int(r['Instructions Executed']), int(r['# Samples'])
                if i < first_tma - 40 and 0 < ex < a.main_min and n >= a.top:
                    top = sorted(((int(r[s]), s[6:]) for s in stalls), reverse=True)[:2]
                    print('    %5d %-52s %6d  %s' % (i, r['Source'].strip()[:52], n, ' '.join('%s:%d' % (b, v) for v, b in top)))
