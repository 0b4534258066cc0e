#!/usr/bin/env python3
"""Tests of bench/plot_gemm.py on made-up CSVs in `tessel bench gemm`'s format.

usage: plot_gemm_test.py REPO_ROOT [unittest options]

The CSV reading needs only the standard library; drawing the PNG needs
matplotlib and is skipped (with a message) where it is not installed.
"""
import csv
import importlib.util
import os
import sys
import tempfile
import unittest

ROOT = None  # set from sys.argv[1] in main
plot_gemm = None

COLUMNS = ("gpu,sm_count,commit,impl,group,repeat,m,n,k,dtype,out_dtype,layout,alpha,beta,verify,disposition,note,"
           "max_err,cublas_max_err,cublas_disposition,median_ms,min_ms,p90_ms,tflops,cublas_median_ms,cublas_tflops,"
           "ratio,gbytes_per_s,cublas_gbytes_per_s,l2_flush,sm_clock_mhz,power_w,cublas_sm_clock_mhz,cublas_power_w"
           ).split(",")


def row(impl, m, n, k, repeat=1, disposition="passed", tflops="", cublas_tflops="", ratio="", layout="A:k,B:n",
        group="cli", dtype="bf16"):
    r = dict.fromkeys(COLUMNS, "")
    r.update(gpu="H100, test", sm_count="132", commit="abc", impl=impl, group=group, repeat=str(repeat), m=str(m),
             n=str(n), k=str(k), dtype=dtype, out_dtype=dtype, layout=layout, alpha="1", beta="0", verify="tier2",
             disposition=disposition, cublas_disposition="passed", tflops=str(tflops),
             cublas_tflops=str(cublas_tflops), ratio=str(ratio))
    return r


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)


class Load(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "sweep.csv")

    def tearDown(self):
        self.dir.cleanup()

    def test_medians_over_repeats_and_cublas_rows(self):
        write_csv(self.path, [
            row("cublas", 1024, 1024, 1024, 1, tflops=400, cublas_tflops=400, ratio=1),
            row("cublas", 1024, 1024, 1024, 2, tflops=420, cublas_tflops=420, ratio=1),
            row("k09", 1024, 1024, 1024, 1, tflops=300, cublas_tflops=400, ratio=0.75),
            row("k09", 1024, 1024, 1024, 2, tflops=340, cublas_tflops=420, ratio=0.81),
            row("k04", 1024, 1024, 1024, 1, disposition="incorrect"),
            row("k01", 1024, 1024, 1024, 1, disposition="not_supported"),
        ])
        tflops, ratios = plot_gemm.load(self.path)
        key = ("cli", 1024, 1024, 1024, "bf16", "bf16", "A:k,B:n", "1", "0")
        self.assertEqual(set(tflops), {"cublas", "k09"})
        self.assertAlmostEqual(tflops["cublas"][key], 410)
        self.assertAlmostEqual(tflops["k09"][key], 320)
        self.assertAlmostEqual(ratios["k09"][key], 0.78)
        self.assertNotIn("cublas", ratios)

    def test_cublas_from_columns_when_it_has_no_rows(self):
        write_csv(self.path, [
            row("k09", 2048, 2048, 2048, 1, tflops=500, cublas_tflops=600, ratio=0.83),
            row("k04", 2048, 2048, 2048, 1, tflops=200, cublas_tflops=600, ratio=0.33),  # the same cuBLAS time
            row("k09", 2048, 2048, 2048, 2, tflops=510, cublas_tflops=620, ratio=0.82),
        ])
        tflops, _ = plot_gemm.load(self.path)
        self.assertAlmostEqual(tflops["cublas"][("cli", 2048, 2048, 2048, "bf16", "bf16", "A:k,B:n", "1", "0")], 610)

    def test_series_and_x_axis(self):
        write_csv(self.path, [
            row("k09", 1024, 1024, 1024, tflops=1, layout="A:k,B:n"),
            row("k09", 2048, 2048, 2048, tflops=2, layout="A:k,B:n"),
            row("k09", 1024, 1024, 1024, tflops=3, layout="A:m,B:k"),
            row("cublas", 1024, 1024, 1024, tflops=4, layout="A:k,B:n"),
        ])
        tflops, _ = plot_gemm.load(self.path)
        s = plot_gemm.series(tflops)
        self.assertEqual([label for label, *_ in s],
                         ["k09 bf16->bf16 A:k,B:n", "k09 bf16->bf16 A:m,B:k", "cublas bf16->bf16 A:k,B:n"])
        self.assertEqual([v for _, v in s[0][3]], [1, 2])  # ordered by size
        keys = [k for per in tflops.values() for k in per]
        self.assertEqual(plot_gemm.choose_x(keys, "auto"), "size")
        self.assertEqual(plot_gemm.choose_x(keys + [("llm", 8192, 28672, 8192)], "auto"), "label")

    def test_not_a_bench_csv(self):
        with open(self.path, "w") as f:
            f.write("a,b\n1,2\n")
        with self.assertRaises(ValueError):
            plot_gemm.load(self.path)


class Draw(unittest.TestCase):
    def test_png_for_a_suite_and_a_sweep(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed: the PNG is not drawn")
        with tempfile.TemporaryDirectory() as d:
            sweep = os.path.join(d, "sweep.csv")
            rows = []
            for s in (1024, 2048, 4096):
                for rep in (1, 2):
                    rows.append(row("cublas", s, s, s, rep, tflops=s / 10, cublas_tflops=s / 10, ratio=1))
                    rows.append(row("k09", s, s, s, rep, tflops=s / 12, cublas_tflops=s / 10, ratio=10 / 12))
                    rows.append(row("k04", s, s, s, rep, tflops=s / 20, cublas_tflops=s / 10, ratio=0.5))
            write_csv(sweep, rows)
            suite = os.path.join(d, "suite.csv")
            write_csv(suite, [row("k09", 16, 8192, 8192, group="small_m", tflops=50, cublas_tflops=60, ratio=0.8),
                              row("k09", 4096, 4096, 4096, group="square", tflops=500, cublas_tflops=600, ratio=0.8)])
            for csv_path, extra in ((sweep, []), (suite, ["--x", "label", "--title", "suite"])):
                out = os.path.join(d, os.path.basename(csv_path) + ".png")
                self.assertEqual(plot_gemm.main([csv_path, "--out", out] + extra), 0)
                with open(out, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_nothing_to_plot_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "empty.csv")
            write_csv(path, [row("k09", 64, 64, 64, disposition="not_supported")])
            self.assertEqual(plot_gemm.main([path, "--out", os.path.join(d, "x.png")]), 1)


def main():
    global ROOT, plot_gemm
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    ROOT = os.path.abspath(sys.argv[1])
    spec = importlib.util.spec_from_file_location("plot_gemm", os.path.join(ROOT, "bench", "plot_gemm.py"))
    plot_gemm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_gemm)
    prog = unittest.main(argv=[sys.argv[0]] + sys.argv[2:], exit=False, verbosity=1)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
