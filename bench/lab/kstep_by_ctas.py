#!/usr/bin/env python3
"""A k-tile's time against the grid's CTAs, per configuration, from tuning logs.

For each configuration given, every problem of the logs that ran it in one
wave or less (CTAs <= SMS), with operands TMA reads as they are and at least
MIN_KT k-tiles of 64, goes into the bucket of its CTA count; per bucket a
least-squares line time = fixed + k-tiles x step.  A step that stays flat as
the CTAs grow says one CTA's loads are the limit (its bytes in flight over
the memory's latency), not the memory as a whole.

  kstep_by_ctas.py LOG... [--config k13:64x16:s1:swap ...]

LOG: TESSEL_TUNE_LOG files (bench/results' `any_shape/tune_logs.tar.xz`,
unpacked).  Standard library only.
"""
import argparse
import re

SMS = 132
MIN_KT = 20
BUCKETS = [(1, 19), (20, 39), (40, 69), (70, 99), (100, SMS)]


def parse(line):
    parts = line.rstrip("\n").split("\t")
    if len(parts) < 3:
        return None
    m = re.search(r";(\d+)x(\d+)x(\d+);ld=(\d+),(\d+),", parts[0])
    if not m:
        return None
    mm, n, k, lda, ldb = map(int, m.groups())
    return (mm, n, k, lda, ldb), parts[1], float(parts[2])


def ctas_of(config, m, n):
    f = config.split(":")
    bm, bn = map(int, f[1].split("x"))
    splits = int(f[2][1:]) if len(f) > 2 else 1
    rows, cols = (n, m) if config.endswith(":swap") else (m, n)
    return -(-rows // bm) * -(-cols // bn) * splits


def line_fit(points):
    """Least squares y = a + b x over (x, y) points."""
    n = len(points)
    sx = sum(x for x, _ in points)
    sy = sum(y for _, y in points)
    sxx = sum(x * x for x, _ in points)
    sxy = sum(x * y for x, y in points)
    den = n * sxx - sx * sx
    if den == 0:
        return sy / n, 0.0
    b = (n * sxy - sx * sy) / den
    return (sy - b * sx) / n, b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--config", nargs="+",
                    default=["k13:64x16:s1:swap", "k13:128x16:s1:swap", "k13:64x32:s1:swap", "k13:64x128:s1"])
    args = ap.parse_args()
    best = {}  # (problem, config) -> fastest time
    for path in args.logs:
        for line in open(path):
            r = parse(line)
            if r is None:
                continue
            key = (r[0], r[1])
            best[key] = min(r[2], best.get(key, float("inf")))
    for config in args.config:
        points = []
        for (p, c), us in best.items():
            m, n, k, lda, ldb = p
            if c != config or lda % 8 or ldb % 8:
                continue
            ctas, kt = ctas_of(c, m, n), -(-k // 64)
            if ctas <= SMS and kt >= MIN_KT:
                points.append((ctas, kt, us))
        print("%s: %d problems" % (config, len(points)))
        for lo, hi in BUCKETS:
            pts = [(kt, us) for ctas, kt, us in points if lo <= ctas <= hi]
            if len(pts) < 3:
                continue
            a, b = line_fit(pts)
            print("  CTAs %3d-%3d  n=%3d  time = %5.2f us + %5.1f ns a k-tile" % (lo, hi, len(pts), a, 1000 * b))


if __name__ == "__main__":
    main()
