"""The golden algebra files (tests/data/layout_algebra*.tsv) through Python, 100 %.

Each case is run twice: as text through tessel.evaluate, and through the
Python API (the call taken apart into tessel.<name>(Layout, Tiler, tuple,
...)).  Valid results are compared with the reference checker
tests/data/layout_check.py (same shape, same offset at every index); every
error case must raise tessel.Error, a ValueError whose keyword names a rule.
"""
import sys

import pytest

import tessel
from conftest import DATA, read_cases

sys.path.insert(0, DATA)
import layout_check  # noqa: E402  (the reference checker of tests/data)

VALID = read_cases("layout_algebra.tsv")
ERRORS = read_cases("layout_algebra_errors.tsv")


def split_call(expr):
    """'name(a,b,...)' -> ('name', ['a', 'b', ...]) split at top-level commas."""
    name, _, rest = expr.partition("(")
    assert rest.endswith(")"), expr
    args, depth, start = [], 0, 0
    body = rest[:-1]
    for i, ch in enumerate(body):
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(body[start:i])
            start = i + 1
    args.append(body[start:])
    return name, args


def to_python(arg):
    """One argument of the calculator as a Python value of the API."""
    if arg in ("LayoutLeft", "LayoutRight"):
        return getattr(tessel, arg)
    if arg.startswith("<"):
        _, modes = split_call("t(" + arg[1:-1] + ")")
        return tessel.Tiler(*[None if m == "_" else to_python(m) for m in modes])
    if ":" in arg or arg.startswith("Sw"):
        return tessel.Layout(arg)
    return layout_check.parse_int_tuple(arg)


def as_text(value):
    if isinstance(value, tessel.Layout):
        return str(value)
    return layout_check.fmt(value)


def test_files_are_complete():
    assert len(VALID) > 2000 and len(ERRORS) > 80


def test_valid_through_evaluate():
    failed = [(e, x, tessel.evaluate(e, raise_errors=False)) for e, x in VALID
              if not layout_check.equivalent(x, tessel.evaluate(e, raise_errors=False))]
    assert not failed, "%d of %d failed, first: %r" % (len(failed), len(VALID), failed[:3])


def test_valid_through_the_api():
    failed = []
    for expr, expected in VALID:
        name, args = split_call(expr)
        try:
            got = as_text(getattr(tessel, name)(*[to_python(a) for a in args]))
        except tessel.Error as e:
            got = "error: %s" % e
        if not layout_check.equivalent(expected, got) or got != tessel.evaluate(expr):
            failed.append((expr, expected, got))
    assert not failed, "%d of %d failed, first: %r" % (len(failed), len(VALID), failed[:3])


def test_layout_methods_agree_with_functions():
    """Where the first argument is a layout, L.name(...) is tessel.name(L, ...)."""
    checked = 0
    for expr, _ in VALID[::7]:
        name, args = split_call(expr)
        values = [to_python(a) for a in args]
        if not isinstance(values[0], tessel.Layout) or name in ("make_layout", ):
            continue
        assert getattr(values[0], name)(*values[1:]) == getattr(tessel, name)(*values), expr
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("expr", [e for e, _ in ERRORS])
def test_error_case_raises(expr):
    with pytest.raises(tessel.Error) as text_error:
        tessel.evaluate(expr)
    assert isinstance(text_error.value, ValueError)
    keyword = text_error.value.keyword
    assert keyword and keyword != "ok" and str(text_error.value).startswith(keyword + ": ")
    assert "error: %s" % text_error.value == tessel.evaluate(expr, raise_errors=False)
    name, args = split_call(expr)
    if name not in tessel.__all__:
        return  # an unknown function: there is no Python name to call (tessel.evaluate raised above)
    try:
        values = [to_python(a) for a in args]
    except (tessel.Error, ValueError):
        return  # an argument that is itself invalid (a literal the calculator rejects)
    with pytest.raises(tessel.Error) as api_error:
        getattr(tessel, name)(*values)
    assert str(api_error.value) == str(text_error.value)
    assert api_error.value.keyword == keyword
