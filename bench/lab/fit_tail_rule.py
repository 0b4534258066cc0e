#!/usr/bin/env python3
"""Fit rule 14's cost (tail_time, include/tessel/gemm_model.hpp) to forced timings.

Input: a CSV of `tessel bench gemm --impl k13 --tile-n W --splits S [--split-tail]`
rows with a leading `run` column named `w<W>_s<S>_tail` (`w<W>_s1` unsplit), as
in bench/results/any_shape/split_tail_h200.csv.  For each problem, width and
split count the measured time over the same width unsplit is compared with

    (full x K x (1 + slow_w) + tail_waves x (ceil(K / s) + fixed + per_split x s))
    / ((full + 1) x K)

(K in k-tiles of 64; full the whole waves; tail_waves = ceil(rest x s / SMs)),
and slow (128 and 192), slow_256, fixed and per_split are fitted by a grid
search in log time.  Prints the constants and each row's measured and
predicted ratio.

usage: python3 bench/lab/fit_tail_rule.py CSV [--sms 132]
Standard library only.
"""
import argparse
import csv
import math


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--sms", type=int, default=132)
    a = ap.parse_args()
    times = {}
    for r in csv.DictReader(open(a.csv)):
        run = r["run"]
        if not run.startswith("w"):
            continue
        w, s = run.split("_")[:2]
        times.setdefault((int(r["m"]), int(r["n"]), int(r["k"])), {})[(int(w[1:]), int(s[1:]))] = float(r["median_ms"])
    pts = []
    for (m, n, k), d in times.items():
        kt = -(-k // 64)
        for (w, s), t in d.items():
            tiles = -(-m // 128) * -(-n // w)
            if s == 1 or (w, 1) not in d or tiles <= a.sms or tiles % a.sms == 0:
                continue
            full, rest = tiles // a.sms, tiles % a.sms
            pts.append(((m, n, k, w, s), full, kt, -(-rest * s // a.sms), -(-kt // s), s, t / d[(w, 1)], w))

    def pred(p, c):
        _, full, kt, waves, ks, s, _, w = p
        slow = c[1] if w == 256 else c[0]
        return (full * kt * (1 + slow) + waves * (ks + c[2] + c[3] * s)) / ((full + 1) * kt)

    best = None
    for slow in [x / 100 for x in range(0, 16)]:
        for slow256 in [x / 100 for x in range(0, 25)]:
            for fixed in range(0, 20, 2):
                for per in [x / 2 for x in range(0, 12)]:
                    c = (slow, slow256, fixed, per)
                    err = sum(math.log(pred(p, c) / p[6]) ** 2 for p in pts)
                    if best is None or err < best[0]:
                        best = (err, c)
    err, c = best
    print(f"{len(pts)} rows: slow {c[0]}, slow at 256 {c[1]}, fixed {c[2]}, per split {c[3]} "
          f"(rms log error {math.sqrt(err / max(len(pts), 1)):.3f})")
    for p in sorted(pts):
        print("%s measured %.3f predicted %.3f" % ("x".join(map(str, p[0][:3])) + f" w{p[0][3]} s{p[0][4]}", p[6], pred(p, c)))


if __name__ == "__main__":
    main()
