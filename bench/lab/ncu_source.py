#!/usr/bin/env python3
"""bench/lab/ncu_source.py — reads ncu's per-instruction source counters
(`ncu --section SourceCounters --page source --print-source sass --csv`,
plain or .xz) and answers where a kernel's warps stall.

  top FILE [N]            the N instructions with the most stall samples, with their top reasons
  regions FILE            samples summed by execution count (a count per k-tile, per tile, ... names a region)
  reasons FILE E1,E2,...  stall reasons summed over the instructions executed E1, E2, ... times
  runs FILE LO HI         between addresses LO and HI (hex, low 20 bits), runs of equal execution count:
                          executed code split by unexecuted blocks shows as short runs between long exec=0 runs
"""
import collections
import csv
import io
import lzma
import sys


def load(path):
    text = (lzma.open(path, 'rt') if path.endswith('.xz') else open(path)).read().splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith('"Address","Source"'))
    rows = list(csv.reader(io.StringIO("\n".join(text[start:]))))
    hdr = rows[0]
    return hdr, [r for r in rows[1:] if len(r) == len(hdr)]


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    hdr, rows = load(path)
    ix = {h: i for i, h in enumerate(hdr)}
    samples, execs = ix["Warp Stall Sampling (All Samples)"], ix["Instructions Executed"]
    stalls = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
    total = sum(int(r[samples]) for r in rows)
    reasons = lambda r, n: sorted(((int(r[ix[s]]), s[6:]) for s in stalls if int(r[ix[s]])), reverse=True)[:n]
    if cmd == 'top':
        n = int(sys.argv[3]) if len(sys.argv) > 3 else 30
        print("samples", total)
        for r in sorted(rows, key=lambda r: -int(r[samples]))[:n]:
            s = int(r[samples])
            print(f"{s:7d} {100 * s / total:5.1f}% {r[0][-5:]} {r[1].strip()[:60]:60s} exec={r[execs]} {reasons(r, 3)}")
    elif cmd == 'regions':
        by, count = collections.Counter(), collections.Counter()
        for r in rows:
            by[int(r[execs])] += int(r[samples])
            count[int(r[execs])] += 1
        for e, s in by.most_common(20):
            print(f"exec={e:9d} instructions={count[e]:5d} samples={s:7d} {100 * s / total:5.1f}%")
    elif cmd == 'reasons':
        keep = {int(x) for x in sys.argv[3].split(',')}
        c = collections.Counter()
        for r in rows:
            if int(r[execs]) in keep:
                for s in stalls:
                    c[s[6:]] += int(r[ix[s]])
        print(sum(c.values()), c.most_common(12))
    elif cmd == 'runs':
        lo, hi = int(sys.argv[3], 16), int(sys.argv[4], 16)
        run = None
        for r in rows:
            a = int(r[0], 16) & 0xfffff
            if not lo <= a <= hi:
                continue
            e, s = int(r[execs]), int(r[samples])
            if run and run[2] == e:
                run[1], run[3], run[4] = a, run[3] + 1, run[4] + s
                continue
            if run:
                print(f"{run[0]:05x}-{run[1]:05x} exec={run[2]:8d} n={run[3]:5d} samples={run[4]}")
            run = [a, a, e, 1, s]
        if run:
            print(f"{run[0]:05x}-{run[1]:05x} exec={run[2]:8d} n={run[3]:5d} samples={run[4]}")


if __name__ == '__main__':
    main()
