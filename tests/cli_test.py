#!/usr/bin/env python3
"""End-to-end tests of the `tessel layout` command line (and of `tessel bench gemm`'s arguments).

usage: cli_test.py TESSEL_BINARY [unittest options]

Covers single expressions, error keywords and exit codes, batch mode (file and
standard input), the ascii/svg/latex drawings and a robustness fuzz run (one
batch of a few thousand malformed or random expressions).  Standard library
only; the whole file runs in a few seconds.
"""
import bisect
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

TESSEL = None  # set from sys.argv[1] in main
HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "data", "layout_algebra.tsv")
SVG_NS = "http://www.w3.org/2000/svg"

KEYWORDS = {
    "syntax", "arity", "type", "congruence", "coordinate-rank", "coordinate-range", "stride-divisibility",
    "shape-divisibility", "inexact-division", "overlap", "non-injective", "tiler-rank", "tile-divisibility",
    "swizzle", "left-inverse-divisibility", "value-range", "capacity",
}
ERROR_RE = re.compile(r"^error: ([a-z]+(?:-[a-z]+)*): \S.*$")


# ------------------------------------------------------------------ helpers

def tessel(*args, stdin=None, timeout=20, binary=False):
    """Runs the CLI; returns (returncode, stdout, stderr)."""
    p = subprocess.run([TESSEL, *args], input=stdin, capture_output=True, timeout=timeout, text=not binary)
    return p.returncode, p.stdout, p.stderr


def layout(expr, *opts):
    """Runs `tessel layout`; returns (returncode, answer, stderr).  The answer
    is standard output for a result and standard error for an error (exit 1),
    whose standard output must then be empty: `x=$(tessel layout ...)` never
    captures an error as a value."""
    rc, out, err = tessel("layout", *opts, expr)
    if rc == 1:
        assert out == "", "an error printed on standard output: %r" % out
        return rc, err, err
    return rc, out, err


# A small parser of the result grammar: integer | tuple | layout | Sw<B,M,S>o(layout).
class _Reader:
    def __init__(self, s):
        self.s, self.i = s, 0

    def tuple(self):
        """Returns a nested structure: int or list."""
        if self.i < len(self.s) and self.s[self.i] == "(":
            self.i += 1
            items = [self.tuple()]
            while self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
                items.append(self.tuple())
            if self.i >= len(self.s) or self.s[self.i] != ")":
                raise ValueError("expected ) in %r" % self.s)
            self.i += 1
            return items
        m = re.compile(r"\d+").match(self.s, self.i)
        if not m:
            raise ValueError("expected an integer at %d in %r" % (self.i, self.s))
        self.i = m.end()
        return int(m.group(0))

    def done(self):
        if self.i != len(self.s):
            raise ValueError("trailing text in %r" % self.s)


def congruent(a, b):
    if isinstance(a, int) or isinstance(b, int):
        return isinstance(a, int) and isinstance(b, int)
    return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b))


def parse_result(text):
    """('int', n) | ('tuple', t) | ('layout', (shape, stride, swizzle or None)); raises ValueError."""
    sw = None
    m = re.fullmatch(r"Sw<(\d+),(\d+),(\d+)>o\((.*)\)", text)
    if m:
        sw = tuple(int(g) for g in m.groups()[:3])
        text = m.group(4)
    r = _Reader(text)
    shape = r.tuple()
    if r.i < len(text) and text[r.i] == ":":
        r.i += 1
        stride = r.tuple()
        r.done()
        if not congruent(shape, stride):
            raise ValueError("shape and stride not congruent in %r" % text)
        return "layout", (shape, stride, sw)
    r.done()
    if sw is not None:
        raise ValueError("swizzle without a layout in %r" % text)
    return ("int", shape) if isinstance(shape, int) else ("tuple", shape)


def valid_result(text):
    try:
        parse_result(text)
        return True
    except ValueError:
        return False


def flatten(t):
    return [t] if isinstance(t, int) else [x for e in t for x in flatten(e)]


def swizzle(x, b, m, s):
    """Sw<B,M,S> for S > 0: bits [M+S, M+S+B) are xor-ed into bits [M, M+B)."""
    mask = (1 << b) - 1
    return x ^ ((x & (mask << (m + s))) >> s)


def sw333_offsets(rows=8, cols=64):
    """Expected grid of Sw<3,3,3>o((8,64):(64,1)): cell (r,c) holds swizzle(r*64+c)."""
    return [[swizzle(r * 64 + c, 3, 3, 3) for c in range(cols)] for r in range(rows)]


def eval_layout(shape, stride, i):
    off = 0
    leaves = list(zip(flatten(shape), flatten(stride)))
    for k, (s, d) in enumerate(leaves):
        c = i if k == len(leaves) - 1 else i % s
        i //= s
        off += c * d
    return off


def batch_expected(lines):
    """The expressions the CLI must answer for these input lines (same skip rule as the contract)."""
    out = []
    for line in lines:
        if line.endswith(b"\r"):
            line = line[:-1]
        expr = line.split(b"\t", 1)[0]
        stripped = expr.strip(b" \t")
        if not stripped or stripped.startswith(b"#"):
            continue
        out.append(expr)
    return out


# ------------------------------------------------------------------ 1. single expressions

class SingleExpressions(unittest.TestCase):
    CASES = [
        ("logical_divide((6,20):(20,1),<2,4>)", "((2,3),(4,5)):((20,40),(1,4))"),
        ("eval((4,3):(3,1),(2,1))", "7"),
        ("idx2crd(16,(3,(2,3)))", "(1,(1,2))"),
        ("idx2crd((1,5),(3,(2,3)))", "(1,(1,2))"),
        ("composition((6,2):(8,2),(4,3):(3,1))", "((2,2),3):((24,2),8)"),
        ("size((3,(6,2),8))", "288"),
        ("rank((3,(6,2),8))", "3"),
        ("depth((3,(6,2),8))", "2"),
        ("make_layout((4,3),LayoutRight)", "(4,3):(3,1)"),
        ("make_layout(3:1)", "(3):(1)"),
        ("crd2idx((1,2),(4,3),(3,1))", "5"),
        ("coalesce(Sw<3,3,3>o((8,64):(64,1)),(1,1))", "Sw<3,3,3>o((8,64):(64,1))"),
    ]

    def test_known_results(self):
        for expr, want in self.CASES:
            with self.subTest(expr=expr):
                rc, out, err = layout(expr)
                self.assertEqual((rc, out), (0, want + "\n"), err)

    def test_spaces_are_ignored(self):
        for expr, want in [
            (" logical_divide( (6, 20) : (20 ,1) ,  < 2 , 4 > ) ", "((2,3),(4,5)):((20,40),(1,4))"),
            ("eval ( (4,3):(3,1) , ( 2 , 1 ) )", "7"),
            ("idx2crd( 16 , ( 3 , ( 2 , 3 ) ) )", "(1,(1,2))"),
            ("size( Sw< 3 , 3 , 3 >o( (8,64) : (64,1) ) )", "512"),
        ]:
            with self.subTest(expr=expr):
                self.assertEqual(layout(expr)[:2], (0, want + "\n"))

    def test_eval_agrees_with_python(self):
        shape, stride = [[2, 3], [4, [2, 2]]], [[1, 16], [2, [48, 96]]]
        text = "((2,3),(4,(2,2))):((1,16),(2,(48,96)))"
        n = 2 * 3 * 4 * 2 * 2
        lines = ["eval(%s,%d)" % (text, i) for i in range(n)] + ["size(%s)" % text, "cosize(%s)" % text]
        rc, out, _ = tessel("layout", "--batch", "-", stdin="\n".join(lines) + "\n")
        self.assertEqual(rc, 0)
        got = [ln.split("\t", 1)[1] for ln in out.splitlines()]
        want = [str(eval_layout(shape, stride, i)) for i in range(n)]
        want += [str(n), str(max(map(int, want)) + 1)]
        self.assertEqual(got, want)


class Contract(unittest.TestCase):
    """The calculator's contract (issue 44): every printed result reads back,
    and errors name their real cause."""

    def test_deep_results_read_back(self):
        """A product nests its first argument one level deeper; from the deepest
        literal of the old parser (24 levels) keep going until the value is full:
        every result printed on the way reads back as itself."""
        x = "(" * 24 + "2" + ")" * 24 + ":" + "(" * 24 + "1" + ")" * 24
        depths = []
        for _ in range(48):
            rc, out, err = layout("logical_product(%s,2:1)" % x)
            if rc != 0:
                self.assertIn("error: capacity:", out)
                break
            x = out.strip()
            self.assertEqual(layout(x)[:2], (0, x + "\n"), "printed but does not read back")
            rc, d, _ = layout("depth(%s)" % x)
            self.assertEqual(rc, 0)
            depths.append(int(d))
        self.assertEqual(rc, 1, "the chain ends when a value is full")
        self.assertEqual(depths, list(range(25, 25 + len(depths))))
        self.assertGreater(depths[-1], 35)

    def test_extent_one_strides_overflow_nothing(self):
        """A leaf of extent 1 adds no offset, so its stride cannot overflow a
        result; an overflowing stride on a larger extent still does."""
        for expr, want in [("composition(1:2,1:4611686018427387904)", "1:0"),
                           ("composition(2:2,(2,1):(1,4611686018427387904))", "(2,1):(2,0)"),
                           ("composition((4,3):(1,5),(2,1):(1,6))", "(2,1):(1,0)"),  # no image of 6 either
                           ("composition(8:2,1:3)", "1:6"),  # an image that fits is kept
                           ("eval(1:4611686018427387904,0)", "0")]:
            with self.subTest(expr=expr):
                self.assertEqual(layout(expr)[:2], (0, want + "\n"))
        rc, out, _ = layout("composition(2:2,2:4611686018427387904)")
        self.assertEqual(rc, 1)
        self.assertIn("error: value-range: a stride of the result would exceed", out)

    def test_messages_name_the_real_cause(self):
        """A rank-1 tuple meeting an integer is named as such (not "rank 1 with
        rank 1"); a cosize of 2^63 is not blamed on an offset that fits."""
        rc, out, _ = layout("blocked_product((2):(1),2:1)")
        self.assertEqual(rc, 1)
        self.assertIn("error: tiler-rank: A's shape is a tuple of rank 1 but B's is the integer 2", out)
        self.assertNotIn("rank 1 with one of rank 1", out)
        rc, out, _ = layout("raked_product(2:1,(2):(1))")
        self.assertIn("error: tiler-rank: B's shape is a tuple of rank 1 but A's is the integer 2", out)
        # Both tuples or both integers are fine.
        self.assertEqual(layout("blocked_product((2):(1),(2):(1))")[:2], (0, "((2,2)):((1,2))\n"))
        self.assertEqual(layout("blocked_product(2:1,(2):(1))")[:2], (0, "((2,(2))):((1,(2)))\n"))
        for expr in ("eval(2:9223372036854775807,1)", "2:9223372036854775807",
                     "(2,2):(4611686018427387904,4611686018427387903)"):
            with self.subTest(expr=expr):
                rc, out, _ = layout(expr)
                self.assertEqual(rc, 1)
                self.assertIn("error: value-range: the cosize of the layout, 1 + 9223372036854775807, exceeds "
                              "9223372036854775807: every offset fits, but not their count", out)
                self.assertNotIn("offset does not fit", out)
        # An offset that does not fit is still named as such.
        self.assertIn("its largest offset does not fit", layout("eval(3:9223372036854775807,1)")[1])


    def test_a_shape_is_a_tiler(self):
        """Where a tiler is taken, a shape is too, as in CuTe: (2,4) is the
        by-mode tiler <2,4> (layouts 2:1 and 4:1), an integer n the layout n:1."""
        a = "(8,12):(12,1)"
        for fn in ("composition", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
                   "logical_product", "zipped_product", "tiled_product"):
            with self.subTest(fn=fn):
                rc, by_shape, err = layout("%s(%s,(2,4))" % (fn, a))
                self.assertEqual(rc, 0, err)
                self.assertEqual(by_shape, layout("%s(%s,<2:1,4:1>)" % (fn, a))[1])
                self.assertEqual(layout("%s(%s,4)" % (fn, a))[1], layout("%s(%s,4:1)" % (fn, a))[1])
        self.assertEqual(layout("zipped_divide((8,8):(1,8),(2,4))")[:2], (0, "((2,4),(4,2)):((1,8),(2,32))\n"))
        self.assertEqual(layout("logical_divide((6,20):(20,1),(2,4))")[:2], (0, "((2,3),(4,5)):((20,40),(1,4))\n"))
        rc, out, _ = layout("logical_divide((8,8):(1,8),(2,(2,2)))")
        self.assertEqual(rc, 1)
        self.assertIn("error: type: mode 1 of the shape used as a tiler is a tuple", out)
        self.assertIn("error: tiler-rank:", layout("logical_divide((8,8):(1,8),(2,4,2))")[1])
        self.assertIn("error: value-range: tiler extent 0", layout("logical_divide((8,8):(1,8),(2,0))")[1])
        self.assertIn("a shape is a tiler only where a tiler is taken", layout("blocked_product(2:1,(2,4))")[1])


# ------------------------------------------------------------------ 2. errors

class Errors(unittest.TestCase):
    def check_error(self, expr, keywords):
        rc, out, _ = layout(expr)
        self.assertEqual(rc, 1, "%s: %r" % (expr, out))
        lines = out.splitlines()
        self.assertEqual(len(lines), 1, out)
        m = ERROR_RE.match(lines[0])
        self.assertIsNotNone(m, "%s: not an error line: %r" % (expr, out))
        self.assertIn(m.group(1), keywords, "%s: %r" % (expr, out))
        return lines[0]

    def test_composition_divisibility_names_rule_and_numbers(self):
        # A' = (4,2):(2,1); leaf 3:2 of B: q = ceil(4/2) = 2, t = min(2,3) = 2, 3 % 2 != 0 (docs/algebra.md §6.2 step 3.4).
        line = self.check_error("composition((4,2):(2,1),(4,3):(12,2))", {"shape-divisibility"})
        nums = set(re.findall(r"\d+", line.split(":", 2)[2]))
        self.assertTrue({"3", "2"} <= nums, line)

    def test_rule_keywords(self):
        for expr, kw in [
            ("complement((2,2):(1,1),16)", "non-injective"),
            ("complement((4,2):(1,2))", "non-injective"),
            ("eval((4,3):(3,1),12)", "coordinate-range"),
            ("idx2crd(18,(3,(2,3)))", "coordinate-range"),
            ("eval((4,3):(3,1),(1,1,1))", "coordinate-rank"),
            ("size((4,3):(3,1,2))", "congruence"),
            ("coalesce((4,(3,2)):(1,3))", "congruence"),
            ("logical_divide(8:1,<2,2>)", "tiler-rank"),
            ("eval(Sw<3,3,2>o((8,64):(64,1)),5)", "swizzle"),
            ("tile_to_shape((4,3):(1,4),(10,6))", "tile-divisibility"),
            ("composition((4,(3,2)):(1,(8,4)),(8,2):(1,8))", "overlap"),
            ("blocked_product((2,2):(1,2),<2,2>)", "type"),
        ]:
            with self.subTest(expr=expr):
                self.check_error(expr, {kw})

    def test_bare_literals_print_themselves(self):
        # Not part of the golden grammar (one call per line), accepted so that a
        # layout can be drawn directly: `tessel layout --format svg 'Sw<...>o(...)'`.
        for expr, want in [("(4,3):(3,1)", "(4,3):(3,1)"), (" ( 4 , 3 ) ", "(4,3)"), ("8", "8"),
                           ("Sw<3,3,3>o((8,64):(64,1))", "Sw<3,3,3>o((8,64):(64,1))"),
                           ("Sw<0,3,3>o(8:1)", "8:1")]:
            with self.subTest(expr=expr):
                rc, out, _ = layout(expr)
                self.assertEqual((rc, out.strip()), (0, want))
        for expr in ["(4,3):(3,1,2)", "Sw<3,3,2>o(8:1)", "(4,3):(3,1) x"]:
            with self.subTest(expr=expr):
                rc, out, _ = layout(expr)
                self.assertEqual(rc, 1, out)
                self.assertTrue(out.startswith("error"), out)

    def test_message_mentions_values(self):
        line = self.check_error("eval((4,3):(3,1),12)", {"coordinate-range"})
        self.assertIn("12", line.split(":", 2)[2])
        line = self.check_error("logical_divide(8:1,<2,2>)", {"tiler-rank"})
        self.assertIn("2", line.split(":", 2)[2])

    def test_syntax_errors(self):
        for expr in ["foo(8:1)", "transpose((4,3):(3,1))", "size((4,3):(3,1)", "size(((4,3):(3,1))",
                     "size((4,3):(3,1)))", "size((4,3)):(3,1)", "size(8:1", "size8:1)", "size(8:1) size(8:1)",
                     "size(size(8:1))", "size(())", "size((4,,3))", "size(8::1)", "(4,3):(3,1) x", "", "   ",
                     "size(8:1)x", "Size(8:1)", "size(<2,2>"]:
            with self.subTest(expr=expr):
                if expr.strip():
                    self.check_error(expr, {"syntax"})
                else:  # an empty argument is a usage error (exit 2) or a syntax error (exit 1), never success
                    rc, out, _ = layout(expr)
                    self.assertIn(rc, (1, 2), out)

    def test_unknown_identifiers_are_named(self):
        """An unknown identifier is quoted, with the nearest known one (or
        another library's name for it), and a nested call is called that."""
        cases = [("make_layout((4,3),RowMajor)", "'RowMajor'", "did you mean 'LayoutRight'"),
                 ("make_layout((4,3),GenColMajor)", "'GenColMajor'", "did you mean 'LayoutLeft'"),
                 ("make_layout((4,3),LayoutRigth)", "'LayoutRigth'", "did you mean 'LayoutRight'"),
                 ("composition(4:1,abc)", "'abc'", "LayoutLeft or LayoutRight"),
                 ("size(size(8:1))", "nested calls are not allowed: 'size('", "literal arguments")]
        for expr, named, hint in cases:
            with self.subTest(expr=expr):
                rc, out, _ = layout(expr)
                self.assertEqual(rc, 1, out)
                self.assertTrue(out.startswith("error: syntax:"), out)
                self.assertIn(named, out)
                self.assertIn(hint, out)
        rc, out, _ = layout("composition(4:1,xyzzy)")
        self.assertNotIn("did you mean", out)  # nothing near: no guess

    def test_negative_numbers(self):
        for expr in ["size(-8:1)", "size((4,-3):(3,1))", "eval((4,3):(3,1),-1)", "logical_divide(8:1,<-2>)",
                     "idx2crd(-1,(3,4))", "eval(8:-1,1)"]:
            with self.subTest(expr=expr):
                line = self.check_error(expr, {"syntax", "value-range"})
                self.assertIn("negative", line)

    def test_arity(self):
        for expr in ["eval((4,3):(3,1))", "eval((4,3):(3,1),1,2)", "size(8:1,2)", "size()", "composition(8:1)",
                     "crd2idx(1,(4,3))", "complement(8:1,16,2)", "tile_to_shape(8:1)",
                     "make_layout((2,2),LayoutLeft,LayoutRight)"]:
            with self.subTest(expr=expr):
                self.check_error(expr, {"arity"})

    def test_huge_integers(self):
        for expr in ["size(99999999999999999999)", "eval(8:1,99999999999999999999)", "size(9223372036854775808:1)"]:
            with self.subTest(expr=expr):
                self.check_error(expr, {"value-range"})

    def test_robustness_cases(self):
        """Each input of tests/data/robustness.tsv (the crashes, overflows and 32-bit ceiling that fuzzing
        found, and the 64-bit edges) gives its exact result or named error, alone and all in one batch."""
        with open(os.path.join(HERE, "data", "robustness.tsv"), encoding="utf-8") as f:
            cases = [ln.rstrip("\n").split("\t") for ln in f if ln.strip() and not ln.startswith("#")]
        self.assertGreaterEqual(len(cases), 40)
        for expr, expected in cases:
            with self.subTest(expr=expr):
                rc, out, err = layout(expr)
                self.assertEqual(out, expected + "\n")
                self.assertEqual(rc, 1 if expected.startswith("error:") else 0, err)
        rc, out, err = tessel("layout", "--batch", "-", stdin="".join(e + "\n" for e, _ in cases))
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines(), [e + "\t" + x for e, x in cases])

    def test_64_bit_values(self):
        self.assertEqual(layout("size((65536,65536,65536):(1,65536,4294967296))")[1], "281474976710656\n")
        self.assertEqual(layout("make_layout(2147483648:1)")[1], "(2147483648):(1)\n")
        self.assertEqual(layout("size(9223372036854775807)")[1], "9223372036854775807\n")
        self.check_error("size(9223372036854775808)", {"value-range"})

    def test_messages_quote_the_input(self):
        self.assertIn("unknown function 'complemnt' (did you mean 'complement'?)", layout("complemnt(8:1)")[1])
        self.assertIn("unknown function 'transpose'", layout("transpose((4,3):(3,1))")[1])
        self.assertIn("unexpected '#' at column 6", layout("size(#)")[1])
        self.assertIn("UTF-8 byte-order mark", layout("\ufeffsize(8:1)")[1])
        self.assertIn("a tiler <...> is not a value on its own", layout("<2,4>")[1])
        self.assertIn("target extent 0 (leaf 1 of the target", layout("tile_to_shape(2:1,(4,0))")[1])
        # Nesting: depth 47 (the deepest tuple a value holds) is accepted, 48 is not.
        self.assertEqual(layout("size(" + "(" * 47 + "3" + ")" * 47 + ")")[1], "3\n")
        self.assertIn("deeper than 47", layout("size(" + "(" * 48 + "3" + ")" * 48 + ")")[1])
        # A NUL byte is a character, not the end of the input; a BOM at the start of a batch is skipped.
        rc, out, _ = tessel("layout", "--batch", "-", stdin=b"\xef\xbb\xbfsize(8:1)\nsize(1\x002)\n", binary=True)
        self.assertEqual(rc, 0)
        lines = out.split(b"\n")
        self.assertEqual(lines[0], b"size(8:1)\t8")
        self.assertIn(b"unexpected byte 0x00 (NUL) at column 7", lines[1])

    def test_usage_errors_exit_2_naming_the_word(self):
        for args, word in ((["layout", "--bogus"], "--bogus"), (["bogus"], "unknown subcommand 'bogus'"),
                           (["layout", "--format", "pdf", "8:1"], "pdf"), (["bench", "nope"], "'nope'"),
                           (["layout"], "an expression or --batch FILE is required")):
            with self.subTest(args=args):
                rc, out, err = tessel(*args)
                self.assertEqual(rc, 2, err)
                self.assertIn(word, err)
                self.assertEqual(out, "")

    def test_attention_lengths_usage(self):
        # Packed sequences' lengths replace --seq, --seq-kv and --batch; each at least 1, their total at most 2^30.
        for args, word in ((["--lengths", "100,200", "--seq", "5"], "drop --seq, --seq-kv and --batch"),
                           (["--lengths", "100", "--batch", "2"], "drop --seq, --seq-kv and --batch"),
                           (["--lengths", "100,0"], "--lengths")):
            with self.subTest(args=args):
                rc, out, err = tessel("bench", "attention", *args)
                self.assertEqual(rc, 2, err)
                self.assertIn(word, err)
                self.assertEqual(out, "")
        rc, out, err = tessel("bench", "attention", "--lengths", ",".join(["16000000"] * 68))
        self.assertEqual(rc, 2, err)
        self.assertIn("1088000000 packed rows, at most 2^30", err)

    def test_drawing_limits(self):
        rc, out, _ = layout("(1000,100):(1,1000)", "--format", "svg")
        self.assertEqual(rc, 1)
        self.assertTrue(out.startswith("error: capacity:"), out)
        rc, out, _ = layout("(2,2,2):(1,2,4)", "--format", "ascii")
        self.assertTrue(out.startswith("error: type:"), out)
        # LaTeX: TeX's largest dimension is about 575 cm; a wide picture shrinks its cells to stay within 500 cm.
        rc, out, _ = layout("(1,2000):(0,1)", "--format", "latex")
        self.assertEqual(rc, 0)
        m = re.search(r"x=([0-9.]+)cm,y=([0-9.]+)cm", out)
        self.assertTrue(m, out[:300])
        self.assertLessEqual(float(m.group(1)) * 2001, 500.5)

    def test_error_goes_to_stderr(self):
        rc, out, err = tessel("layout", "foo(1)")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")  # nothing a shell substitution could take for a value
        self.assertTrue(err.startswith("error: syntax:"), err)
        # --batch keeps one answer line per input line on standard output, errors included.
        rc, out, err = tessel("layout", "--batch", "-", stdin="foo(1)\nsize(4:1)\n")
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2, out)
        self.assertTrue(lines[0].startswith("foo(1)\terror: syntax:"), out)
        self.assertEqual(lines[1], "size(4:1)\t4")


# ------------------------------------------------------------------ 3. batch mode

BATCH_INPUT = (
    "# a comment line\n"
    "logical_divide((6,20):(20,1),<2,4>)\n"
    "\n"
    "   \n"
    "eval((4,3):(3,1),12)\n"
    "  # an indented comment\n"
    "idx2crd(16,(3,(2,3)))\tTHIS_EXPECTED_VALUE_IS_IGNORED\n"
    "foo(1)\n"
    "size((4,3):(3,1)\n"
    "eval((4,3):(3,1),(2,1))\t7\n"
    "size(8:1)\r\n"
    "\tonly text after a tab\n"
    "complement((2,2):(1,1),16)"  # no final newline
)
BATCH_WANT = [
    ("logical_divide((6,20):(20,1),<2,4>)", "((2,3),(4,5)):((20,40),(1,4))"),
    ("eval((4,3):(3,1),12)", "error: coordinate-range"),
    ("idx2crd(16,(3,(2,3)))", "(1,(1,2))"),
    ("foo(1)", "error: syntax"),
    ("size((4,3):(3,1)", "error: syntax"),
    ("eval((4,3):(3,1),(2,1))", "7"),
    ("size(8:1)", "8"),
    ("complement((2,2):(1,1),16)", "error: non-injective"),
]


class Batch(unittest.TestCase):
    def check_batch_output(self, rc, out):
        self.assertEqual(rc, 0, out)
        lines = out.split("\n")
        self.assertEqual(lines[-1], "", "output must end with a newline")
        lines = lines[:-1]
        self.assertEqual(len(lines), len(BATCH_WANT), out)
        for line, (expr, want) in zip(lines, BATCH_WANT):
            self.assertEqual(line.count("\t"), 1, line)
            got_expr, got = line.split("\t")
            self.assertEqual(got_expr, expr)
            if want.startswith("error"):
                self.assertTrue(got.startswith(want + ":"), line)
                self.assertRegex(got, ERROR_RE)
            else:
                self.assertEqual(got, want)

    def test_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(BATCH_INPUT)
        try:
            self.check_batch_output(*tessel("layout", "--batch", f.name)[:2])
        finally:
            os.unlink(f.name)

    def test_stdin(self):
        self.check_batch_output(*tessel("layout", "--batch", "-", stdin=BATCH_INPUT)[:2])

    def test_empty_input(self):
        self.assertEqual(tessel("layout", "--batch", "-", stdin="")[:2], (0, ""))
        self.assertEqual(tessel("layout", "--batch", "-", stdin="# only\n\n \n")[:2], (0, ""))

    def test_missing_file(self):
        rc, out, err = tessel("layout", "--batch", os.path.join(tempfile.gettempdir(), "no-such-dir-x9", "cases.txt"))
        self.assertEqual(rc, 2)
        self.assertEqual(out, "")
        self.assertTrue(err.strip(), "a reason on stderr")

    def test_directory_is_not_readable_input(self):
        """A directory cannot be read as a batch file: exit 2 like a missing file (not an empty success)."""
        with tempfile.TemporaryDirectory() as d:
            rc, out, _ = tessel("layout", "--batch", d)
            self.assertEqual(rc, 2, "rc %d, stdout %r" % (rc, out[:200]))

    def test_golden_file_as_input(self):
        """A golden EXPR<TAB>EXPECTED file is read with the expected column ignored."""
        if not os.path.exists(GOLDEN):
            self.skipTest("no golden file")
        with open(GOLDEN, "rb") as f:
            raw = f.read().split(b"\n")
        if raw and raw[-1] == b"":
            raw.pop()
        rc, out, _ = tessel("layout", "--batch", GOLDEN, binary=True)
        self.assertEqual(rc, 0)
        lines = out.split(b"\n")[:-1]
        exprs = batch_expected(raw)
        self.assertEqual(len(lines), len(exprs))
        for line, expr in zip(lines, exprs):
            self.assertEqual(line.split(b"\t", 1)[0], expr)

    def test_usage_errors(self):
        self.assertEqual(tessel("layout", "--batch", "-", "size(8:1)", stdin="")[0], 2)
        self.assertEqual(tessel("layout", "--batch", "-", "--format", "svg", stdin="size(8:1)\n")[0], 2)
        self.assertNotEqual(tessel("layout", "--format", "png", "make_layout(4)")[0], 0)


# ------------------------------------------------------------------ 4/5. drawings

SW_EXPR = "coalesce(Sw<3,3,3>o((8,64):(64,1)),(1,1))"  # the swizzled layout itself, as a call


class Drawings(unittest.TestCase):
    def svg_grid(self, expr):
        rc, out, err = layout(expr, "--format", "svg")
        self.assertEqual(rc, 0, out + err)
        root = ET.fromstring(out.encode("utf-8"))
        self.assertEqual(root.tag, "{%s}svg" % SVG_NS)
        for attr in ("width", "height"):
            self.assertRegex(root.get(attr, ""), r"^\d+(\.\d+)?$", attr)
        rects = list(root.iter("{%s}rect" % SVG_NS))
        texts = list(root.iter("{%s}text" % SVG_NS))
        cells = [r for r in rects if r.get("x") is not None and r.get("y") is not None]
        background = [r for r in rects if r.get("x") is None]
        self.assertEqual(len(background), 1, "one background rect")
        self.assertEqual(background[0].get("width"), "100%")
        # a cell label is the one text element inside its rect
        boxes = {}
        for r in cells:
            x, y, w, h = (float(r.get(a)) for a in ("x", "y", "width", "height"))
            self.assertNotIn((x, y), boxes, "two cells at one place")
            boxes[(x, y)] = (w, h)
        xs = sorted({x for x, _ in boxes})
        ys = sorted({y for _, y in boxes})
        labels = {}
        for t in texts:
            if t.get("x") is None or t.get("y") is None:
                continue
            tx, ty = float(t.get("x")), float(t.get("y"))
            i, j = bisect.bisect_left(xs, tx) - 1, bisect.bisect_left(ys, ty) - 1
            if i < 0 or j < 0 or (xs[i], ys[j]) not in boxes:
                continue
            w, h = boxes[(xs[i], ys[j])]
            if tx < xs[i] + w and ty < ys[j] + h:
                labels.setdefault((xs[i], ys[j]), []).append((t.text or "").strip())
        by_row = {}
        for (x, y) in boxes:
            got = labels.get((x, y), [])
            self.assertEqual(len(got), 1, "one label per cell at %s,%s: %r" % (x, y, got))
            self.assertRegex(got[0], r"^\d+$")
            by_row.setdefault(y, {})[x] = int(got[0])
        return [[row[x] for x in sorted(row)] for _, row in sorted(by_row.items())], len(cells)

    def test_svg_swizzle(self):
        grid, ncells = self.svg_grid(SW_EXPR)
        want = sw333_offsets()
        self.assertEqual(ncells, 8 * 64)
        self.assertEqual(grid, want)
        self.assertEqual(sorted(v for row in grid for v in row), list(range(512)))  # a permutation

    def test_svg_128x64(self):
        grid, ncells = self.svg_grid("make_layout((128,64),LayoutRight)")
        self.assertEqual(ncells, 128 * 64)
        self.assertEqual(grid, [[r * 64 + c for c in range(64)] for r in range(128)])

    def test_svg_column_major(self):
        grid, _ = self.svg_grid("make_layout((4,3))")
        self.assertEqual(grid, [[r + 4 * c for c in range(3)] for r in range(4)])

    def ascii_grid(self, out):
        """The table's cells; a wide table's bands of columns are joined back."""
        rows, band = [], -1
        for line in out.splitlines():
            self.assertLessEqual(len(line), 100, "an ASCII drawing fits 100 columns")
            m = re.match(r"^\s*(\d+)\s*\|(.*)\|\s*$", line)
            if m:
                r, cells = int(m.group(1)), [int(c) for c in m.group(2).split("|")]
                if r == 0:
                    band += 1
                if band == 0:
                    self.assertEqual(r, len(rows), "row labels count up")
                    rows.append(cells)
                else:
                    rows[r].extend(cells)
        return rows

    def test_ascii_fits_100_columns(self):
        """A wide grid comes in bands of whole columns, each headed by the columns it shows."""
        for expr, rows, cols in [("make_layout((8,64),LayoutRight)", 8, 64), ("make_layout(200)", 1, 200),
                                 ("(4,1000):(1000,4000000)", 4, 1000),
                                 ("((2,2),(2,2,2)):((1000000000000000,2000000000000000),"
                                  "(4000000000000000,8000000000000000,16000000000000000))", 4, 8)]:
            with self.subTest(expr=expr):
                rc, out, _ = layout(expr, "--format", "ascii")
                self.assertEqual(rc, 0, out)
                self.assertLessEqual(max(map(len, out.splitlines())), 100)
                self.assertIn("columns 0-", out)
                self.assertRegex(out, r"\ncolumns \d+-%d of %d:\n" % (cols - 1, cols))
                grid = self.ascii_grid(out)
                self.assertEqual((len(grid), len(grid[0])), (rows, cols))
        grid = self.ascii_grid(layout("make_layout((8,64),LayoutRight)", "--format", "ascii")[1])
        self.assertEqual(grid, [[64 * r + c for c in range(64)] for r in range(8)])
        # Long lines of notes are wrapped too.
        rc, out, err = tessel("draw", "copy", "--thr", "(16,8):(8,1)", "--val", "(1,8):(0,1)", "--format", "ascii")
        self.assertEqual(rc, 0, err)
        self.assertLessEqual(max(map(len, out.splitlines())), 100, "the README's copy: 520 columns before")
        self.assertIn("columns 0-", out)

    def test_ascii(self):
        rc, out, _ = layout("make_layout((4,3),LayoutRight)", "--format", "ascii")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.ascii_grid(out), [[3 * r + c for c in range(3)] for r in range(4)])
        self.assertIn("(4,3):(3,1)", out)

    def test_ascii_swizzle(self):
        rc, out, _ = layout(SW_EXPR, "--format", "ascii")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.ascii_grid(out), sw333_offsets())

    def test_ascii_hierarchical(self):
        rc, out, _ = layout("make_layout(((2,2),3),LayoutRight)", "--format", "ascii")
        self.assertEqual(rc, 0, out)
        shape, stride = [[2, 2], 3], [[6, 3], 1]
        # cell (r,c) is the layout at coordinate (r,c): mode 0 index r, mode 1 index c
        want = [[eval_layout(shape[0], stride[0], r) + c * stride[1] for c in range(3)] for r in range(4)]
        self.assertEqual(self.ascii_grid(out), want)

    def test_latex(self):
        rc, out, _ = layout(SW_EXPR, "--format", "latex")
        self.assertEqual(rc, 0, out)
        self.assertIn("\\begin{tikzpicture}", out)
        self.assertIn("\\end{tikzpicture}", out)
        self.assertTrue(out.rstrip().endswith("\\end{document}"), out[-200:])
        self.assertIn("\\begin{document}", out)
        fills = [ln for ln in out.splitlines() if ln.startswith("\\filldraw")]
        self.assertEqual(len(fills), 8 * 64)
        grid = {}
        for ln in fills:
            m = re.search(r"\((\d+),(-?\d+)\) rectangle .*\{(\d+)\};$", ln)
            self.assertIsNotNone(m, ln)
            grid[(-int(m.group(2)), int(m.group(1)))] = int(m.group(3))
        want = sw333_offsets()
        self.assertEqual(grid, {(r, c): want[r][c] for r in range(8) for c in range(64)})

    def test_rank1_draws(self):
        for fmt in ("ascii", "svg", "latex"):
            with self.subTest(fmt=fmt):
                self.assertEqual(layout("make_layout(8)", "--format", fmt)[0], 0)

    def test_not_drawable(self):
        for expr in ["size(8:1)", "eval((4,3):(3,1),(2,1))", "idx2crd(16,(3,(2,3)))", "make_layout((2,2,2))",
                     "make_layout((2,3):(1,2),4:6,2:24)", "make_layout((512,512))", "foo(1)"]:
            for fmt in ("ascii", "svg", "latex"):
                with self.subTest(expr=expr, fmt=fmt):
                    rc, out, _ = layout(expr, "--format", fmt)
                    self.assertEqual(rc, 1, out)
                    self.assertEqual(len(out.splitlines()), 1, out)
                    self.assertRegex(out.strip(), ERROR_RE)

    def test_help_examples_work(self):
        """Every `tessel layout ... 'EXPR'` example of `tessel layout --help` succeeds."""
        rc, out, _ = tessel("layout", "--help")
        self.assertEqual(rc, 0)
        examples = re.findall(r"^\s*tessel layout((?: --format \w+)?) '([^']*)'", out, re.M)
        self.assertGreaterEqual(len(examples), 3, out)
        for opts, expr in examples:
            with self.subTest(example=(opts + " " + expr).strip()):
                rc, got, _ = layout(expr, *opts.split())
                self.assertEqual(rc, 0, got[:300])


# ------------------------------------------------------------------ 6. tessel bench gemm

def gpu_present():
    """As scripts/test.sh decides it: nvidia-smi lists a GPU."""
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class BenchGemm(unittest.TestCase):
    """Argument errors exit 2 (usage) before any device is looked at, in every
    build; valid arguments without a GPU (or in a build without CUDA) exit 4."""

    ERRORS = [
        (["--m", "0"], "--m: '0' is zero"),
        (["--m", "1:8:0", "--n", "64", "--k", "64"], "--m: range '1:8:0' has step 0"),
        (["--m", "64", "--n", "-64", "--k", "64"], "--n: '-64' is negative"),
        (["--m", "64", "--n", "64", "--k", "8:1:1"], "--k: range '8:1:1' has start > stop"),
        (["--m", "64", "--n", "64", "--k", "x"], "--k: 'x' is not a positive integer"),
        (["--m", "64", "--n", "64"], "--k is required"),
        (["--m", "64", "--n", "64", "--k", "64", "--impl", "k16"], "--impl: unknown implementation 'k16'"),
        (["--m", "64", "--n", "64", "--k", "64", "--layout", "A:k,B:x"], "--layout: 'A:k,B:x' is not a layout"),
        (["--m", "64", "--n", "64", "--k", "64", "--dtype", "fp64"], "--dtype: 'fp64' is not a type"),
        (["--m", "64", "--n", "64", "--k", "64", "--dtype", "fp32", "--out-dtype", "bf16"],
         "--out-dtype: fp32 inputs take fp32 C and D"),
        (["--m", "64", "--n", "64", "--k", "64", "--impl", "f13"], "--impl: unknown implementation 'f13'"),
        (["--m", "64", "--n", "64", "--k", "64", "--verify", "tier3"], "--verify"),
        (["--m", "64", "--n", "64", "--k", "64", "--iterations", "0"], "--iterations"),
        (["--m", "64", "--n", "64", "--k", "64", "--flush", "write"], "--flush: 'write' is not read or memset"),
        (["--suite", os.path.join(HERE, "data", "no_such_suite.csv")], "--suite: cannot read"),
        (["--m", "64", "--n", "64", "--k", "64", "--batch", "0"], "--batch"),
        (["--grouped", "dense"], "--grouped: 'dense' is not a known group"),
        (["--group-m", "64,128", "--n", "64"], "--k is required with --group-m"),
        (["--m", "64", "--n", "64", "--k", "64", "--out-dtype", "e4m3"], "FP8 is an input type"),
        (["--m", "64", "--n", "64", "--k", "64", "--fp8-fast-accum", "--fp8-promote-every", "2"],
         "--fp8-promote-every: not with --fp8-fast-accum"),
    ]

    def test_tune_refuses_types_it_does_not_tune(self):
        for dtype in ("e4m3", "fp32"):
            with self.subTest(dtype=dtype):
                rc, out, err = tessel("tune", "--suite", "random:1:2", "--dtype", dtype)
                self.assertEqual(rc, 2, err)
                self.assertIn("inputs are not tuned", err)

    def test_argument_errors_exit_2(self):
        for args, message in self.ERRORS:
            with self.subTest(args=args):
                rc, out, err = tessel("bench", "gemm", *args)
                self.assertEqual(rc, 2, err)
                self.assertIn(message, err)
                self.assertEqual(out, "")
                self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_help(self):
        rc, out, _ = tessel("bench", "gemm", "--help")
        self.assertEqual(rc, 0)
        for text in ["--m", "--suite", "--layout", "--impl", "--verify", "--repeat", "ratio = t_cublas / t_impl",
                     "tessel bench gemm --suite", "--flush", "gbytes_per_s", "sm_clock_mhz", "power_w", "--batch",
                     "--group-m", "--grouped moe"]:
            self.assertIn(text, out)

    def test_list_prints_a_suite_that_reads_back(self):
        """--list prints the problems (random draws included) as a suite CSV, on any machine; it reads back."""
        rc, out, err = tessel("bench", "gemm", "--suite", "random:2027:5", "--list")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "group,m,n,k,dtype,out_dtype,layout,alpha,beta")
        self.assertEqual(len(lines), 6)
        self.assertEqual(lines[1], 'odd,29,653,5248,bf16,bf16,"A:k,B:n",1,0')  # the generator's first draw of seed 2027
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "suite.csv")
            with open(path, "w") as f:
                f.write(out)
            rc, again, err = tessel("bench", "gemm", "--suite", path, "--list")
            self.assertEqual((rc, again), (0, out), err)
        rc, out, _ = tessel("bench", "gemm", "--m", "64", "--n", "64", "--k", "64", "--alpha", "0.1", "--beta", "-1.5",
                            "--layout", "all", "--list")
        self.assertEqual(rc, 0)
        self.assertEqual(len(out.splitlines()), 5)
        self.assertIn('cli,64,64,64,bf16,bf16,"A:m,B:k",0.1,-1.5', out)
        rc, out, err = tessel("bench", "gemm", "--m", "64", "--n", "64", "--k", "64", "--batch", "3", "--list")
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("--list: batched and grouped problems are not a suite's rows", err)

    def test_sanitizer_table_parses(self):
        """bench/sanitize.sh's every run (DRY=1 prints them) is arguments the bench takes: each with --list
        exits 0, or for the batched and grouped runs with --list's own refusal (it comes after the parse)."""
        script = os.path.join(os.path.dirname(HERE), "bench", "sanitize.sh")
        p = subprocess.run(["bash", script, "all"], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, DRY="1", TOOLS="memcheck", TESSEL_BIN=TESSEL))
        self.assertEqual(p.returncode, 0, p.stderr)
        runs = [line.split(TESSEL, 1)[1].split() for line in p.stdout.splitlines() if line.startswith("timeout")]
        self.assertGreater(len(runs), 20)
        for args in runs:
            with self.subTest(args=" ".join(args)):
                rc, _, err = tessel(*args, "--list")
                if rc != 0:
                    self.assertEqual(rc, 2)
                    self.assertIn("--list: batched and grouped problems are not a suite's rows", err)

    def test_valid_arguments_without_gpu_exit_4(self):
        if gpu_present():
            self.skipTest("a GPU is present: see test_gpu_run")
        for args in (["--m", "64", "--n", "64", "--k", "64"],
                     ["--suite", os.path.join(HERE, "data", "bench_suite.csv"), "--layout", "all", "--impl", "all"],
                     ["--m", "64", "--n", "64", "--k", "64", "--batch", "3"], ["--grouped", "moe"]):
            with self.subTest(args=args):
                rc, out, err = tessel("bench", "gemm", *args)
                self.assertEqual(rc, 4, err)
                self.assertEqual(out, "")
                self.assertTrue("no CUDA device: tessel bench gemm needs a GPU" in err or "built without CUDA" in err,
                                err)

    def test_gpu_run(self):
        """On a GPU: every layout, cuBLAS verified bit for bit (tier 1) and tier 2, CSV and JSON agree."""
        if not gpu_present():
            self.skipTest("no GPU")
        with tempfile.TemporaryDirectory() as d:
            for tier, flush, order in (("tier1", "memset", "blocks"), ("tier2", "read", "interleaved")):
                csv_path, json_path = os.path.join(d, tier + ".csv"), os.path.join(d, tier + ".json")
                rc, out, err = tessel("bench", "gemm", "--m", "96", "--n", "80", "--k", "72", "--layout", "all",
                                      "--impl", "k11,cublas", "--verify", tier, "--beta", "1", "--iterations", "5",
                                      "--flush", flush, "--order", order, "--csv", csv_path, "--json", json_path,
                                      timeout=300)
                if "built without CUDA" in err:
                    self.skipTest("built without CUDA")
                self.assertEqual(rc, 0, err)
                import csv
                import json
                with open(csv_path, newline="") as f:
                    rows = list(csv.DictReader(f))
                self.assertEqual(len(rows), 8, rows)  # 4 layouts x (cublas, k11)
                for r in rows:
                    self.assertEqual(r["cublas_disposition"], "passed", r)
                    self.assertIn(r["disposition"], {"passed", "not_supported"}, r)
                    self.assertEqual(r["l2_flush"], flush, r)
                    self.assertEqual(r["timing"], order, r)
                    if r["disposition"] == "passed":
                        self.assertGreater(float(r["median_ms"]), 0)
                        self.assertGreater(float(r["ratio"]), 0)
                        # (96*72 + 72*80) * 2 bytes of A and B, 96*80 * 2 of C and again of D (beta 1)
                        self.assertAlmostEqual(float(r["gbytes_per_s"]) * float(r["median_ms"]) * 1e6,
                                               2 * (96 * 72 + 72 * 80 + 2 * 96 * 80), delta=56)
                        for col in ("sm_clock_mhz", "power_w"):  # empty where NVML is not there
                            self.assertTrue(r[col] == "" or float(r[col]) > 0, r)
                with open(json_path) as f:
                    js = json.load(f)
                self.assertEqual(len(js["rows"]), 8)
                self.assertGreater(js["device"]["sm_count"], 0)
                self.assertEqual(js["protocol"]["l2_flush"], flush)
                self.assertEqual(js["protocol"]["timing"], order)


    def test_gpu_order_none_verifies_and_times_nothing(self):
        """On a GPU: --order none (compute-sanitizer runs) verifies every row and leaves the times empty."""
        if not gpu_present():
            self.skipTest("no GPU")
        with tempfile.TemporaryDirectory() as d:
            csv_path = os.path.join(d, "none.csv")
            rc, out, err = tessel("bench", "gemm", "--m", "96", "--n", "80", "--k", "72", "--impl", "k13,cublas",
                                  "--verify", "tier1", "--order", "none", "--csv", csv_path, timeout=300)
            if "built without CUDA" in err:
                self.skipTest("built without CUDA")
            self.assertEqual(rc, 0, err)
            self.assertIn("nothing timed", err)
            import csv
            with open(csv_path, newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), 2, rows)  # cublas, k13
            for r in rows:
                self.assertEqual(r["disposition"], "passed", r)
                self.assertEqual(r["timing"], "none", r)
                for col in ("median_ms", "ratio", "sm_clock_mhz", "power_w"):
                    self.assertEqual(r[col], "", r)

    def test_gpu_batched_stages_exact(self):
        """On a GPU: k15's batched kernel at both of rule 11c's depths, through auto and forced, bit for bit (tier 1).
        The tier-1 world of gemm_test stops at 1000 x 1000 (64 tiles a batch), below the tile per SM that rule
        11c's 3 stages need; here a batch of 144 (whole tiles, D as one tall map) and of 132 (partial tiles,
        D by row stores, K = 100: a partial second k-tile) take them, 16 tiles a batch the 4."""
        if not gpu_present():
            self.skipTest("no GPU")
        import csv
        with tempfile.TemporaryDirectory() as d:
            for batch, m, n, k, stages in (("2", "1536", "1536", "128", "3 stages"), ("2", "1500", "1400", "100",
                                                                                       "3 stages"),
                                           ("3", "512", "512", "128", "4 stages")):
                with self.subTest(m=m, n=n, k=k):
                    csv_path = os.path.join(d, m + ".csv")
                    rc, out, err = tessel("bench", "gemm", "--batch", batch, "--m", m, "--n", n, "--k", k, "--layout",
                                          "all", "--impl", "auto,k15", "--verify", "tier1", "--order", "none",
                                          "--csv", csv_path, timeout=300)
                    if "built without CUDA" in err:
                        self.skipTest("built without CUDA")
                    self.assertEqual(rc, 0, err)
                    with open(csv_path, newline="") as f:
                        rows = list(csv.DictReader(f))
                    self.assertEqual(len(rows), 8, rows)  # 4 layouts x (auto, k15)
                    for r in rows:
                        self.assertEqual(r["disposition"], "passed", r)
                        if r["impl"] == "auto" and "k15 batched" in r["note"]:  # the plan's note (sm_90 only)
                            self.assertIn(stages, r["note"], r)

# ------------------------------------------------------------------ 7. robustness

FUNCS = ["size", "cosize", "rank", "depth", "coalesce", "filter", "composition", "complement", "right_inverse",
         "left_inverse", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "logical_product",
         "zipped_product", "tiled_product", "blocked_product", "raked_product", "tile_to_shape", "make_layout",
         "eval", "idx2crd", "crd2idx"]
SEEDS = [
    "logical_divide((6,20):(20,1),<2,4>)", "eval((4,3):(3,1),(2,1))", "idx2crd(16,(3,(2,3)))",
    "composition((6,2):(8,2),(4,3):(3,1))", "eval(Sw<3,3,3>o((8,64):(64,1)),(5,9))",
    "make_layout((128,64),LayoutRight)", "logical_divide((8,8):(8,1),<2:1,(2,2):(1,4)>)",
    "tile_to_shape((2,2):(1,2),(8,8))", "complement((2,2):(1,6),24)", "zipped_divide((16,16):(16,1),<_,4>)",
]
GARBAGE_ALPHABET = "()<>,:_-0123456789 abcSwoLayoutRight"
NUMBERS = [0, 1, 1, 2, 2, 2, 3, 4, 4, 6, 8, 8, 16, 32, 64, 128, 1000, 65536, 46341, 2147483647, 2147483648,
           99999999999999999999]


def rand_tuple(rng, depth=0):
    if depth > 2 or rng.random() < 0.55:
        return str(rng.choice(NUMBERS))
    return "(" + ",".join(rand_tuple(rng, depth + 1) for _ in range(rng.randint(1, 3))) + ")"


def rand_layout(rng):
    shape = rand_tuple(rng)
    if rng.random() < 0.8:  # mostly congruent strides
        stride = re.sub(r"\d+", lambda _: str(rng.choice(NUMBERS)), shape)
    else:
        stride = rand_tuple(rng)
    return shape + ":" + stride


def rand_arg(rng):
    k = rng.random()
    if k < 0.45:
        return rand_layout(rng)
    if k < 0.65:
        return rand_tuple(rng)
    if k < 0.85:
        elems = [rng.choice(["_", str(rng.choice(NUMBERS)), rand_layout(rng), rand_tuple(rng)])
                 for _ in range(rng.randint(1, 3))]
        return "<" + ",".join(elems) + ">"
    if k < 0.95:
        return "Sw<%d,%d,%d>o(%s)" % (rng.choice([0, 1, 2, 3, 4, 31, 64, 65]), rng.choice([0, 1, 3, 4, 40]),
                                       rng.choice([0, 1, 2, 3, 4, 40, 64]), rand_layout(rng))
    return rng.choice(["LayoutLeft", "LayoutRight", "_"])


def rand_call(rng):
    return "%s(%s)" % (rng.choice(FUNCS), ",".join(rand_arg(rng) for _ in range(rng.choice([1, 1, 2, 2, 2, 3]))))


def mutate(rng, s):
    s = list(s)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        i = rng.randrange(len(s) + 1)
        if op == 0 and s:
            del s[min(i, len(s) - 1)]
        elif op == 1:
            s.insert(i, rng.choice(GARBAGE_ALPHABET))
        elif op == 2:
            s = s[:i]
        elif op == 3 and s:
            j = rng.randrange(len(s))
            s[i:i] = s[j:j + rng.randint(1, 12)]
        elif op == 4:
            s.insert(i, str(rng.choice(NUMBERS)))
        else:
            s.insert(i, rng.choice(["(", ")", "<", ">", ":", ",", "Sw<", "o(", "_", "-", " "]))
    return "".join(s)


def fuzz_lines(rng):
    seeds = list(SEEDS)
    if os.path.exists(GOLDEN):
        with open(GOLDEN, encoding="utf-8") as f:
            golden = [ln.split("\t")[0] for ln in f if ln.strip()]
        seeds += rng.sample(golden, min(300, len(golden)))
    lines = []
    for _ in range(1200):
        lines.append("".join(rng.choice(GARBAGE_ALPHABET) for _ in range(rng.randint(0, 60))))
    for _ in range(1500):
        lines.append(mutate(rng, rng.choice(seeds)))
    for _ in range(1500):
        lines.append(rand_call(rng))
    lines += [
        "(" * 10000,
        "size(" + "(" * 10000 + "8" + ")" * 10000 + ")",
        "size(" + "(" * 10000,
        "logical_divide(8:1,<" + "(" * 10000 + ">)",
        "eval(Sw<3,3,3>o(" + "(" * 5000 + ")," + "1)",
        ")" * 10000, "<" * 10000 + ">" * 10000,
        "size(99999999999999999999)",
        "size(" + "9" * 5000 + ")",
        "eval(8:1," + "1" * 400 + ")",
        "size((" + ",".join(["1"] * 400000) + "))",  # ~800 KB, many leaves
        "make_layout(" + ",".join(["1:1"] * 5000) + ")",  # many arguments (see test_many_arguments_memory)
        "size(" + "".join(rng.choice(GARBAGE_ALPHABET) for _ in range(1 << 20)) + ")",  # 1 MB of garbage
        "x" * (1 << 20),
        "make_layout((2147483647,2147483647))",
        "size((65536,65536):(1,65536))",
        "cosize((46341,46341):(46341,1))",
        "logical_product((65536,65536):(65536,1),(65536,65536):(65536,1))",
        "blocked_product(65536:1,65536:1)",
        "raked_product((2147483647):(2147483647),(2147483647):(2147483647))",
        "complement(2:2147483647,2147483647)",
        "right_inverse((2147483647):(1))", "left_inverse((65536,32768):(32768,1))",
        "eval(Sw<31,0,32>o(8:1),7)", "eval(Sw<64,64,64>o(8:1),7)", "eval(Sw<32,31,32>o(2147483647:1),5)",
        "tile_to_shape(2:1,(2147483647,2147483647))",
        "idx2crd(2147483647,(2147483647,2147483647))",
        "crd2idx((1,1),(2147483647,2147483647),(2147483647,2147483647))",
    ]
    return lines


def random_bytes_lines(rng, n):
    pool = bytes(b for b in range(256) if b not in (10, 13))
    return [bytes(rng.choice(pool) for _ in range(rng.randint(1, 40))) for _ in range(n)]


def svg_panels(svg):
    """{panel name: {(row, col): (thread, value, owners)}} from a `tessel draw` SVG."""
    panels, cells = {}, None
    for line in svg.splitlines():
        m = re.match(r'<g class="panel" data-name="([^"]*)"', line)
        if m:
            cells = panels.setdefault(m.group(1), {})
        m = re.match(r'<g class="cell" data-row="(\d+)" data-col="(\d+)" data-owners="(\d+)"'
                     r'(?: data-t="(\d+)" data-v="(\d+)")?>', line)
        if m and cells is not None:
            r, c, o = int(m.group(1)), int(m.group(2)), int(m.group(3))
            cells[(r, c)] = (int(m.group(4)) if m.group(4) else None, int(m.group(5)) if m.group(5) else None, o)
    return panels


class DrawWgmma(unittest.TestCase):
    """`tessel draw mma` for the sm_90 wgmma atoms (SS and RS), checked against
    the fragment formulas of docs/hardware.md §7.2 (C) and §7.3 (A from registers):
    thread t = lane + 32w, lane = 4g + q; value i."""

    @staticmethod
    def c_cell(t, i):
        w, g, q = t // 32, (t % 32) // 4, t % 4
        return 16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * q + (i & 1)

    @staticmethod
    def a_cell(t, i):
        w, g, q = t // 32, (t % 32) // 4, t % 4
        return 16 * w + g + 8 * ((i >> 1) & 1), 2 * q + (i & 1) + 8 * (i >> 2)

    def draw(self, *args):
        rc, out, err = tessel("draw", "mma", *args)
        self.assertEqual(rc, 0, err)
        return out

    def test_rs_c_and_a(self):
        p = svg_panels(self.draw("SM90_64x64x16_F32BF16BF16_RS"))
        c, a = p["C"], p["A"]
        self.assertEqual((len(c), len(a)), (64 * 64, 64 * 16))
        for t in range(128):
            for i in range(32):
                self.assertEqual(c[self.c_cell(t, i)], (t, i, 1), (t, i))
            for i in range(8):
                self.assertEqual(a[self.a_cell(t, i)], (t, i, 1), (t, i))
        # A few entries written out: thread 37 (warp 1, g 1, q 1), value 5 -> C row 17, column 11.
        self.assertEqual(c[(17, 11)], (37, 5, 1))
        self.assertEqual(a[(25, 10)], (37, 6, 1))  # row 16+1+8, column 2+0+8
        self.assertEqual(c[(63, 63)], (127, 31, 1))
        # B comes from shared memory: every thread holds all of it.
        self.assertTrue(all(o == 128 for _, _, o in p["B"].values()))

    def test_ss_c_at_the_kernels_n(self):
        for n in (128, 256):
            with self.subTest(n=n):
                p = svg_panels(self.draw("SM90_64x%dx16_F32BF16BF16_SS" % n))
                c = p["C"]
                self.assertEqual(len(c), 64 * n)
                for t in (0, 5, 37, 64, 127):
                    for i in (0, 1, 2, 3, n // 2 - 1):
                        self.assertEqual(c[self.c_cell(t, i)], (t, i, 1), (t, i))
                self.assertTrue(all(o == 128 for _, _, o in p["A"].values()), "SS: A from shared memory")

    def test_ascii_list_and_names(self):
        out = self.draw("SM90_64x256x16_F32BF16BF16_SS", "--format", "ascii")
        self.assertLessEqual(max(map(len, out.splitlines())), 100)
        self.assertIn("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", out)
        # The f16 form owns the same elements; tiling over atoms works as for any atom.
        self.assertEqual(svg_panels(self.draw("SM90_64x64x16_F32F16F16_RS"))["C"],
                         svg_panels(self.draw("SM90_64x64x16_F32BF16BF16_RS"))["C"])
        p = svg_panels(self.draw("SM90_64x64x16_F32BF16BF16_SS", "--atoms", "2x1x1"))
        self.assertEqual(p["C"][(64 + 17, 11)], (128 + 37, 5, 1))
        rc, listing, _ = tessel("draw", "list")
        self.assertEqual(rc, 0)
        for name in ("SM90_64x128x16_F32BF16BF16_SS", "SM90_64x128x16_F32BF16BF16_RS", "SM90_64x256x16_F32BF16BF16_SS"):
            self.assertIn(name, listing)
        for bad in ("SM90_64x65x16_F32BF16BF16_SS", "SM90_64x264x16_F32BF16BF16_SS", "SM90_64x64x16_F32BF16BF16_XX"):
            rc, _, err = tessel("draw", "mma", bad)
            self.assertEqual(rc, 1, bad)
            self.assertIn("unknown MMA atom", err)


class Jit(unittest.TestCase):
    """`tessel jit`: the cache of run-time compiled kernels (docs/design.md section 6), on a directory of the test's own."""

    def run_jit(self, cache, *args):
        env = dict(os.environ)
        env["TESSEL_CACHE_DIR"] = cache
        p = subprocess.run([TESSEL, "jit", *args], capture_output=True, text=True, timeout=60, env=env)
        return p.returncode, p.stdout, p.stderr

    def test_list_and_clear(self):
        with tempfile.TemporaryDirectory() as d:
            cache = os.path.join(d, "kernels")
            rc, out, err = self.run_jit(cache, "--list")
            self.assertEqual((rc, out.strip(), err), (0, "cache: " + cache, ""))  # not created yet: empty
            os.makedirs(cache)
            key = "0123456789abcdef"
            with open(os.path.join(cache, key + ".cubin"), "wb") as f:
                f.write(b"x" * 100)
            with open(os.path.join(cache, key + ".cu"), "w") as f:
                f.write("// tessel: a run-time compiled kernel\n// kernel: k13 128x256 bf16 A:k,B:n relu bias col +C\n")
            with open(os.path.join(cache, "." + key + ".cubin.1.0.tmp"), "w") as f:
                f.write("a writer that died")
            with open(os.path.join(cache, "mine.txt"), "w") as f:
                f.write("not the cache's")
            rc, out, _ = self.run_jit(cache, "--list")
            self.assertEqual(rc, 0)
            self.assertIn(key + ".cubin  100 bytes  k13 128x256 bf16 A:k,B:n relu bias col +C", out)
            rc, out, _ = self.run_jit(cache)
            self.assertEqual(rc, 0)
            self.assertIn("1 cached kernels", out)
            self.assertIn("compiler: ", out)
            rc, out, _ = self.run_jit(cache, "--clear")
            self.assertEqual(rc, 0)
            self.assertIn("removed 3 files", out)
            self.assertEqual(os.listdir(cache), ["mine.txt"])  # only the cache's own files go

    def test_help_and_usage(self):
        rc, out, _ = tessel("jit", "--help")
        self.assertEqual(rc, 0)
        self.assertIn("TESSEL_CACHE_DIR", out)
        rc, _, err = tessel("jit", "--bogus")
        self.assertEqual(rc, 2, err)


class Robustness(unittest.TestCase):
    def run_batch_bytes(self, lines, timeout=40):
        data = b"\n".join(lines) + b"\n"
        try:
            rc, out, err = tessel("layout", "--batch", "-", stdin=data, timeout=timeout, binary=True)
        except subprocess.TimeoutExpired:
            self.fail("batch run did not finish within %d s" % timeout)
        self.assertGreaterEqual(rc, 0, "killed by signal %d; stderr: %r" % (-rc, err[-500:]))
        self.assertEqual(rc, 0, err[-500:])
        self.assertEqual(err[-2000:], b"", "nothing on stderr (e.g. sanitizer reports)")
        self.assertTrue(out == b"" or out.endswith(b"\n"))
        got = out.split(b"\n")[:-1]
        exprs = batch_expected(lines)
        self.assertEqual(len(got), len(exprs), "one output line per expression line")
        bad = []
        for line, expr in zip(got, exprs):
            echo, sep, result = line.partition(b"\t")
            if echo != expr or not sep:
                bad.append((expr[:120], "echo mismatch", line[:120]))
                continue
            try:
                text = result.decode("ascii")
            except UnicodeDecodeError:
                bad.append((expr[:120], "non-ASCII result", result[:120]))
                continue
            if text.startswith("error"):
                m = ERROR_RE.match(text)
                if not m or m.group(1) not in KEYWORDS:
                    bad.append((expr[:120], "malformed error line", text[:200]))
            elif not valid_result(text):
                bad.append((expr[:120], "malformed result", text[:200]))
        self.assertEqual(bad[:10], [], "%d bad lines" % len(bad))

    def test_fuzz_batch(self):
        seed = int(os.environ.get("TESSEL_FUZZ_SEED", "20240607"))
        rng = random.Random(seed)
        lines = [ln.encode("ascii") for ln in fuzz_lines(rng)]
        lines += random_bytes_lines(rng, 500)
        rng.shuffle(lines)
        self.run_batch_bytes(lines)

    def test_many_arguments_memory(self):
        """A ~400 KB line of 100000 arguments is rejected in bounded time and memory.

        Peak memory is read with os.wait4 for this child alone.  (A call holds every parsed
        argument as a fixed-capacity value of several KB; without a bound on the argument
        count, 1 MB of input needs over 1 GB and, under a memory limit, ends as
        `error: std::bad_alloc`.)"""
        if not hasattr(os, "wait4"):
            self.skipTest("os.wait4 not available")
        line = ("make_layout(" + ",".join(["1:1"] * 100000) + ")\n").encode("ascii")
        with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout:
            fin.write(line)
            fin.seek(0)
            p = subprocess.Popen([TESSEL, "layout", "--batch", "-"], stdin=fin, stdout=fout, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 30
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid == p.pid:
                    break
                if time.monotonic() > deadline:
                    p.kill()
                    os.wait4(p.pid, 0)
                    p.returncode = -9
                    self.fail("no answer within 30 s")
                time.sleep(0.01)
            p.returncode = os.waitstatus_to_exitcode(status)
            fout.seek(0)
            out = fout.read()
        self.assertEqual(p.returncode, 0)
        self.assertRegex(out.split(b"\t", 1)[1].decode().strip(), ERROR_RE)
        # ru_maxrss is in KiB on Linux, in bytes on macOS
        peak_mib = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
        self.assertLess(peak_mib, 256, "peak memory %.0f MiB for a 400 KB line" % peak_mib)

    def test_garbage_single(self):
        rng = random.Random(7)
        cases = ["(" * 10000, ")" * 100, "size(" + "(" * 10000, "size(99999999999999999999)", "<<<>>>", ":", ",",
                 "Sw<3,3,3>o(", "Sw<99999999999,3,3>o((8,64):(64,1))", "size(" + "1" * 100000 + ")",
                 "make_layout(" + ",".join(["1:1"] * 20000) + ")", "eval(Sw<64,64,64>o(8:1),7)",
                 "\u00e9\u00e8(1)", "size(\x01)", "-", "--", "#", "size(8:1)\tx"]
        cases += ["".join(rng.choice(GARBAGE_ALPHABET) for _ in range(rng.randint(1, 30))) for _ in range(15)]
        cases += [mutate(rng, rng.choice(SEEDS)) for _ in range(15)]
        for expr in cases:
            for opts in ([], ["--format", "svg"]):
                with self.subTest(expr=expr[:80], opts=opts):
                    args = ["layout", *opts, "--", expr]
                    try:
                        rc, out, err = tessel(*args, timeout=10, binary=True)
                    except subprocess.TimeoutExpired:
                        self.fail("hang")
                    self.assertIn(rc, (0, 1), "rc %d, stderr %r" % (rc, err[-300:]))
                    if rc == 1:  # the error on standard error, nothing on standard output
                        self.assertEqual(out, b"")
                        self.assertRegex(err.decode("ascii", "replace").strip(), ERROR_RE)


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
