"""The error model and bad inputs: every failure raises, nothing crashes."""
import subprocess
import sys

import pytest

import tessel
from conftest import read_cases

ROBUSTNESS = read_cases("robustness.tsv")


def _nested(depth):
    """1 inside `depth` one-element tuples."""
    x = 1
    for _ in range(depth):
        x = (x, )
    return x


def test_error_is_a_value_error_naming_the_rule():
    with pytest.raises(ValueError) as e:
        tessel.composition(tessel.Layout("(4,2):(2,1)"), tessel.Layout("(4,3):(12,2)"))
    err = e.value
    assert isinstance(err, tessel.Error)
    assert err.keyword == "shape-divisibility"
    assert str(err) == "shape-divisibility: extent 3 of B at mode 0 of coalesce(A) is not divisible by 2"
    assert err.expression == "composition((4,2):(2,1),(4,3):(12,2))"


@pytest.mark.parametrize("expr,expected", ROBUSTNESS)
def test_robustness_cases_exact(expr, expected):
    """tests/data/robustness.tsv holds the command line's exact output for each input."""
    assert tessel.evaluate(expr, raise_errors=False) == expected
    if expected.startswith("error: "):
        with pytest.raises(tessel.Error) as e:
            tessel.evaluate(expr)
        assert "error: " + str(e.value) == expected
        assert e.value.keyword == expected.split(":")[1].strip()
    else:
        assert tessel.evaluate(expr) == expected


def test_rule_keywords():
    cases = {
        "size(8:1,2)": "arity",
        "composition((4,3):(3,1))": "arity",
        "size(8:1": "syntax",
        "complemnt(8:1)": "syntax",
        "make_layout((4,3),(1,2,3))": "type",
        "complement((4,2):(1,2))": "non-injective",
        "eval(8:1,9)": "coordinate-range",
        "size(99999999999999999999)": "value-range",
    }
    for expr, keyword in cases.items():
        with pytest.raises(tessel.Error) as e:
            tessel.evaluate(expr)
        assert e.value.keyword == keyword, (expr, str(e.value))


@pytest.mark.parametrize("call", [
    lambda: tessel.size(-3),
    lambda: tessel.size(2**63),
    lambda: tessel.size(10**30),
    lambda: tessel.size(()),
    lambda: tessel.size(_nested(60)),  # deeper than the 47 levels a value can hold
    lambda: tessel.composition(tessel.Layout("4:1")),
    lambda: tessel.composition(tessel.Layout("4:1"), "2:1,3:1"),
    lambda: tessel.composition("4:1)", "(2:1"),
    lambda: tessel.composition(*([tessel.Layout("4:1")] * 40)),
    lambda: tessel.size(),
    lambda: tessel.eval(tessel.Layout("4:1"), 4),
    lambda: tessel.Layout("(4,3)"),
    lambda: tessel.Layout("size(8:1)"),
    lambda: tessel.Layout(""),
    lambda: tessel.Layout("\x00"),
    lambda: tessel.Layout("x" * 1_000_000),
    lambda: tessel.Layout("(" * 100_000 + "1" + ")" * 100_000 + ":1"),
    lambda: tessel.Layout((4, 3), (1, 2, 3)),
    lambda: tessel.Layout((0, 3), (1, 0)),
    lambda: tessel.Layout((2**62, 4)),
    lambda: tessel.Layout((8, 8), (8, 1), swizzle=(3, 3, 99)),
    lambda: tessel.logical_divide(tessel.Layout("8:1"), tessel.Tiler(0)),
    lambda: tessel.make_layout((4, 3), "Layout"),
    lambda: tessel.evaluate(""),
    lambda: tessel.evaluate("\ufeffsize(4)"),
    lambda: tessel.evaluate("size(\u00e9)"),
    lambda: tessel.Layout(tuple(range(1, 300)), tuple(range(1, 300))),
    lambda: tessel.Layout("(4,4):(1,4)").draw("svg") and tessel.Layout("(2,2,2):(1,2,4)").draw("svg"),
    lambda: tessel.evaluate("make_layout((512,512))", format="ascii"),
    lambda: tessel.evaluate("size(4)", format="svg"),
    lambda: tessel.draw_mma("SM80_NOPE"),
    lambda: tessel.draw_mma("SM80_16x8x16_F32BF16BF16F32_TN", 0, 1, 1),
    lambda: tessel.draw_mma("SM80_16x8x16_F32BF16BF16F32_TN", 65, 1, 1),
    lambda: tessel.draw_copy("(16,8):(8,1)", "Sw<1,0,1>o((2,2):(1,2))"),
    lambda: tessel.draw_copy("(16,8):(8,1)", "size(4)"),
    lambda: tessel.draw_atom("ldmatrix.nope"),
    lambda: tessel.draw_tv("((4,8),(2,2)):((32,1),(16,8))", "16x"),
    lambda: tessel.draw_tv("((4,8),(2,2)):((32,1),(16,8))", (8, 8)),
    lambda: tessel.draw("nope"),
])
def test_bad_values_raise_tessel_error(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("call", [
    lambda: tessel.size(1.5),
    lambda: tessel.size(True),
    lambda: tessel.size(None),
    lambda: tessel.size({"a": 1}),
    lambda: tessel.size((1, "2")),
    lambda: tessel.Layout(None),
    lambda: tessel.Layout((4, 3), 2.0),
    lambda: tessel.Layout("4:1", (1, )),
    lambda: tessel.Layout((8, 8), (8, 1), swizzle=3),
    lambda: tessel.evaluate(42),
    lambda: tessel.evaluate(b"size(4)"),
    lambda: tessel.evaluate("size(\udcff)"),
    lambda: tessel.draw_mma(None),
    lambda: tessel.draw_tv(3, "16x8"),
    lambda: tessel.draw("mma"),
    lambda: tessel.draw("copy", thr="(16,8):(8,1)"),
    lambda: tessel.Tiler(),
    lambda: tessel.Tiler(2, 1.5),
])
def test_bad_types_raise(call):
    with pytest.raises((TypeError, ValueError, UnicodeError)):
        call()


def test_self_referential_list_raises():
    loop = [1]
    loop.append(loop)
    with pytest.raises(tessel.Error) as e:
        tessel.size(loop)
    assert e.value.keyword == "capacity"


def test_evaluate_format_checks_its_argument():
    with pytest.raises(ValueError):
        tessel.evaluate("size(4)", format="png")
    with pytest.raises(ValueError):
        tessel.draw("mma", "SM80_16x8x16_F32BF16BF16F32_TN", format="latex")


def test_random_inputs_never_crash():
    """A small fuzz run of the algebra in a child process: a crash would be a signal, not an exception.

    (The GEMMs and attention take tensors, not text: python/tests/test_gemm.py and test_attention.py test
    their errors.)"""
    code = r"""
import random, tessel
rng = random.Random(14)
alphabet = "()<>,:_0123456789 SwoLayoutRightsizecompositon"
names = [n for n in tessel.__all__ if n[0].islower() and not n.startswith(("draw", "gemm", "has_", "attention"))] + ["nope"]
for i in range(20000):
    text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
    tessel.evaluate(text, raise_errors=False)
    try:
        getattr(tessel, rng.choice(names[:-1]))(*[text] * rng.randint(0, 3))
    except (ValueError, TypeError):  # tessel.Error is a ValueError
        pass
    try:
        tessel.Layout(text)
    except tessel.Error:
        pass
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"
