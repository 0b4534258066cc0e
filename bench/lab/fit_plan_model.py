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
  k-step  = max(mma[f], bytes_per_kstep[f] / bw_sm)
            (--grid: and streams * bytes_per_kstep[f] / l2, the grid's bytes a k-step at a fitted rate)
            times (1 + straddle[f]) where A's or B's rows straddle 128-byte lines
  t       = fixed + waves * (ceil(k_tiles / splits) * k-step + epi[f] * out_bytes / 2)
            + (splits > 1) * (split_fixed + pass * ceil(splits / per_pass[f]))
  (the partials split K's last unit loads a pass, kernels/gemm/split_k.cuh)
  family f: the kernel and tile (k13 128x256, k13 64x128, k13 swapped 128x32, k14 64x128, ...)
gemm_model.hpp multiplies k15's compute by kPingpongInLoop after the fit (k15 runs that much slower in
the bench's interleaved loop than the one-after-another timings here); this script fits and scores
those timings without it. Nor does it carry narrow_tail_us (the narrow swapped tiles' last partial
wave, streamed at a CTA's rate: a measured constant, kStreamLatencyNs, added after the fit).
Fitted in log time (least squares), per family: mma, epi, straddle; shared:
fixed, BW, bw_sm, split_fixed, pass (and l2 with --grid).  --refit-split fits the rest with split K
one constant, then only split K's two terms (as gemm_model.hpp's constants
were made); --ahead old counts passes as the kernel did before 64 x 64 and
128 x 64 loaded two partials a pass (the tuning logs' kernel).

  fit_plan_model.py --fit LOG... [--holdout LOG...] [--cpp] [--refit-split] [--ahead old|new] [--no-passes] [--grid]
  fit_plan_model.py --residuals RUN.csv...

--residuals: the model's choices in `tessel bench gemm --impl auto` CSVs (each
note reads "model CONFIG (predicted T us)") against the times it predicted,
per configuration family: problems, the geometric mean of measured over
predicted with its 10th and 90th percentiles, and the rows' geometric mean
ratio to cuBLASLt.  Above 1 a family runs slower than the model thinks, so
the model takes it too readily.

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
NARROW_M = 16  # gemm_model.hpp kModelNarrowM: at most this many rows of M, only swapped tiles are chosen
# gemm_model.hpp kClusterSplitUs, kClusterSplitPerSplitUs: split K inside a cluster (k13's swapped 16- and
# 32-wide tiles at 2..8 splits, splits_in_cluster), measured rather than fitted: the tuning logs predate it.
CLUSTER_US, CLUSTER_PER_SPLIT_US = 0.4, 0.3
PASS_MAX = 5.0  # the cost a pass of split K's sum may take (us); --no-passes sets it near 0: one constant
GRID = False  # --grid: a k-step also bounded by the grid's bytes, CTAs x bytes_kstep / l2_gbs (fitted)


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


MAX_FLOPS = 1e30  # fit on every problem (the plan uses the model below kModelMaxFlops only)


def read_logs(paths, max_flops=MAX_FLOPS):
    data = collections.defaultdict(dict)  # key -> choice -> us
    for p in paths:
        for line in open(p):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            key, choice, us = parts[0], parts[1], float(parts[2])
            q = parse_key(key)
            if 2.0 * q["m"] * q["n"] * q["k"] > max_flops:
                continue
            data[key][choice] = min(us, data[key].get(choice, math.inf))
    return data


def straddles(ld):
    return ld % 8 == 0 and ld % 64 != 0


AHEAD = "new"


def ahead_of(pairs):
    """Partials a pass of split K's sum loads (split_k.cuh): 'old' as the tuning logs were timed, 'new' as now."""
    if pairs <= 4:
        return 16
    if AHEAD == "old":
        return 4 if pairs <= 8 else 1
    return 32 // pairs if pairs <= 16 else 1


def features(p, c):
    """Everything the model needs of one (problem, configuration)."""
    m, n, k = p["m"], p["n"], p["k"]
    rows, cols = (n, m) if c["swap"] else (m, n)
    tiles = -(-rows // c["bm"]) * -(-cols // c["bn"])
    s = c["splits"]
    units = tiles * s
    slots = 2 * SMS if c["impl"] == "k15" else 2 * (SMS // 2 - 2) if c["impl"] == "k14" else SMS
    waves = -(-units // slots)
    kt = -(-(-(-k // 64)) // s)
    streams = min(units, slots)
    bytes_kstep = (c["bm"] + c["bn"]) * 64 * 2
    if c["impl"] == "k14":  # the pair shares the wider operand's tile: each CTA reads half of it
        bytes_kstep = (c["bm"] + c["bn"] / 2) * 64 * 2
    # TMA reads rows of ld elements in either layout; with the swap A and B trade places.
    sa, sb = straddles(p["lda"]), straddles(p["ldb"])
    if c["swap"]:
        sa, sb = sb, sa
    a_bytes, b_bytes = m * k * 2, k * n * 2
    pad = (a_bytes if p["lda"] % 8 else 0) + (b_bytes if p["ldb"] % 8 else 0)
    out_bytes = 2 if p["out"] in ("bf16", "fp16") else 4
    cluster = (c["impl"] == "k13" and c["swap"] and c["bn"] <= 32 and 2 <= s <= 8
               and tiles * s <= (SMS if s == 2 else SMS // 2))  # gemm_types.hpp splits_in_cluster
    dram = (m * k + k * n) * 2 + m * n * out_bytes + (2 * 4 * s * m * n if s > 1 and not cluster else 0)
    # The last unit's sum of the partials: one L2 round trip a pass, a pass loading as many partials as the
    # tile's registers allow (split_sum_per_pass of its accumulator pairs a thread: tile width / 4).
    passes = -(-s // ahead_of(c["bn"] // 4)) if s > 1 else 0
    return dict(waves=waves, kt=kt, streams=streams, passes=passes, cluster=cluster, bytes_kstep=bytes_kstep, strad_a=float(sa), strad_b=float(sb),
                splits=s, mn=m * n, out_bytes=out_bytes, tiles=tiles, dram_bytes=dram, pad_bytes=pad)


class Model:
    GLOBALS = ["fixed_us", "bw_gbs", "bw_sm_gbs", "split_us", "pad_us", "pass_us"]
    PER = ["mma_ns", "unit_ns", "straddle_a", "straddle_b"]

    def __init__(self, fams):
        self.fams = sorted(fams)
        self.globals = Model.GLOBALS + (["l2_gbs"] if GRID else [])

    def unpack(self, x):
        g = dict(zip(self.globals, x[:len(self.globals)]))
        per = {}
        for i, f in enumerate(self.fams):
            base = len(self.globals) + 4 * i
            per[f] = dict(mma_ns=x[base], unit_ns=x[base + 1], straddle_a=x[base + 2], straddle_b=x[base + 3])
        return g, per

    def bounds(self):
        grid_lo, grid_hi = ([2000.0], [100000.0]) if GRID else ([], [])  # l2_gbs: 2-100 TB/s
        lo = [0.5, 1000.0, 20.0, 0.0, 0.0, 0.0] + grid_lo + [5.0, 0.0, 0.0, 0.0] * len(self.fams)
        hi = [20.0, 20000.0, 2000.0, 30.0, 30.0, PASS_MAX] + grid_hi + [5000.0, 20000.0, 3.0, 3.0] * len(self.fams)
        return lo, hi

    def x0(self):
        # bytes per ns (GB/s): DRAM ~4300 (4.3 TB/s), one SM's loads ~150
        x = [5.0, 4000.0, 150.0, 3.0, 3.0, PASS_MAX / 2] + ([10000.0] if GRID else [])
        for f in self.fams:
            impl, shape = f.split(":")[0], f.split(":")[1]
            bm, bn = map(int, shape.split("x"))
            mma = bm * bn * 128 / 6200.0 * (2 if impl == "k15" else 1)  # ns at ~6.2 TFLOP/s per SM
            x += [mma, 500.0, 0.2, 0.2]
        return np.array(x)

    @staticmethod
    def predict(g, fam, ft):
        # Smooth maxima (4-norms): the sum of the two sides where they are
        # close, the larger where they are not; gives the fit gradients.
        def smax(a, b):
            return (a ** 4 + b ** 4) ** 0.25
        slow = 1.0 + fam["straddle_a"] * ft["strad_a"] + fam["straddle_b"] * ft["strad_b"]
        kstep = smax(fam["mma_ns"] * slow, ft["bytes_kstep"] / g["bw_sm_gbs"])
        if GRID:
            kstep = smax(kstep, ft["streams"] * ft["bytes_kstep"] / g["l2_gbs"])
        t_compute = ft["waves"] * (ft["kt"] * kstep + fam["unit_ns"] * ft["out_bytes"] / 2)
        t_memory = ft["dram_bytes"] / g["bw_gbs"]
        t_ns = smax(t_compute, t_memory)
        if ft["cluster"]:
            t_ns += (CLUSTER_US + CLUSTER_PER_SPLIT_US * ft["splits"]) * 1000
        elif ft["splits"] > 1:
            t_ns += g["split_us"] * 1000 + g["pass_us"] * 1000 * ft["passes"]
        if ft["pad_bytes"] > 0:  # the padded copy of operands TMA cannot read: same for every configuration
            t_ns += g["pad_us"] * 1000 + 2.0 * ft["pad_bytes"] / g["bw_gbs"]
        return g["fixed_us"] + t_ns / 1000.0


def build_rows(data, near=1.6):
    """(problem, configuration) rows; only configurations within `near` of the
    problem's best enter the fit: the model must rank the contenders, not
    describe configurations that never win."""
    rows = []
    for key, by in data.items():
        p = parse_key(key)
        best = min(by.values())
        for choice, us in by.items():
            if us > near * best:
                continue
            c = parse_choice(choice)
            rows.append((key, choice, family(c), features(p, c), us))
    return rows


def fit(rows, keep=None):
    """keep: a solution whose values stay fixed except split K's (split_us, pass_us)."""
    model = Model({r[2] for r in rows})

    def resid(x):
        g, per = model.unpack(x)
        return np.array([math.log(Model.predict(g, per[f], ft) / us) for _, _, f, ft, us in rows])

    lo, hi = model.bounds()
    x0 = model.x0()
    if keep is not None:
        x0 = np.array(keep, dtype=float)
        free = {Model.GLOBALS.index("split_us"), Model.GLOBALS.index("pass_us")}
        for i in range(len(x0)):
            if i not in free:
                lo[i], hi[i] = x0[i] * (1 - 1e-9) - 1e-12, x0[i] * (1 + 1e-9) + 1e-12
        x0[list(free)] = [1.0, 0.5]
    sol = least_squares(resid, x0, bounds=(lo, hi), loss="linear", max_nfev=3000)
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
            if p["m"] <= NARROW_M and p["m"] < p["n"] and not c["swap"]:
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


def residuals(paths):
    """--residuals: measured over predicted time per family of the model's choices (see the docstring)."""
    import csv

    note = re.compile(r"model (\S+) \(predicted ([\d.]+) us\)")
    rows = collections.defaultdict(list)
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                m = note.search(r.get("note", ""))
                if r.get("impl") != "auto" or not m or not r.get("median_ms"):
                    continue
                parts = m.group(1).split(":")  # k13:64x16:s4:swap -> k13:64x16:split:swap
                fam = parts[0] + ":" + parts[1]
                fam += ":split" if len(parts) > 2 and parts[2].startswith("s") and parts[2] != "s1" else ""
                fam += ":swap" if m.group(1).endswith(":swap") else ""
                ratio = float(r["ratio"]) if r.get("ratio") else None
                rows[fam].append((float(r["median_ms"]) * 1000.0 / float(m.group(2)), ratio))
    geomean = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))  # noqa: E731
    print("family,problems,measured_over_predicted,p10,p90,ratio_to_cublas")
    for fam, v in sorted(rows.items(), key=lambda kv: -len(kv[1])):
        over = sorted(x for x, _ in v)
        ratios = [r for _, r in v if r]
        print("%s,%d,%.3f,%.2f,%.2f,%s" % (fam, len(v), geomean(over), over[len(over) // 10],
                                           over[(9 * len(over)) // 10],
                                           "%.3f" % geomean(ratios) if ratios else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fit", nargs="+")
    ap.add_argument("--residuals", nargs="+", metavar="RUN.csv")
    ap.add_argument("--holdout", nargs="*", default=[])
    ap.add_argument("--cpp", action="store_true")
    ap.add_argument("--split", type=int, default=0, help="fit on problems whose index %% 2 != SPLIT-1, score the rest")
    ap.add_argument("--no-passes", action="store_true", help="split K's cost one constant, no term per pass of its sum")
    ap.add_argument("--refit-split", action="store_true",
                    help="fit without the pass term, then refit only split K's fixed cost and its cost a pass")
    ap.add_argument("--ahead", choices=["old", "new"], default="new", help="the kernel's partials a pass (split_k.cuh)")
    ap.add_argument("--grid", action="store_true", help="a k-step also bounded by the grid's bytes over a fitted rate")
    a = ap.parse_args()
    if a.residuals:
        residuals(a.residuals)
        return
    if not a.fit:
        ap.error("give --fit LOG... or --residuals RUN.csv...")
    global PASS_MAX, AHEAD, GRID
    AHEAD = a.ahead
    GRID = a.grid
    if a.no_passes:
        PASS_MAX = 1e-9
    data = read_logs(a.fit)
    if a.split:
        keys = sorted(data)
        test = {k: data[k] for i, k in enumerate(keys) if i % 2 == a.split - 1}
        data = {k: data[k] for i, k in enumerate(keys) if i % 2 != a.split - 1}
    rows = build_rows(data)
    if a.refit_split:  # the model as it was (split K one constant), then only split K's two terms refitted
        PASS_MAX = 1e-9
        _, first = fit(rows)
        PASS_MAX = 5.0
        model, sol = fit(rows, keep=first.x)
    else:
        model, sol = fit(rows)
    g, per = model.unpack(sol.x)
    err = np.exp(np.abs(sol.fun))
    print("fit: %d timings of %d problems, %d families; |log error| median %.3f, p90 %.3f" %
          (len(rows), len(data), len(per), np.median(err), np.percentile(err, 90)))
    print("globals: " + ", ".join("%s %.3g" % kv for kv in g.items()))
    for f, v in per.items():
        print("  %-18s mma %7.1f ns/k-step  unit %7.1f ns  straddle A %.3f B %.3f" %
              (f, v["mma_ns"], v["unit_ns"], v["straddle_a"], v["straddle_b"]))
    evaluate(model, sol.x, data, "fitted problems")
    if a.split:
        evaluate(model, sol.x, test, "the other half (not fitted)")
    if a.holdout:
        evaluate(model, sol.x, read_logs(a.holdout), "held-out problems")
        evaluate(model, sol.x, read_logs(a.holdout, 1e10), "held-out problems below 1e10")
    if a.cpp:
        for f, v in per.items():
            print('    {"%s", %.1f, %.1f, %.3f, %.3f},' % (f, v["mma_ns"], v["unit_ns"], v["straddle_a"], v["straddle_b"]))


if __name__ == "__main__":
    sys.exit(main())
