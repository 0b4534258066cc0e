#!/usr/bin/env python3
"""End-to-end tests of `tessel draw` (thread-value drawings).

usage: draw_test.py TESSEL_BINARY [unittest options]

The expected owners come from the formulas of docs/hardware.md §2/§3
(lane l, g = l>>2, q = l&3, value i), written out here independently of the
library's layouts, and from the TiledMMA/TiledCopy thread numbering.  The SVG
is read back through its cell groups
  <g class="cell" data-row data-col data-owners [data-t data-v]>
inside <g class="panel" data-name ...>; the ASCII form through its tables.
Standard library only.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

TESSEL = None  # set from sys.argv[1] in main
SVG_NS = "{http://www.w3.org/2000/svg}"

BF16 = "SM80_16x8x16_F32BF16BF16F32_TN"
F16 = "SM80_16x8x16_F32F16F16F32_TN"
TF32 = "SM80_16x8x8_F32TF32TF32F32_TN"
LDSM_X4 = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
LDSM_X1 = "ldmatrix.sync.aligned.m8n8.x1.shared.b16"
MMA_BF16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
C16 = "((4,8),(2,2)):((32,1),(16,8))"


# ------------------------------------------------------------------ helpers

def tessel(*args, timeout=30):
    """Runs the CLI; returns (returncode, stdout, stderr)."""
    p = subprocess.run([TESSEL, *args], capture_output=True, timeout=timeout, text=True)
    return p.returncode, p.stdout, p.stderr


def draw(*args):
    rc, out, err = tessel("draw", *args)
    if rc != 0:
        raise AssertionError("tessel draw %s: rc %d, stderr %r" % (" ".join(args), rc, err))
    return out


class Panel:
    def __init__(self, name, rows, cols, threads, values, cells, texts):
        self.name, self.rows, self.cols, self.threads, self.values = name, rows, cols, threads, values
        self.cells = cells  # (row, col) -> (thread or None, value or None, owners)
        self.texts = texts  # (row, col) -> [label texts]


def parse_svg(text):
    """Returns (root, {panel name: Panel}); raises on malformed XML."""
    root = ET.fromstring(text)
    assert root.tag == SVG_NS + "svg", root.tag
    panels = {}
    for g in root.iter(SVG_NS + "g"):
        if g.get("class") != "panel":
            continue
        cells, texts = {}, {}
        for c in g.iter(SVG_NS + "g"):
            if c.get("class") != "cell":
                continue
            key = (int(c.get("data-row")), int(c.get("data-col")))
            assert key not in cells, "cell %s twice" % (key,)
            t, v = c.get("data-t"), c.get("data-v")
            cells[key] = (None if t is None else int(t), None if v is None else int(v), int(c.get("data-owners")))
            texts[key] = [x.text for x in c.findall(SVG_NS + "text")]
        panels[g.get("data-name")] = Panel(g.get("data-name"), int(g.get("data-rows")), int(g.get("data-cols")),
                                           int(g.get("data-threads")), int(g.get("data-values")), cells, texts)
    return root, panels


ROW_RE = re.compile(r"^\s*(\d+) \|(.*)\|$")


def parse_ascii(text):
    """Returns {panel heading: [[cell text, ...] per row]} from the ASCII tables
    (a wide table comes in bands of columns: each band's rows extend the rows)."""
    tables, current = {}, None
    for line in text.splitlines():
        m = ROW_RE.match(line)
        if m and current is not None:
            row, cells = int(m.group(1)), [c.strip() for c in m.group(2).split("|")]
            if row < len(tables[current]):
                tables[current][row].extend(cells)
            else:
                tables[current].append(cells)
        elif line and not line.startswith(" ") and ": rows " in line:
            current = line.split(":")[0]
            tables[current] = []
    return tables


# Ownership formulas of docs/hardware.md §2 (m16n8k16) and §3 (m16n8k8 tf32): (row, col) -> (lane, value).

def m16n8k16_a(m, k):
    g, q = m % 8, (k % 8) // 2
    return 4 * g + q, (k % 2) + 2 * (m // 8) + 4 * (k // 8)


def m16n8k16_b(n, k):  # B stored (N,K)
    return 4 * n + (k % 8) // 2, (k % 2) + 2 * (k // 8)


def m16n8_c(m, n):
    return 4 * (m % 8) + n // 2, (n % 2) + 2 * (m // 8)


def m16n8k8_a(m, k):
    return 4 * (m % 8) + k % 4, (m // 8) + 2 * (k // 4)


def m16n8k8_b(n, k):
    return 4 * n + k % 4, k // 4


# ------------------------------------------------------------------ tests

class MmaAtom(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.svg = draw("mma", BF16)
        cls.root, cls.panels = parse_svg(cls.svg)

    def test_three_panels(self):
        self.assertEqual(set(self.panels), {"A", "B", "C"})
        a, b, c = self.panels["A"], self.panels["B"], self.panels["C"]
        self.assertEqual((a.rows, a.cols, len(a.cells)), (16, 16, 256))
        self.assertEqual((b.rows, b.cols, len(b.cells)), (16, 8, 128))  # (N,K) = (8,16) drawn K x N
        self.assertEqual((c.rows, c.cols, len(c.cells)), (16, 8, 128))
        for p in (a, b, c):
            self.assertEqual(p.threads, 32)
        self.assertEqual((a.values, b.values, c.values), (8, 4, 4))

    def test_spec_example_c_row9_col3(self):
        # docs/hardware.md §1.2: lane 5, value 3 -> row 9, column 3.
        c = self.panels["C"]
        self.assertEqual(c.cells[(9, 3)], (5, 3, 1))
        self.assertEqual(c.texts[(9, 3)], ["T5", "V3"])

    def test_every_cell_matches_the_formulas(self):
        for (m, n), (t, v, owners) in self.panels["C"].cells.items():
            self.assertEqual((t, v, owners), (*m16n8_c(m, n), 1), (m, n))
        for (m, k), (t, v, owners) in self.panels["A"].cells.items():
            self.assertEqual((t, v, owners), (*m16n8k16_a(m, k), 1), (m, k))
        for (k, n), (t, v, owners) in self.panels["B"].cells.items():  # display row k, column n
            self.assertEqual((t, v, owners), (*m16n8k16_b(n, k), 1), (k, n))

    def test_each_thread_owns_its_values_once(self):
        for name, values in (("A", 8), ("B", 4), ("C", 4)):
            seen = sorted((t, v) for t, v, _ in self.panels[name].cells.values())
            self.assertEqual(seen, [(t, v) for t in range(32) for v in range(values)], name)

    def test_mma_arrangement(self):
        """C in the middle, A to its left (rows aligned), B above it (columns aligned)."""
        def origin(name, row, col):
            for g in self.root.iter(SVG_NS + "g"):
                if g.get("class") == "panel" and g.get("data-name") == name:
                    for c in g.iter(SVG_NS + "g"):
                        if c.get("class") == "cell" and (c.get("data-row"), c.get("data-col")) == (str(row), str(col)):
                            r = c.find(SVG_NS + "rect")
                            return float(r.get("x")), float(r.get("y"))
            raise AssertionError(name)
        ax, ay = origin("A", 0, 0)
        bx, by = origin("B", 0, 0)
        cx, cy = origin("C", 0, 0)
        self.assertEqual(ay, cy)  # A's rows are C's rows
        self.assertEqual(bx, cx)  # B's columns are C's columns
        self.assertLess(ax, cx)
        self.assertLess(by, cy)
        self.assertGreater(cx - ax, 16 * 20)  # A (16 columns) lies entirely to the left

    def test_labels_and_title(self):
        title = self.root.find(SVG_NS + "title").text
        self.assertIn(BF16, title)
        texts = "".join(self.root.itertext())
        for s in ("A (M,K) = (16,16)", "B (N,K) = (8,16), drawn K x N", "C (M,N) = (16,8)", C16):
            self.assertIn(s, texts)

    def test_colour_by_thread(self):
        fills = {}
        for g in self.root.iter(SVG_NS + "g"):
            if g.get("class") == "cell":
                fills.setdefault(int(g.get("data-t")), set()).add(g.find(SVG_NS + "rect").get("fill"))
        self.assertTrue(all(len(f) == 1 for f in fills.values()))  # one colour per thread
        self.assertEqual(len({next(iter(f)) for f in fills.values()}), 32)  # 32 lanes, 32 colours

    def test_other_atoms(self):
        _, p = parse_svg(draw("mma", F16))
        self.assertEqual(p["C"].cells, self.panels["C"].cells)
        self.assertEqual(p["A"].cells, self.panels["A"].cells)
        _, p = parse_svg(draw("mma", TF32))
        self.assertEqual((p["A"].rows, p["A"].cols, p["B"].rows, p["B"].cols), (16, 8, 8, 8))
        for (m, k), (t, v, o) in p["A"].cells.items():
            self.assertEqual((t, v, o), (*m16n8k8_a(m, k), 1))
        for (k, n), (t, v, o) in p["B"].cells.items():
            self.assertEqual((t, v, o), (*m16n8k8_b(n, k), 1))
        for (m, n), (t, v, o) in p["C"].cells.items():
            self.assertEqual((t, v, o), (*m16n8_c(m, n), 1))

    def test_ascii(self):
        out = draw("mma", BF16, "--format", "ascii")
        tables = parse_ascii(out)
        self.assertEqual(set(tables), {"A (M,K) = (16,16)", "B (N,K) = (8,16), drawn K x N", "C (M,N) = (16,8)"})
        c = tables["C (M,N) = (16,8)"]
        self.assertEqual((len(c), len(c[0])), (16, 8))
        self.assertEqual(c[9][3], "5/3")
        for m in range(16):
            for n in range(8):
                self.assertEqual(c[m][n], "%d/%d" % m16n8_c(m, n))
        b = tables["B (N,K) = (8,16), drawn K x N"]
        self.assertEqual((len(b), len(b[0])), (16, 8))
        self.assertEqual(b[2][1], "%d/%d" % m16n8k16_b(1, 2))


class TiledMma(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root, cls.panels = parse_svg(draw("mma", BF16, "--atoms", "2x2x1"))

    def test_shapes(self):
        a, b, c = self.panels["A"], self.panels["B"], self.panels["C"]
        self.assertEqual((a.rows, a.cols), (32, 16))
        self.assertEqual((b.rows, b.cols), (16, 16))  # (N,K) = (16,16) drawn K x N
        self.assertEqual((c.rows, c.cols), (32, 16))
        for p in (a, b, c):
            self.assertEqual(p.threads, 128)

    def test_c_owned_once_by_128_threads(self):
        c = self.panels["C"]
        for (m, n), (t, v, owners) in c.cells.items():
            lane, value = m16n8_c(m % 16, n % 8)
            self.assertEqual((t, v, owners), (lane + 32 * ((m // 16) + 2 * (n // 8)), value, 1), (m, n))
        self.assertEqual(len({t for t, _, _ in c.cells.values()}), 128)

    def test_a_replicated_across_n(self):
        """128 threads, but each A cell has 2 owners (the two N atoms): 64 distinct lowest owners."""
        a = self.panels["A"]
        owners = set()
        for (m, k), (t, v, n) in a.cells.items():
            lane, value = m16n8k16_a(m % 16, k)
            self.assertEqual((t, v, n), (lane + 32 * (m // 16), value, 2), (m, k))
            self.assertTrue(a.texts[(m, k)][0].endswith("+"), a.texts[(m, k)])
            owners.add(t)
        self.assertEqual(owners, set(range(64)))

    def test_b_replicated_across_m(self):
        b = self.panels["B"]
        owners = set()
        for (k, n), (t, v, o) in b.cells.items():
            lane, value = m16n8k16_b(n % 8, k)
            self.assertEqual((t, v, o), (lane + 64 * (n // 8), value, 2), (k, n))
            owners.add(t)
        self.assertEqual(owners, set(range(32)) | set(range(64, 96)))

    def test_k_tiling_shares_c(self):
        _, p = parse_svg(draw("mma", BF16, "--atoms", "1x1x2"))
        self.assertEqual((p["A"].rows, p["A"].cols, p["C"].rows, p["C"].cols), (16, 32, 16, 8))
        self.assertTrue(all(o == 2 for _, _, o in p["C"].cells.values()))
        self.assertTrue(all(o == 1 for _, _, o in p["A"].cells.values()))

    def test_ascii_marks_replicas(self):
        tables = parse_ascii(draw("mma", BF16, "--atoms", "2x2x1", "--format", "ascii"))
        a = tables["A (M,K) = (32,16)"]
        self.assertEqual((len(a), len(a[0])), (32, 16))
        self.assertTrue(all(cell.endswith("+") for row in a for cell in row))
        c = tables["C (M,N) = (32,16)"]
        self.assertTrue(all(not cell.endswith("+") for row in c for cell in row))
        self.assertEqual(c[25][11], "%d/%d" % (m16n8_c(9, 3)[0] + 32 * (1 + 2 * 1), 3))


class TiledCopy(unittest.TestCase):
    def test_vector_copy(self):
        """Kernel (b): thr (16,8):(8,1), val (1,8):(0,1): thread t writes row t/8, columns 8(t%8)..+7."""
        svg = draw("copy", "--thr", "(16,8):(8,1)", "--val", "(1,8):(0,1)")
        root, panels = parse_svg(svg)
        self.assertEqual(len(panels), 1)
        p = next(iter(panels.values()))
        self.assertEqual((p.rows, p.cols, p.threads, p.values, len(p.cells)), (16, 64, 128, 8, 1024))
        for (r, c), (t, v, o) in p.cells.items():
            self.assertEqual((t, v, o), (8 * r + c // 8, c % 8, 1), (r, c))
        self.assertIn("((8,16),8):((128,1),16)", "".join(root.itertext()))

    def test_ascii(self):
        tables = parse_ascii(draw("copy", "--thr", "(16,8):(8,1)", "--val", "(1,8):(0,1)", "--format", "ascii"))
        t = tables["copy tile (R,C) = (16,64)"]
        self.assertEqual((len(t), len(t[0])), (16, 64))
        self.assertEqual(t[3][17], "26/1")

    def test_rank1(self):
        _, panels = parse_svg(draw("copy", "--thr", "32:1", "--val", "4:1"))
        p = next(iter(panels.values()))
        self.assertEqual((p.rows, p.cols), (128, 1))
        self.assertTrue(all(o == 1 for _, _, o in p.cells.values()))


class Atoms(unittest.TestCase):
    def test_ldmatrix_x4_dst_is_mma_a(self):
        _, p = parse_svg(draw("atom", LDSM_X4, "--operand", "DST"))
        self.assertEqual(list(p), ["DST"])
        for (m, k), (t, v, o) in p["DST"].cells.items():
            self.assertEqual((t, v, o), (*m16n8k16_a(m, k), 1))

    def test_ldmatrix_x1_src_aliases_lanes(self):
        """Lanes 8..31 alias lanes 0..7 (stride 0): every cell has 4 owners, the lowest lane is the row."""
        _, p = parse_svg(draw("atom", LDSM_X1, "--operand", "src"))  # operand case-insensitive
        for (r, c), (t, v, o) in p["SRC"].cells.items():
            self.assertEqual((t, v, o), (r, c, 4))

    def test_all_operands(self):
        _, p = parse_svg(draw("atom", LDSM_X4))
        self.assertEqual(set(p), {"SRC", "DST"})
        _, p = parse_svg(draw("atom", MMA_BF16))
        self.assertEqual(set(p), {"A", "B", "C"})
        self.assertEqual(p["C"].cells[(9, 3)], (5, 3, 1))

    def test_every_listed_line_draws(self):
        listing = draw("list")
        for name in (BF16, F16, TF32):
            self.assertIn(name, listing)
        lines = re.findall(r"^  (\S+\.b16|mma\.\S+)  ([A-Z]+)  tile \((\d+),(\d+)\)", listing, re.M)
        self.assertEqual(len(lines), 33)
        for inst, op, rows, cols in lines:
            with self.subTest(inst=inst, op=op):
                _, p = parse_svg(draw("atom", inst, "--operand", op))
                panel = p[op]  # a single operand is drawn as stored, B as (N,K)
                self.assertEqual((panel.rows, panel.cols), (int(rows), int(cols)))
                self.assertEqual(len(panel.cells), int(rows) * int(cols))
                # Every element of every line has an owner (none of these layouts leaves a hole).
                self.assertTrue(all(o >= 1 for _, _, o in panel.cells.values()))
                out = draw("atom", inst, "--operand", op, "--format", "ascii")
                self.assertIn(inst, out)


class AnyTv(unittest.TestCase):
    def test_c_layout(self):
        _, p = parse_svg(draw("tv", C16, "--tile", "16x8"))
        self.assertEqual(p["tile"].cells[(9, 3)], (5, 3, 1))

    def test_expression(self):
        _, p = parse_svg(draw("tv", "composition((16,8):(1,16),%s)" % C16, "--tile", "16x8"))
        self.assertEqual(p["tile"].cells[(9, 3)], (5, 3, 1))

    def test_unowned_and_replicated(self):
        svg = draw("tv", "(4,2):(0,1)", "--tile", "2x2")
        _, p = parse_svg(svg)
        cells = p["tile"].cells
        self.assertEqual(cells[(0, 0)], (0, 0, 4))
        self.assertEqual(cells[(1, 0)], (0, 1, 4))
        self.assertEqual(cells[(0, 1)], (None, None, 0))
        self.assertEqual(p["tile"].texts[(0, 1)], [])
        self.assertEqual(p["tile"].texts[(0, 0)], ["T0+", "V0"])
        root = ET.fromstring(svg)
        for g in root.iter(SVG_NS + "g"):
            if g.get("class") == "cell" and g.get("data-owners") == "0":
                self.assertEqual(g.find(SVG_NS + "rect").get("fill").lower(), "#ffffff")
        tables = parse_ascii(draw("tv", "(4,2):(0,1)", "--tile", "2x2", "--format", "ascii"))
        self.assertEqual(tables["tile (R,C) = (2,2)"], [["0/0+", ""], ["0/1+", ""]])

    def test_output_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "c.svg")
            rc, out, err = tessel("draw", "tv", C16, "--tile", "16x8", "-o", path)
            self.assertEqual((rc, out, err), (0, "", ""))
            with open(path) as f:
                self.assertEqual(f.read(), draw("tv", C16, "--tile", "16x8"))


class Errors(unittest.TestCase):
    CASES = [
        (["mma", "SM80_NOPE"], "unknown MMA atom"),
        (["mma", BF16, "--atoms", "2x2"], "--atoms"),
        (["mma", BF16, "--atoms", "0x1x1"], "--atoms"),
        (["mma", BF16, "--atoms", "2x2x1x1"], "--atoms"),
        (["mma", BF16, "--atoms", "axbxc"], "--atoms"),
        (["mma", BF16, "--atoms", "99999999999999999999999x1x1"], "--atoms"),
        (["mma", BF16, "--atoms", "64x64x64"], "cells"),
        (["tv", C16, "--tile", "8x8"], "does not fit"),
        (["tv", C16, "--tile", "16x7"], "does not fit"),
        (["tv", C16, "--tile", "0x8"], "--tile"),
        (["tv", C16, "--tile", "16"], "--tile"),
        (["tv", C16, "--tile", "65537x1"], "--tile"),
        (["tv", C16, "--tile", "65536x2"], "cells"),
        (["tv", "32:1", "--tile", "32x1"], "two top-level modes"),
        (["tv", "(4,8):(1,4", "--tile", "4x8"], "syntax"),
        (["tv", "size((4,8):(1,4))", "--tile", "4x8"], "not a layout"),
        (["tv", "Sw<1,1,1>o((4,8):(1,4))", "--tile", "4x8"], "swizzled"),
        (["tv", "(1048576,8):(1,0)", "--tile", "2x2"], "at most"),
        (["copy", "--thr", "(16,8):(8,1)", "--val", "(1,8)"], "not a layout"),
        (["copy", "--thr", "(4,4):(1,1)", "--val", "(1,8):(0,1)"], "--thr (4,4):(1,1) is not injective"),
        (["copy", "--thr", "(16,8):(8,1)", "--val", "(2,2):(1,1)"], "--val (2,2):(1,1) is not injective"),
        (["copy", "--thr", "(4,4,2):(1,4,16)", "--val", "(1,1,1):(0,0,0)"], "rank 3"),
        (["copy", "--thr", "(2147483647):(1)", "--val", "(2,2):(1,2)"], "at most"),
        (["atom", "ldmatrix.nope"], "unknown instruction"),
        (["atom", LDSM_X4, "--operand", "A"], "no operand"),
    ]

    def test_error_messages(self):
        with tempfile.TemporaryDirectory() as d:
            for args in self.CASES:
                with self.subTest(args=args[0]):
                    path = os.path.join(d, "out.svg")
                    rc, out, err = tessel("draw", *args[0], "-o", path)
                    # a malformed --atoms or --tile is a usage error (2); the rest fail the drawing (1)
                    usage = any(a in ("--atoms", "--tile") for a in args[0]) and args[1] in ("--atoms", "--tile")
                    self.assertEqual(rc, 2 if usage else 1, err)
                    self.assertEqual(out, "")
                    self.assertTrue(err.startswith("error: "), err)
                    self.assertIn(args[1], err)
                    self.assertEqual(err.count("\n"), 1, err)
                    self.assertFalse(os.path.exists(path))  # nothing written on failure

    def test_usage_errors_exit_2(self):
        """Usage errors exit 2 with one line naming the word that failed."""
        for args, word in ((["mma"], "atom"), ([], "a subcommand is required: mma, copy, atom, tv or list"),
                           (["copy", "--thr", "(16,8):(8,1)"], "--val"), (["tv", C16], "--tile"),
                           (["mma", BF16, "--format", "pdf"], "pdf"), (["nope"], "unknown subcommand 'nope'"),
                           (["bogus"], "unknown subcommand 'bogus'"), (["list", "extra"], "extra")):
            with self.subTest(args=args):
                rc, out, err = tessel("draw", *args)
                self.assertEqual(rc, 2, err)
                self.assertEqual(out, "")
                self.assertIn(word, err)
                self.assertEqual(err.count("\n"), 1, err)

    def test_unwritable_output(self):
        rc, out, err = tessel("draw", "tv", C16, "--tile", "16x8", "-o", "/nonexistent/dir/x.svg")
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith("error: cannot write"), err)


def main():
    global TESSEL
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    TESSEL = os.path.abspath(sys.argv[1])
    if not os.access(TESSEL, os.X_OK):
        print("not an executable: %s" % TESSEL)
        return 2
    prog = unittest.main(argv=[sys.argv[0]] + sys.argv[2:], exit=False, verbosity=1)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
