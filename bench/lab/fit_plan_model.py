#!/usr/bin/env python3
"""Fit the GEMM plan's cost model (include/tessel/gemm_model.hpp) to measured
tuning logs, and report how well the fitted model chooses.

Input: TESSEL_TUNE_LOG files (one line per timed configuration: key, choice,
median us, launches), written by `tessel bench gemm --impl tuned` or
`tessel tune --suite ...` with TESSEL_TUNE_LOG set.  Each problem of a log
has every candidate of tessel/gemm_tune.hpp timed under the benchmark's L2
flush, so the log is a table of (problem, configuration) -> time.

The model (the same arithmetic as gemm_model.hpp; docs/heuristics.md):
  units   = tiles * splits; slots = SMs (k15: 2 x SMs, two tiles per CTA)
  waves   = ceil(units / slots)
  k-step  = max(mma[f], bytes_per_kstep[f] * streams / BW, bytes_per_kstep[f] / bw_sm)
            times (1 + straddle[f]) where A's or B's rows straddle 128-byte lines
  t       = fixed + waves * (ceil(k_tiles / splits) * k-step + epi[f] * out_bytes / 2)
            + (splits > 1) * (split_fixed + 8 * splits * M * N / BW)
  family f: the kernel and tile (k13 128x256, k13 64x128, k13 swapped 128x32, k14 64x128, ...)
Fitted in log time (least squares), per family: mma, epi, straddle; shared:
fixed, BW, bw_sm, split_fixed.

  fit_plan_model.py --fit LOG... [--holdout LOG...] [--cpp]

--holdout: logs of other problems, scored with the fitted model (the regret:
time of the model's choice over the best timed, per problem).  --cpp prints
the fitted table as gemm_model.hpp's kFamilies initializer.
"""
import argparse
import collections
import math
import re
import sys

import numpy as np
from scipy.optimize import least_squares

SMS = 132


def parse_key(key):
    m = re.search(r";(\d+)x(\d+)x(\d+);ld=(\d+),(\d+),(\d+),(\d+);", key)
    mm, n, k, lda, ldb, ldc, ldd = map(int, m.groups())
    lay = re.search(r";(A:[km],B:[nk]);", key).group(1)
    out = re.search(r";[a-z0-9]+->([a-z0-9]+);", key).group(1)
    return dict(m=mm, n=n, k=k, lda=lda, ldb=ldb, ldc=ldc, ldd=ldd, layout=lay, out=out)


def parse_choice(c):
    f = c.split(":")
    impl = f[0]
    bm, bn = map(int, f[1].split("x"))
    splits = int(f[2][1:]) if len(f) > 2 else 1
    swap = len(f) > 3 and f[3] == "swap"
    return dict(impl=impl, bm=bm, bn=bn, splits=splits, swap=swap)


def family(c):
    return "%s:%dx%d%s" % (c["impl"], c["bm"], c["bn"], ":swap" if c["swap"] else "")


def read_logs(paths):
    data = collections.defaultdict(dict)  # key -> choice -> us
    for p in paths:
        for line in open(p):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            key, choice, us = parts[0], parts[1], float(parts[2])
            data[key][choice] = min(us, data[key].get(choice, math.inf))
    return data


def straddles(ld):
    return ld % 8 == 0 and ld % 64 != 0


def features(p, c):
    """Everything the model needs of one (problem, configuration)."""
    m, n, k = p["m"], p["n"], p["k"]
    rows, cols = (n, m) if c["swap"] else (m, n)
    tiles = -(-rows // c["bm"]) * -(-cols // c["bn"])
    s = c["splits"]
    units = tiles * s
    slots = 2 * SMS if c["impl"] == "k15" else SMS
    if c["impl"] == "k15":
        units = -(-m // 128) * -(-n // 128)
    waves = -(-units // slots)
    kt = -(-(-(-k // 64)) // s)
    streams = min(units, slots)
    bytes_kstep = (c["bm"] + c["bn"]) * 64 * 2
    if c["impl"] == "k14":  # the pair shares the wider operand's tile: each CTA reads half of it
        bytes_kstep = (c["bm"] + c["bn"] / 2) * 64 * 2
    a_k = p["layout"].startswith("A:k")
    b_n = p["layout"].endswith("B:n")
    strad = (straddles(p["lda"]) and a_k) or (straddles(p["ldb"]) and b_n)
    out_bytes = 2 if p["out"] in ("bf16", "fp16") else 4
    return dict(waves=waves, kt=kt, streams=streams, bytes_kstep=bytes_kstep, strad=1.0 if strad else 0.0,
                splits=s, mn=m * n, out_bytes=out_bytes, tiles=tiles)


class Model:
    GLOBALS = ["fixed_us", "bw_gbs", "bw_sm_gbs", "split_us"]
    PER = ["mma_ns", "epi_ns", "straddle"]

    def __init__(self, fams):
        self.fams = sorted(fams)

    def unpack(self, x):
        g = dict(zip(self.GLOBALS, np.exp(x[:4])))
        per = {}
        for i, f in enumerate(self.fams):
            base = 4 + 3 * i
            per[f] = dict(mma_ns=math.exp(x[base]), epi_ns=math.exp(x[base + 1]), straddle=math.exp(x[base + 2]))
        return g, per

    def x0(self):
        x = [math.log(5.0), math.log(3500.0), math.log(60.0), math.log(3.0)]
        for _ in self.fams:
            x += [math.log(400.0), math.log(2000.0), math.log(0.2)]
        return np.array(x)

    @staticmethod
    def predict(g, fam, ft):
        bw = g["bw_gbs"]  # bytes per ns
        kstep = max(fam["mma_ns"], ft["bytes_kstep"] * ft["streams"] / bw, ft["bytes_kstep"] / g["bw_sm_gbs"])
        kstep *= 1.0 + fam["straddle"] * ft["strad"]
        t_ns = ft["waves"] * (ft["kt"] * kstep + fam["epi_ns"] * ft["out_bytes"] / 2)
        if ft["splits"] > 1:
            t_ns += g["split_us"] * 1000 + 8.0 * ft["splits"] * ft["mn"] / bw
        return g["fixed_us"] + t_ns / 1000.0


def build_rows(data):
    rows = []
    for key, by in data.items():
        p = parse_key(key)
        for choice, us in by.items():
            c = parse_choice(choice)
            rows.append((key, choice, family(c), features(p, c), us))
    return rows


def fit(rows):
    model = Model({r[2] for r in rows})

    def resid(x):
        g, per = model.unpack(x)
        return np.array([math.log(Model.predict(g, per[f], ft) / us) for _, _, f, ft, us in rows])

    sol = least_squares(resid, model.x0(), loss="soft_l1", f_scale=0.1, max_nfev=4000)
    return model, sol


def evaluate(model, x, data, label):
    g, per = model.unpack(x)
    regrets = []
    worst = []
    for key, by in data.items():
        p = parse_key(key)
        best = min(by.values())
        scored = []
        for choice, us in by.items():
            c = parse_choice(choice)
            f = family(c)
            if f not in per:
                continue
            scored.append((Model.predict(g, per[f], features(p, c)), choice, us))
        if not scored:
            continue
        pred, choice, us = min(scored)
        regrets.append(us / best)
        worst.append((us / best, key.split(";")[4], choice, min(by, key=by.get)))
    r = np.array(regrets)
    print("%s: %d problems; regret (time of the model's choice / best timed): geomean %.3f, p90 %.3f, max %.3f; "
          "within 2 %%: %.0f %%, within 5 %%: %.0f %%" % (label, len(r), math.exp(np.mean(np.log(r))),
                                                         np.percentile(r, 90), r.max(), 100 * np.mean(r <= 1.02),
                                                         100 * np.mean(r <= 1.05)))
    for w in sorted(worst, reverse=True)[:8]:
        print("  %.3f %-18s model %-20s best %s" % w)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fit", nargs="+", required=True)
    ap.add_argument("--holdout", nargs="*", default=[])
    ap.add_argument("--cpp", action="store_true")
    a = ap.parse_args()
    data = read_logs(a.fit)
    rows = build_rows(data)
    model, sol = fit(rows)
    g, per = model.unpack(sol.x)
    err = np.exp(np.abs(sol.fun))
    print("fit: %d timings of %d problems, %d families; |log error| median %.3f, p90 %.3f" %
          (len(rows), len(data), len(per), np.median(err), np.percentile(err, 90)))
    print("globals: " + ", ".join("%s %.3g" % kv for kv in g.items()))
    for f, v in per.items():
        print("  %-18s mma %7.1f ns/k-step  epi %7.1f ns  straddle %.3f" % (f, v["mma_ns"], v["epi_ns"], v["straddle"]))
    evaluate(model, sol.x, data, "fitted problems")
    if a.holdout:
        evaluate(model, sol.x, read_logs(a.holdout), "held-out problems")
    if a.cpp:
        for f, v in per.items():
            print('    {"%s", %.1f, %.1f, %.4f},' % (f, v["mma_ns"], v["epi_ns"], v["straddle"]))


if __name__ == "__main__":
    sys.exit(main())
