#!/usr/bin/env python3
"""Writes the ladder and suite tables into docs/ladder.md (between the
<!-- table:begin --> and <!-- table:end --> markers) from the CSVs of
`tessel bench gemm`.

usage: ladder_table.py LADDER_CSV SUITE_CSV MARKDOWN [SUITE_IMPL]

SUITE_IMPL picks the suite rows of one implementation (default: the first row's).
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
        out.setdefault(key(r), []).append(float(r[field]))
    return {k: statistics.median(v) for k, v in out.items()}


def main(argv):
    ladder, suite, md = rows(argv[1]), rows(argv[2]), argv[3]
    if suite:
        pick = argv[4] if len(argv) > 4 else suite[0]["impl"]
        suite = [r for r in suite if r["impl"] == pick]
    gpu = ladder[0]["gpu"] if ladder else "?"
    commit = ladder[0]["commit"] if ladder else "?"
    size = lambda r: (int(r["m"]), int(r["n"]), int(r["k"]))
    tfl = median_by(ladder, lambda r: (r["impl"], size(r)), "tflops")
    ratio = median_by([r for r in ladder if r["impl"] != "cublas"], lambda r: (r["impl"], size(r)), "ratio")
    cub = median_by(ladder, lambda r: size(r), "cublas_tflops")
    sizes = sorted({size(r) for r in ladder})
    impls = sorted({r["impl"] for r in ladder if r["impl"] != "cublas"})
    # CSVs from before the l2_flush column were flushed by a memset (docs/bench-protocol.md §8).
    flush = (ladder[0].get("l2_flush") or "memset") if ladder else "?"
    out = ["Measured on %s, tessel %s, bf16 in and out, A:k, B:n, alpha 1, beta 0; median of 2 runs, "
           "each the median of >= 50 launches with the L2 flushed by a %s (`bench/ladder.sh`, "
           "`bench/results/ladder_*.csv`). %% = t_cublas / t_step in the same run." % (gpu, commit, flush), ""]
    head = "| step | " + " | ".join("%d³ TFLOP/s (%% of cuBLAS)" % s[0] for s in sizes) + " |"
    out += [head, "|---" * (len(sizes) + 1) + "|"]
    for i in impls:
        cells = []
        for s in sizes:
            cells.append("%.1f (%.0f %%)" % (tfl[(i, s)], 100 * ratio[(i, s)]) if (i, s) in tfl else "–")
        out.append("| %s | %s |" % (i, " | ".join(cells)))
    out.append("| cuBLASLt | %s |" % " | ".join("%.1f" % cub[s] for s in sizes))
    out += ["", "![TFLOP/s per step](ladder_h100.png)", ""]
    # The suite for the best step.
    st = median_by(suite, lambda r: (r["group"], size(r)), "tflops")
    sr = median_by(suite, lambda r: (r["group"], size(r)), "ratio")
    sc = median_by(suite, lambda r: (r["group"], size(r)), "cublas_tflops")
    impl = suite[0]["impl"] if suite else "?"
    suite_commit = suite[0]["commit"] if suite else "?"
    out += ["Shape suite (`tests/data/bench_suite.csv`, `docs/bench-protocol.md` §6) for %s, tessel %s:" % (impl, suite_commit), "",
            "| group | M x N x K | %s TFLOP/s | cuBLASLt TFLOP/s | t_cublas / t_%s | %s GB/s | cuBLASLt GB/s | %s's choice |"
            % (impl, impl, impl, impl), "|---|---|---|---|---|---|---|---|"]
    has_bytes = bool(suite) and "gbytes_per_s" in suite[0]
    gb = median_by(suite, lambda r: (r["group"], size(r)), "gbytes_per_s") if has_bytes else {}
    cgb = median_by(suite, lambda r: (r["group"], size(r)), "cublas_gbytes_per_s") if has_bytes else {}
    note = {(r["group"], size(r)): r.get("note", "") for r in suite}
    keys = sorted(st, key=lambda k: (k[0], k[1]))
    for k in keys:
        b = ("%.0f" % gb[k]) if k in gb else "–"
        cb = ("%.0f" % cgb[k]) if k in cgb else "–"
        out.append("| %s | %dx%dx%d | %.1f | %.1f | %.3f | %s | %s | %s |" % (k[0], *k[1], st[k], sc[k], sr[k], b, cb, note.get(k, "")))
    out += ["", "![TFLOP/s and t_cublas / t_impl per suite shape](suite_%s_h100.png)" % impl]
    if sr:
        g = math.exp(sum(math.log(v) for v in sr.values()) / len(sr))
        out += ["", "Headline (`docs/bench-protocol.md` §6): geometric mean of t_cublas / t_%s over the suite **%.3f**, minimum **%.3f**."
                % (impl, g, min(sr.values()))]
    text = open(md).read()
    b, e = text.index("<!-- table:begin -->"), text.index("<!-- table:end -->")
    text = text[: b + len("<!-- table:begin -->")] + "\n" + "\n".join(out) + "\n" + text[e:]
    open(md, "w").write(text)


if __name__ == "__main__":
    main(sys.argv)
