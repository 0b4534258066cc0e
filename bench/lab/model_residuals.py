#!/usr/bin/env python3
"""The plan's model against the times it predicted, from `tessel bench gemm`
CSVs of `--impl auto` (each model choice's note reads "model CONFIG
(predicted T us)"): per configuration family, how many problems, the
geometric mean of measured over predicted time with its 10th and 90th
percentiles, and the same rows' geometric mean ratio to cuBLASLt where the
run had it.  Above 1 the family runs slower than the model thinks, so the
model takes it too readily.

  python3 bench/lab/model_residuals.py RUN.csv [RUN.csv ...]

(bench/results' any_shape/random_seeds_h200.tar.xz holds such CSVs:
seed*_auto.csv.)
"""
import collections
import csv
import math
import re
import sys

NOTE = re.compile(r"model (\S+) \(predicted ([\d.]+) us\)")


def family(config):
    """k13:64x16:s4:swap -> k13:64x16:split:swap (splits collapsed, unsplit kept apart)."""
    parts = config.split(":")
    name = parts[0] + ":" + parts[1]
    if len(parts) > 2 and parts[2].startswith("s") and parts[2] != "s1":
        name += ":split"
    if config.endswith(":swap"):
        name += ":swap"
    return name


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main(paths):
    if not paths:
        sys.exit(__doc__)
    rows = collections.defaultdict(list)
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                m = NOTE.search(r.get("note", ""))
                if r.get("impl") != "auto" or not m or not r.get("median_ms"):
                    continue
                ratio = float(r["ratio"]) if r.get("ratio") else None
                rows[family(m.group(1))].append((float(r["median_ms"]) * 1000.0 / float(m.group(2)), ratio))
    print("family,problems,measured_over_predicted,p10,p90,ratio_to_cublas")
    for fam, v in sorted(rows.items(), key=lambda kv: -len(kv[1])):
        over = sorted(x for x, _ in v)
        ratios = [r for _, r in v if r]
        print("%s,%d,%.3f,%.2f,%.2f,%s" % (fam, len(v), geomean(over), over[len(over) // 10],
                                           over[(9 * len(over)) // 10],
                                           "%.3f" % geomean(ratios) if ratios else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
