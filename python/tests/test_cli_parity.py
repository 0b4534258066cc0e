"""Python and the command line print the same thing (skipped without a built CLI).

tessel.evaluate(EXPR) is `tessel layout EXPR`'s standard output without its
final newline, for results and errors, in every --format; tessel.draw(...)
is `tessel draw ...`'s output, and its errors are the CLI's message.
"""
import subprocess

import pytest

import tessel
from conftest import read_cases

EXPRS = [e for e, _ in read_cases("layout_algebra.tsv") + read_cases("layout_algebra_errors.tsv") +
         read_cases("robustness.tsv")]
MMA = "SM80_16x8x16_F32BF16BF16F32_TN"


def run(cli, *args, stdin=None):
    return subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, timeout=120)


def test_every_expression_prints_the_same(cli):
    out = run(cli, "layout", "--batch", "-", stdin="".join(e + "\n" for e in EXPRS))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.rstrip("\n").split("\n")
    assert len(lines) == len(EXPRS)
    for expr, line in zip(EXPRS, lines):
        assert line == expr + "\t" + tessel.evaluate(expr, raise_errors=False)


@pytest.mark.parametrize("expr", [
    "Sw<3,3,3>o((8,64):(64,1))", "make_layout((4,3),LayoutRight)", "logical_divide((6,20):(20,1),<2,4>)", "8:2",
    "size(8:1)", "(2,2,2):(1,2,4)", "make_layout((512,512))", "composition((4,2):(2,1),(4,3):(12,2))"
])
@pytest.mark.parametrize("fmt", ["text", "ascii", "svg", "latex"])
def test_formats_print_the_same(cli, expr, fmt):
    out = run(cli, "layout", "--format", fmt, expr)
    got = tessel.evaluate(expr, format=fmt, raise_errors=False)
    # The CLI prints a result on standard output and an error on standard error.
    assert got + "\n" == (out.stdout if out.returncode == 0 else out.stderr)
    if out.returncode != 0:
        assert out.stdout == ""
        with pytest.raises(tessel.Error):
            tessel.evaluate(expr, format=fmt)


@pytest.mark.parametrize("args,kwargs", [
    (["mma", MMA], dict(name=MMA)),
    (["mma", MMA, "--atoms", "2x2x1"], dict(name=MMA, atoms="2x2x1")),
    (["mma", "SM80_16x8x8_F32TF32TF32F32_TN", "--atoms", "1x2x2"], dict(name="SM80_16x8x8_F32TF32TF32F32_TN",
                                                                          atoms="1x2x2")),
    (["copy", "--thr", "(16,8):(8,1)", "--val", "(1,8):(0,1)"], dict(thr="(16,8):(8,1)", val="(1,8):(0,1)")),
    (["atom", "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "--operand", "DST"],
     dict(name="ldmatrix.sync.aligned.m8n8.x4.shared.b16", operand="DST")),
    (["atom", "ldmatrix.sync.aligned.m8n8.x4.shared.b16"], dict(name="ldmatrix.sync.aligned.m8n8.x4.shared.b16")),
    (["tv", "((4,8),(2,2)):((32,1),(16,8))", "--tile", "16x8"], dict(name="((4,8),(2,2)):((32,1),(16,8))",
                                                                       tile="16x8")),
    (["list"], dict()),
])
@pytest.mark.parametrize("fmt", ["svg", "ascii"])
def test_drawings_are_the_same(cli, args, kwargs, fmt):
    kind = args[0]
    extra = [] if kind == "list" else ["--format", fmt]
    out = run(cli, "draw", *args, *extra)
    assert out.returncode == 0, out.stderr
    kwargs = dict(kwargs)
    name = kwargs.pop("name", None)
    assert tessel.draw(kind, name, format=fmt, **kwargs) == out.stdout


@pytest.mark.parametrize("args,call", [
    (["mma", "SM80_NOPE"], lambda: tessel.draw("mma", "SM80_NOPE")),
    (["mma", MMA, "--atoms", "2x2"], lambda: tessel.draw("mma", MMA, atoms="2x2")),
    (["mma", MMA, "--atoms", "0x1x1"], lambda: tessel.draw_mma(MMA, 0, 1, 1)),
    (["copy", "--thr", "(16,8):(8,1)", "--val", "Sw<1,0,1>o((2,2):(1,2))"],
     lambda: tessel.draw_copy("(16,8):(8,1)", "Sw<1,0,1>o((2,2):(1,2))")),
    (["copy", "--thr", "(16,8", "--val", "(1,8):(0,1)"], lambda: tessel.draw_copy("(16,8", "(1,8):(0,1)")),
    (["atom", "ldmatrix.nope"], lambda: tessel.draw_atom("ldmatrix.nope")),
    (["tv", "((4,8),(2,2)):((32,1),(16,8))", "--tile", "8x8"],
     lambda: tessel.draw_tv("((4,8),(2,2)):((32,1),(16,8))", (8, 8))),
    (["tv", "4:1", "--tile", "16x"], lambda: tessel.draw_tv("4:1", "16x")),
])
def test_drawing_errors_are_the_same(cli, args, call):
    out = run(cli, "draw", *args)
    assert out.returncode != 0 and out.stdout == ""
    with pytest.raises(tessel.Error) as e:
        call()
    assert "error: %s\n" % e.value == out.stderr
