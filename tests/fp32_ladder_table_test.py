#!/usr/bin/env python3
"""Tests of bench/fp32_ladder_table.py (docs/ladder-fp32.md's table) on a
made-up CSV in `tessel bench gemm`'s format: medians over repeats, rows
that did not pass left out, one column per problem and layout in a fixed
order, the best step per column in bold (the earliest within 0.2 %), and
cuBLAS's own TFLOP/s.

usage: fp32_ladder_table_test.py REPO_ROOT
"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = None

COLUMNS = ["gpu", "commit", "impl", "repeat", "m", "n", "k", "layout", "disposition", "tflops", "cublas_tflops",
           "ratio", "sm_clock_mhz", "power_w"]


def row(impl, size, layout, repeat, tflops, ratio, disposition="passed"):
    return {"gpu": "H100, test", "commit": "abc", "impl": impl, "repeat": repeat, "m": size, "n": size, "k": size,
            "layout": layout, "disposition": disposition, "tflops": tflops, "cublas_tflops": 50.0,
            "ratio": ratio, "sm_clock_mhz": 1980, "power_w": 600}


class Fp32LadderTable(unittest.TestCase):
    def table(self, rows):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ladder.csv")
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=COLUMNS)
                w.writeheader()
                w.writerows(rows)
            out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "fp32_ladder_table.py"), path],
                                 capture_output=True, text=True, check=True)
            return out.stdout.splitlines()

    def test_medians_columns_and_bold(self):
        rows = [
            row("f10", 2048, "A:k,B:n", 1, 40.0, 0.80), row("f10", 2048, "A:k,B:n", 2, 42.0, 0.84),
            row("f10", 2048, "A:k,B:n", 3, 44.0, 0.88),
            row("f11", 2048, "A:k,B:n", 1, 45.0, 0.90), row("f11", 2048, "A:k,B:n", 2, 99.0, 1.98, "incorrect"),
            row("f12", 2048, "A:k,B:n", 1, 45.05, 0.901),  # within 0.2 % of f11: f11 stays bold
            row("f10", 4096, "A:m,B:n", 1, 50.0, 1.00), row("f11", 4096, "A:m,B:n", 1, 52.0, 1.04),
            row("cublas", 2048, "A:k,B:n", 1, 50.0, 1.0),
        ]
        lines = self.table(rows)
        self.assertEqual(lines[0], "| step | 2048³ A:k,B:n | 4096³ A:m,B:n |")
        by_step = {l.split(" | ")[0]: l for l in lines if l.startswith("| f")}
        self.assertIn("| 42.0 (84.0 %) |", by_step["| f10 TMA loads"])  # the median of three, not the mean
        self.assertIn("**45.0 (90.0 %)**", by_step["| f11 stream-K"])    # the incorrect repeat left out
        self.assertNotIn("**", by_step["| f12 K-major operands copied to A:m, B:n, then f11"])
        self.assertIn("| – |", by_step["| f12 K-major operands copied to A:m, B:n, then f11"])  # not measured at 4096
        self.assertTrue(by_step["| f11 stream-K"].endswith("**52.0 (104.0 %)** |"))
        self.assertIn("| cuBLAS fp32 (cuBLASLt, `CUBLAS_COMPUTE_32F`) | 50.0 | 50.0 |", lines)


if __name__ == "__main__":
    ROOT = sys.argv[1]
    unittest.main(argv=sys.argv[:1])
