#!/usr/bin/env python3
"""Prints docs/ladder-fp32.md's ladder table (markdown) from the CSV of
bench/fp32_ladder.sh: one row per step, one column per problem and layout,
each cell the median over the repeats of TFLOP/s and of the same-run ratio
to cuBLASLt's fp32 GEMM (as a percentage), the best step per column in bold
(the earliest step within 0.2 % of the best);
then cuBLAS's own TFLOP/s and the SM clock and board power seen.

usage: fp32_ladder_table.py CSV
"""
import csv
import statistics
import sys

NAMES = {
    "f01": "f01 naive",
    "f02": "f02 shared tiles + TiledMMA of FMA atoms",
    "f03": "f03 bank-conflict-free layout",
    "f04": "f04 pipelining",
    "f05": "f05 warp tiling + coalesced epilogue",
    "f06": "f06 M/N-major tiles, 128-bit shared loads",
    "f07": "f07 two CTAs per SM",
    "f08": "f08 16x8 thread tile",
    "f09": "f09 copies spread over the k-steps",
    "f10": "f10 TMA loads",
    "f11": "f11 stream-K",
    "f12": "f12 K-major operands copied to A:m, B:n, then f11",
}


def main(path):
    rows = [r for r in csv.DictReader(open(path, newline="")) if r["disposition"] == "passed"]
    cols = sorted({(r["layout"], int(r["m"]), int(r["n"]), int(r["k"])) for r in rows},
                  key=lambda c: (c[0], c[1] * c[2] * c[3]))
    col = lambda r: (r["layout"], int(r["m"]), int(r["n"]), int(r["k"]))
    med = {}
    for r in rows:
        if r["impl"] != "cublas":
            med.setdefault((r["impl"], col(r)), []).append((float(r["tflops"]), float(r["ratio"])))
    cell = {key: (statistics.median(t for t, _ in v), statistics.median(q for _, q in v)) for key, v in med.items()}
    steps = sorted({i for i, _ in cell})
    # The best step per column; within 0.2 % of it, the earliest (f12 on A:m, B:n is f11's kernel, run as is).
    top = {c: max(cell[(s, c)][1] for s in steps if (s, c) in cell) for c in cols}
    best = {c: min(s for s in steps if (s, c) in cell and cell[(s, c)][1] >= top[c] - 0.002) for c in cols}
    shape = lambda c: f"{c[1]}³" if c[1] == c[2] == c[3] else f"{c[1]}x{c[2]}x{c[3]}"
    print("| step | " + " | ".join(f"{shape(c)} {c[0]}" for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for s in steps:
        out = []
        for c in cols:
            if (s, c) not in cell:
                out.append("–")
                continue
            t, q = cell[(s, c)]
            text = f"{t:.1f} ({100 * q:.1f} %)"
            out.append(f"**{text}**" if best[c] == s else text)
        print(f"| {NAMES.get(s, s)} | " + " | ".join(out) + " |")
    cub = {c: statistics.median(float(r["cublas_tflops"]) for r in rows if col(r) == c) for c in cols}
    print("| cuBLAS fp32 (cuBLASLt, `CUBLAS_COMPUTE_32F`) | " + " | ".join(f"{cub[c]:.1f}" for c in cols) + " |")
    clocks = [float(r["sm_clock_mhz"]) for r in rows if r.get("sm_clock_mhz")]
    power = [float(r["power_w"]) for r in rows if r.get("power_w")]
    if clocks and power:
        print(f"\nSM clock {min(clocks):.0f}-{max(clocks):.0f} MHz, board power {min(power):.0f}-{max(power):.0f} W "
              f"({rows[0]['gpu']}, tessel {rows[0]['commit']}).")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
