#!/usr/bin/env python3
"""Fit a cost model of the small-M kernel (include/tessel/kernels/gemm/
small_m_stream.cuh) to `tessel bench gemm` CSVs, and print its constants and
errors.  A finding tool: the library's split count (small_m_splits) is not
taken from it.

Input: CSVs of `tessel bench gemm`; rows with impl small_m (their split count
is the note's `--splits` run given by --splits-of, else the launcher's own
rule), and auto rows whose note says `small_m splits S`.  Rows that did not
pass verification and rows without a time are skipped.

The model, per call (µs), for M rows in an instance of MT = 8/16/32/64 rows,
ctas = ceil(N / 128) x S column tiles and splits, slots = 132 x (2 for MT <= 32):
  waves = ceil(ctas / slots);  kt = ceil(ceil(K / 64) / S)
  step  = step[MT] x (1 + unaligned, where N or K is not a multiple of 8)
          x (gamma where two CTAs share an SM)
  sum   = (S > 1) x chain x ceil(min(M, MT) / 2) x ceil(S / 16)
          (the last split's per-thread chain of L2 round trips)
  t     = fixed + smooth_max(waves x (kt x step + unit) + sum, bytes / BW)

  fit_small_m.py CSV... [--splits-of FILE=S ...]
"""
import argparse
import csv
import math
import sys

import numpy as np
from scipy.optimize import least_squares

SMS = 132
NAMES = ["fixed", "step8", "step16", "step32", "step64", "unaligned", "chain", "bw_TBs", "unit", "gamma"]


def instance_rows(m):
    return 8 if m <= 8 else 16 if m <= 16 else 32 if m <= 32 else 64


def launcher_splits(m, n, k, sms=SMS):
    """small_m_splits (tessel/gemm_model.hpp), then the launcher's no-empty-split rounding."""
    tiles, k_tiles = -(-n // 128), -(-k // 64)
    s = max(1, min((sms * (2 if m <= 32 else 1)) // tiles, k_tiles // 2, 64))
    return effective_splits(s, k)


def effective_splits(s, k):
    k_tiles = -(-k // 64)
    s = min(s, k_tiles)
    per = -(-k_tiles // s)
    return -(-k_tiles // per)


def read_points(paths, forced):
    pts = []
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(line for line in f if not line.startswith("#")):
                if r.get("disposition") not in ("passed", "unverified") or not r.get("median_ms"):
                    continue
                m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
                if r["impl"] == "small_m":
                    s = effective_splits(forced[path], k) if path in forced else launcher_splits(m, n, k)
                elif r["impl"] == "auto" and r["note"].startswith("small_m splits"):
                    s = effective_splits(int(r["note"].split()[2]), k)
                else:
                    continue
                pts.append((m, n, k, s, n % 8 == 0 and k % 8 == 0, float(r["median_ms"]) * 1e3))
    return pts


def predict(x, m, n, k, s, aligned):
    fixed, s8, s16, s32, s64, unal, chain, bw, unit, gamma = x
    mt = instance_rows(m)
    slots = SMS * (2 if mt <= 32 else 1)
    ctas = -(-n // 128) * s
    waves = -(-ctas // slots)
    kt = -(-(-(-k // 64)) // s)
    step = {8: s8, 16: s16, 32: s32, 64: s64}[mt] * (1 if aligned else 1 + unal)
    if mt <= 32 and min(ctas, slots) > SMS:
        step *= gamma
    compute = waves * (kt * step + unit)
    if s > 1:
        compute += chain * -(-min(m, mt) // 2) * -(-s // 16)
    bytes_ = 2 * (m * k + k * n) + 2 * m * n + (8 * s * m * n if s > 1 else 0)
    dram = bytes_ / (bw * 1e6)
    return fixed + (compute**4 + dram**4) ** 0.25


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--splits-of", action="append", default=[], metavar="FILE=S",
                    help="the --splits S that FILE's small_m rows ran with")
    a = ap.parse_args()
    forced = {}
    for item in a.splits_of:
        path, s = item.rsplit("=", 1)
        forced[path] = int(s)
    pts = read_points(a.csv, forced)
    if len(pts) < 2 * len(NAMES):
        sys.exit("fit_small_m.py: %d points, too few for %d constants" % (len(pts), len(NAMES)))

    def residuals(x):
        return [math.log(predict(x, *p[:5]) / p[5]) for p in pts]

    x0 = [4, 0.5, 0.5, 0.7, 1.2, 0.2, 0.3, 3.0, 0.5, 1.5]
    fit = least_squares(residuals, x0, bounds=([0] * 10, [20, 5, 5, 5, 5, 3, 5, 5, 10, 3]))
    err = np.abs(residuals(fit.x))
    print("%d points" % len(pts))
    for name, v in zip(NAMES, fit.x):
        print("  %-10s %8.3f" % (name, v))
    print("error of log time: median %.1f %%, p90 %.1f %%, max %.1f %%" %
          (100 * np.median(err), 100 * np.percentile(err, 90), 100 * err.max()))


if __name__ == "__main__":
    main()
