#!/usr/bin/env python3
"""TFLOP/s of each GEMM implementation from a `tessel bench gemm` CSV.

usage: plot_gemm.py CSV [--out PNG] [--x auto|size|label] [--title TEXT]

One series per implementation (cuBLAS included), one point per problem: the
median over its repeats; a size sweep draws lines, a suite of unrelated
shapes markers only, in a fixed order (by M*N*K); only rows that passed verification (or ran unverified) are
plotted.  A second panel shows t_cublas / t_impl (above 1: tessel is faster)
when the CSV has ratios for an implementation other than cuBLAS.

x axis: `size` is the cube root of M*N*K (log scale; right for square sweeps),
`label` one tick per problem ("group MxNxK", ordered by M*N*K; right for the
protocol's suite, whose shapes are not square), `auto` picks `size` when every
problem is square and `label` otherwise.  When the CSV mixes data types or
layouts, each (dtype, out_dtype, layout) gets its own line per implementation.

Without --out, writes CSV's name with .png.  Needs matplotlib (Agg backend);
the CSV reading below needs only the standard library.
"""
import argparse
import csv
import math
import os
import statistics
import sys

PLOTTED = {"passed", "unverified"}


def _float(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def problem_key(row):
    return (row["group"], int(row["m"]), int(row["n"]), int(row["k"]), row["dtype"], row["out_dtype"],
            row["layout"], row["alpha"], row["beta"])


def config_of(key):
    """(dtype, out_dtype, layout) of a problem key."""
    return key[4], key[5], key[6]


def load(path):
    """Reads the CSV: {impl: {problem_key: median TFLOP/s}}, {impl: {key: median ratio}}.

    cuBLAS's TFLOP/s come from its own rows (impl=cublas) where present, else
    from the cublas_tflops column of the other rows (one value per repeat)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    need = {"impl", "group", "repeat", "m", "n", "k", "dtype", "out_dtype", "layout", "alpha", "beta",
            "disposition", "tflops", "cublas_tflops", "ratio"}
    if rows and not need <= set(rows[0]):
        raise ValueError("%s: not a tessel bench gemm CSV (missing %s)" % (path, ", ".join(sorted(need - set(rows[0])))))
    tflops, ratios, cublas_cols = {}, {}, {}
    for r in rows:
        key = problem_key(r)
        if r["disposition"] in PLOTTED and _float(r["tflops"]) is not None:
            tflops.setdefault(r["impl"], {}).setdefault(key, []).append(_float(r["tflops"]))
            if r["impl"] != "cublas" and _float(r["ratio"]) is not None:
                ratios.setdefault(r["impl"], {}).setdefault(key, []).append(_float(r["ratio"]))
        if _float(r["cublas_tflops"]) is not None:  # one cuBLAS time per problem and repeat
            cublas_cols.setdefault(key, {})[r["repeat"]] = _float(r["cublas_tflops"])
    if "cublas" not in tflops and cublas_cols:
        tflops["cublas"] = {key: list(by_repeat.values()) for key, by_repeat in cublas_cols.items()}
    med = lambda d: {impl: {k: statistics.median(v) for k, v in per.items()} for impl, per in d.items()}
    return med(tflops), med(ratios)


def impl_order(impls):
    """Ladder steps in order, cuBLAS last."""
    return sorted(impls, key=lambda s: (s == "cublas", s))


def series(data):
    """[(label, impl, config, [(key, value), ...])]: one line per impl and configuration."""
    configs = sorted({config_of(k) for per in data.values() for k in per})
    out = []
    for impl in impl_order(data):
        for cfg in configs:
            pts = sorted(((k, v) for k, v in data[impl].items() if config_of(k) == cfg), key=lambda kv: flops(kv[0]))
            if not pts:
                continue
            label = impl if len(configs) == 1 else "%s %s->%s %s" % (impl, cfg[0], cfg[1], cfg[2])
            out.append((label, impl, cfg, pts))
    return out


def flops(key):
    return 2.0 * key[1] * key[2] * key[3]


def size_of(key):
    return (key[1] * key[2] * key[3]) ** (1.0 / 3.0)


def label_of(key):
    return "%s %dx%dx%d" % (key[0], key[1], key[2], key[3])


def choose_x(keys, mode):
    if mode != "auto":
        return mode
    return "size" if all(k[1] == k[2] == k[3] for k in keys) else "label"


def plot(csv_path, out_path, x_mode="auto", title=None):
    tflops, ratios = load(csv_path)
    if not tflops:
        raise ValueError("%s: no passed row with a time to plot" % csv_path)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted({k for per in tflops.values() for k in per}, key=lambda k: (flops(k), k))
    x_mode = choose_x(keys, x_mode)
    position = {k: i for i, k in enumerate(keys)}
    xval = (lambda k: size_of(k)) if x_mode == "size" else (lambda k: position[k])
    panels = 2 if ratios else 1
    fig, axes = plt.subplots(panels, 1, figsize=(max(8, 0.45 * len(keys) + 4) if x_mode == "label" else 9,
                                                  4.5 * panels), sharex=True, squeeze=False)
    ax = axes[0][0]
    # The ladder has more steps (k01..k11) than matplotlib's default cycle has
    # colours (10): take 20 distinct ones, so no two lines share a colour.
    for row in axes:
        row[0].set_prop_cycle(color=plt.get_cmap("tab20").colors)
    # Unrelated shapes (label axis) get markers only, each implementation
    # shifted a little sideways in a fixed order: a line between two shapes
    # of a suite would suggest a trend that is not there.  A size sweep keeps
    # its lines.
    markers = "os^vD<>phX*P"

    def draw(axis, data, cublas_style):
        lines = series(data)
        for i, (label, impl, _, pts) in enumerate(lines):
            shift = 0.0 if x_mode == "size" else (i - (len(lines) - 1) / 2.0) * min(0.8 / max(len(lines), 1), 0.15)
            style = dict(marker=markers[i % len(markers)], markersize=5)
            if x_mode != "size":
                style["linestyle"] = "none"
            if impl == "cublas":
                style.update(cublas_style)
            axis.plot([xval(k) + shift for k, _ in pts], [v for _, v in pts], label=label, **style)

    draw(ax, tflops, dict(color="black", linewidth=2) if x_mode != "size" else dict(color="black", linestyle="--",
                                                                                        linewidth=2))
    ax.set_ylabel("TFLOP/s (2MNK / median time)")
    top = max(v for per in tflops.values() for v in per.values())
    ax.set_ylim(0, 1.08 * top if top > 0 else 1)  # headroom: the best line is not drawn on the frame
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or os.path.basename(csv_path))
    if ratios:
        rx = axes[1][0]
        draw(rx, ratios, {})
        rx.axhline(1.0, color="black", linestyle="--", linewidth=1)
        rx.set_ylabel("t_cublas / t_impl")
        rx.set_ylim(0, 1.08 * max([1.0] + [v for per in ratios.values() for v in per.values()]))
        rx.grid(True, alpha=0.3)
        rx.legend(fontsize=8)
    bottom = axes[-1][0]
    if x_mode == "size":
        bottom.set_xscale("log", base=2)
        bottom.set_xlabel("size: cube root of M*N*K")
    else:
        bottom.set_xticks(range(len(keys)))
        bottom.set_xticklabels([label_of(k) for k in keys], rotation=60, ha="right", fontsize=8)
        bottom.set_xlabel("problem (ordered by M*N*K)")
    fig.tight_layout()
    fig.savefig(out_path, dpi=120)
    plt.close(fig)
    return out_path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="CSV written by `tessel bench gemm --csv`")
    ap.add_argument("--out", help="PNG to write (default: the CSV's name with .png)")
    ap.add_argument("--x", choices=["auto", "size", "label"], default="auto", help="x axis (default auto)")
    ap.add_argument("--title", help="plot title (default: the CSV's file name)")
    args = ap.parse_args(argv)
    out = args.out or os.path.splitext(args.csv)[0] + ".png"
    try:
        plot(args.csv, out, args.x, args.title)
    except (OSError, ValueError, KeyError) as e:
        print("plot_gemm.py: %s" % e, file=sys.stderr)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
