#!/usr/bin/env python3
"""Tests of bench/ladder_table.py (the ladder and suite tables between the
markers of docs/ladder.md) on made-up CSVs in `tessel bench gemm`'s format:
medians over repeats, rows that did not pass left out, each step's clock,
the timing order and the heat read from the CSV, the optional alone column
and its headline, and the text outside the markers untouched, in a stub and
in the real docs/ladder.md.  Also that the ladder docs keep their shape: one
pair of markers, a row for every step k01..k15 between them, a section per
step in docs/ladder.md (k01..k15) and docs/ladder-fp32.md (f01..f12), and
at most 500 lines each.

usage: ladder_table_test.py REPO_ROOT
"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = None

COLUMNS = ["gpu", "commit", "impl", "group", "repeat", "m", "n", "k", "disposition", "note", "tflops",
           "cublas_tflops", "ratio", "gbytes_per_s", "cublas_gbytes_per_s", "l2_flush", "sm_clock_mhz",
           "timing", "heat_ms"]


def row(impl, shape, repeat, tflops, ratio, timing="blocks", heat=1000, disposition="passed", group="g",
        clock=1600, note=""):
    m, n, k = shape
    return {"gpu": "H100, test", "commit": "abc1234", "impl": impl, "group": group, "repeat": repeat, "m": m, "n": n,
            "k": k, "disposition": disposition, "note": note, "tflops": tflops, "cublas_tflops": 700.0,
            "ratio": ratio, "gbytes_per_s": 100.0, "cublas_gbytes_per_s": 99.0, "l2_flush": "read",
            "sm_clock_mhz": clock, "timing": timing, "heat_ms": heat}


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)


BEGIN, END = "<!-- table:begin -->", "<!-- table:end -->"


def doc(name):
    with open(os.path.join(ROOT, "docs", name), encoding="utf-8") as f:
        return f.read()


class LadderTable(unittest.TestCase):
    def run_table(self, ladder, suite, alone=None, markdown=None):
        with tempfile.TemporaryDirectory() as d:
            paths = [os.path.join(d, n) for n in ("ladder.csv", "suite.csv", "alone.csv")]
            write(paths[0], ladder)
            write(paths[1], suite)
            md = os.path.join(d, "ladder.md")
            with open(md, "w") as f:
                f.write(markdown if markdown is not None else
                        "before\n<!-- table:begin -->\nold table\n<!-- table:end -->\nafter\n")
            args = [sys.executable, os.path.join(ROOT, "bench", "ladder_table.py"), paths[0], paths[1], md, "auto"]
            if alone is not None:
                write(paths[2], alone)
                args.append(paths[2])
            subprocess.run(args, check=True, capture_output=True, text=True)
            with open(md) as f:
                return f.read()

    def test_ladder_medians_clock_and_protocol(self):
        s, b = (2048, 2048, 2048), (4096, 4096, 4096)
        ladder = [row("k13", s, 1, 600.0, 0.95, clock=1980), row("k13", s, 2, 620.0, 0.97, clock=1980),
                  row("k13", s, 3, 640.0, 0.99, clock=1980),
                  row("k13", b, 1, 700.0, 1.00, clock=1650), row("k13", b, 2, 999.0, 9.99, disposition="incorrect"),
                  row("k12", s, 1, 500.0, 0.80), row("cublas", s, 1, 700.0, 1.0, clock=1980)]
        text = self.run_table(ladder, [row("auto", s, 1, 600.0, 1.0, timing="interleaved", heat=0)])
        self.assertTrue(text.startswith("before\n<!-- table:begin -->\n"))
        self.assertTrue(text.endswith("<!-- table:end -->\nafter\n"))
        self.assertNotIn("old table", text)
        self.assertIn("each implementation alone (`--order blocks`), 1000 ms of heat before each problem; "
                      "median of 3 repeats", text)
        lines = text.splitlines()
        k13 = next(l for l in lines if l.startswith("| k13 |"))
        self.assertEqual(k13, "| k13 | 620.0 (97 %, 1980) | 700.0 (100 %, 1650) |")  # medians; incorrect left out
        self.assertIn("| k12 | 500.0 (80 %, 1600) | – |", lines)  # not measured at 4096
        self.assertIn("| cuBLASLt | 700.0 (1980) | 700.0 |", lines)  # its own clock where it has rows

    def test_suite_alone_column_and_headlines(self):
        a, c = (16, 8192, 8192), (4096, 4096, 4096)
        suite = [row("auto", a, 1, 45.0, 1.02, timing="interleaved", heat=0, group="small_m", note="swapped"),
                 row("auto", a, 2, 45.0, 1.00, timing="interleaved", heat=0, group="small_m", note="swapped"),
                 row("auto", c, 1, 700.0, 0.98, timing="interleaved", heat=0, group="square"),
                 row("k13", c, 1, 1.0, 5.0, timing="interleaved", heat=0, group="square")]  # another impl: left out
        alone = [row("auto", a, 1, 45.0, 1.04, heat=2000, group="small_m"),
                 row("auto", c, 1, 700.0, 1.01, heat=2000, group="square")]
        text = self.run_table([row("k13", c, 1, 700.0, 1.0)], suite, alone)
        self.assertIn("every implementation in one interleaved loop; median of 2 repeats", text)
        self.assertIn("Alone: the same suite with each implementation alone (`--order blocks`), 2000 ms of heat", text)
        lines = text.splitlines()
        self.assertIn("| small_m | 16x8192x8192 | 45.0 | 700.0 | 1.010 | 1.040 | 100 | 99 | swapped |", lines)
        self.assertIn("| square | 4096x4096x4096 | 700.0 | 700.0 | 0.980 | 1.010 | 100 | 99 |  |", lines)
        head = next(l for l in lines if l.startswith("Headline"))
        self.assertIn("**0.995**, minimum **0.980**; alone **1.025**, minimum **1.010**.", head)  # geomeans

    def test_without_alone_csv(self):
        c = (4096, 4096, 4096)
        text = self.run_table([row("k13", c, 1, 700.0, 1.0)],
                              [row("auto", c, 1, 700.0, 1.02, timing="interleaved", heat=0, group="square")])
        self.assertNotIn("alone", text.split("Shape suite")[1])
        self.assertIn("| group | M x N x K | auto TFLOP/s | cuBLASLt TFLOP/s | t_cublas / t_auto | auto GB/s |", text)

    def test_the_real_page_outside_the_markers_is_untouched(self):
        c = (4096, 4096, 4096)
        page = doc("ladder.md")
        text = self.run_table([row("k13", c, 1, 700.0, 1.0)],
                              [row("auto", c, 1, 700.0, 1.02, timing="interleaved", heat=0, group="square")],
                              markdown=page)
        self.assertEqual(text[: text.index(BEGIN)], page[: page.index(BEGIN)])
        self.assertEqual(text[text.index(END):], page[page.index(END):])
        self.assertIn("| k13 | 700.0 (100 %, 1600) |", text.splitlines())


class LadderDocs(unittest.TestCase):
    def test_one_pair_of_markers_with_every_step(self):
        page = doc("ladder.md")
        self.assertEqual(page.count(BEGIN), 1)
        self.assertEqual(page.count(END), 1)
        table = page[page.index(BEGIN): page.index(END)].splitlines()
        for i in range(1, 16):
            self.assertTrue(any(l.startswith("| k%02d |" % i) for l in table), "k%02d" % i)
        self.assertTrue(any(l.startswith("| cuBLASLt |") for l in table))
        self.assertTrue(any(l.startswith("Headline") for l in table))

    def test_at_most_500_lines(self):
        for name in ("ladder.md", "ladder-fp32.md"):
            self.assertLessEqual(len(doc(name).splitlines()), 500, name)

    def test_a_section_per_step(self):
        for name, steps in (("ladder.md", ["k%02d" % i for i in range(1, 16)]),
                            ("ladder-fp32.md", ["f%02d" % i for i in range(1, 13)])):
            heads = [l for l in doc(name).splitlines() if l.startswith("## ")]
            for s in steps:
                self.assertEqual(sum(1 for h in heads if h.startswith("## %s:" % s)), 1, "%s in %s" % (s, name))


if __name__ == "__main__":
    ROOT = sys.argv.pop(1)
    unittest.main()
