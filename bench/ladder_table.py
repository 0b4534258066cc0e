#!/usr/bin/env python3
"""Writes the ladder and suite tables into docs/ladder.md (between the
<!-- table:begin --> and <!-- table:end --> markers) from the CSVs of
`tessel bench gemm`.

usage: ladder_table.py LADDER_CSV SUITE_CSV MARKDOWN [SUITE_IMPL [ALONE_SUITE_CSV]]

SUITE_IMPL picks the suite rows of one implementation (default: the first
row's).  ALONE_SUITE_CSV, a second run of the suite with `--order blocks`
(each library alone, at the clock its own power sets), adds a column of its
ratios and a second headline.  Every value is the median over a problem's
repeats of the rows that passed; how each run was timed (interleaved or
blocks, the heat, the flush) is read from its CSV.
"""
import csv
import math
import statistics
import sys


def rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("disposition") == "passed"]


def median_by(rs, key, field):
    out = {}
    for r in rs:
        if r.get(field) not in (None, ""):
            out.setdefault(key(r), []).append(float(r[field]))
    return {k: statistics.median(v) for k, v in out.items()}


def size(r):
    return int(r["m"]), int(r["n"]), int(r["k"])


def how_timed(rs):
    """One phrase: the timing order, the heat and the flush of a run (its first row)."""
    if not rs:
        return "?"
    r = rs[0]
    # CSVs from before the l2_flush column were flushed by a memset (docs/bench-protocol.md §8).
    flush = r.get("l2_flush") or "memset"
    timing = r.get("timing") or "blocks"
    if timing == "blocks":
        order = "each implementation alone (`--order blocks`)"
        heat = int(r.get("heat_ms") or 0)
        if heat:
            order += ", %d ms of heat before each problem" % heat
    else:
        order = "every implementation in one interleaved loop"
    repeats = len({x["repeat"] for x in rs})
    return "%s; median of %d repeats, each the median of >= 50 launches with the L2 flushed by a %s" % (
        order, repeats, flush)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def pick_impl(rs, impl):
    return [r for r in rs if r["impl"] == impl]


def ladder_lines(ladder):
    gpu = ladder[0]["gpu"] if ladder else "?"
    commit = ladder[0]["commit"] if ladder else "?"
    tfl = median_by(ladder, lambda r: (r["impl"], size(r)), "tflops")
    ratio = median_by([r for r in ladder if r["impl"] != "cublas"], lambda r: (r["impl"], size(r)), "ratio")
    cub = median_by(ladder, size, "cublas_tflops")
    clock = median_by(ladder, lambda r: (r["impl"], size(r)), "sm_clock_mhz")
    sizes = sorted({size(r) for r in ladder})
    impls = sorted({r["impl"] for r in ladder if r["impl"] != "cublas"})
    out = ["Measured on %s, tessel %s, bf16 in and out, A:k, B:n, alpha 1, beta 0: %s (`bench/ladder.sh`). "
           "%% = t_cublas / t_step in the same run; MHz = the mean SM clock of "
           "the step's timed loop." % (gpu, commit, how_timed(ladder)), ""]
    out += ["| step | " + " | ".join("%d³ TFLOP/s (%% of cuBLAS, MHz)" % s[0] for s in sizes) + " |",
            "|---" * (len(sizes) + 1) + "|"]

    def cell(key):
        if key not in tfl:
            return "–"
        mhz = (", %.0f" % clock[key]) if key in clock else ""
        pct = ("%.0f %%" % (100 * ratio[key])) if key in ratio else "–"
        return "%.1f (%s%s)" % (tfl[key], pct, mhz)

    for i in impls:
        out.append("| %s | %s |" % (i, " | ".join(cell((i, s)) for s in sizes)))
    cub_cells = []
    for s in sizes:
        mhz = (" (%.0f)" % clock[("cublas", s)]) if ("cublas", s) in clock else ""
        cub_cells.append(("%.1f%s" % (cub[s], mhz)) if s in cub else "–")
    out.append("| cuBLASLt | %s |" % " | ".join(cub_cells))
    return out


def suite_lines(suite, alone):
    impl = suite[0]["impl"] if suite else "?"
    key = lambda r: (r["group"], size(r))
    st, sr, sc = (median_by(suite, key, f) for f in ("tflops", "ratio", "cublas_tflops"))
    gb, cgb = median_by(suite, key, "gbytes_per_s"), median_by(suite, key, "cublas_gbytes_per_s")
    ar = median_by(alone, key, "ratio")
    note = {key(r): r.get("note", "") for r in suite}
    out = ["Shape suite (`tests/data/bench_suite.csv`, `docs/bench-protocol.md` §6) for %s, tessel %s: %s."
           % (impl, suite[0]["commit"] if suite else "?", how_timed(suite))]
    if alone:
        out[-1] += " Alone: the same suite with %s (tessel %s)." % (how_timed(alone), alone[0]["commit"])
    out.append("")
    alone_head = " alone |" if alone else ""
    out += ["| group | M x N x K | %s TFLOP/s | cuBLASLt TFLOP/s | t_cublas / t_%s |%s %s GB/s | cuBLASLt GB/s | "
            "%s's choice |" % (impl, impl, alone_head, impl, impl),
            "|---" * (8 + (1 if alone else 0)) + "|"]
    for k in sorted(st):
        cells = ["%s" % k[0], "%dx%dx%d" % k[1], "%.1f" % st[k], "%.1f" % sc[k], "%.3f" % sr[k]]
        if alone:
            cells.append(("%.3f" % ar[k]) if k in ar else "–")
        cells += [("%.0f" % gb[k]) if k in gb else "–", ("%.0f" % cgb[k]) if k in cgb else "–", note.get(k, "")]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "![TFLOP/s and t_cublas / t_impl per suite shape](suite_%s_h100.png)" % impl]
    if sr:
        out += ["", "Headline (`docs/bench-protocol.md` §6): geometric mean of t_cublas / t_%s over the suite "
                "**%.3f**, minimum **%.3f**" % (impl, geomean(sr.values()), min(sr.values()))]
        if ar:
            out[-1] += "; alone **%.3f**, minimum **%.3f**" % (geomean(ar.values()), min(ar.values()))
        out[-1] += "."
    return out


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    ladder, suite, md = rows(argv[1]), rows(argv[2]), argv[3]
    pick = argv[4] if len(argv) > 4 else (suite[0]["impl"] if suite else "?")
    suite = pick_impl(suite, pick)
    alone = pick_impl(rows(argv[5]), pick) if len(argv) > 5 else []
    out = ladder_lines(ladder) + ["", "![TFLOP/s per step](ladder_h100.png)", ""] + suite_lines(suite, alone)
    text = open(md).read()
    b, e = text.index("<!-- table:begin -->"), text.index("<!-- table:end -->")
    text = text[: b + len("<!-- table:begin -->")] + "\n" + "\n".join(out) + "\n" + text[e:]
    open(md, "w").write(text)


if __name__ == "__main__":
    main(sys.argv)
