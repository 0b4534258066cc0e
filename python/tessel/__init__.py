"""tessel's layout algebra from Python (docs/python.md).

Every operation of the calculator ``tessel layout`` is a function here with
the same name, the same results and the same errors: the arguments are
written in the calculator's syntax and evaluated by the library's own
calculator (src/calc, through the extension ``tessel._tessel``), so there is
no second implementation of the algebra.

    >>> import tessel
    >>> A = tessel.Layout((6, 20), (20, 1))
    >>> tessel.logical_divide(A, tessel.Tiler(2, 4))
    Layout('((2,3),(4,5)):((20,40),(1,4))')

A failure raises :class:`tessel.Error` (a ``ValueError``) whose message is what
the command line prints after ``error: ``, e.g.
``shape-divisibility: extent 3 of B at mode 0 of coalesce(A) is not divisible by 2``;
``Error.keyword`` is the rule that was broken.
"""
import operator as _operator

from . import _tessel
from .attention import attention
from .gemm import GemmError, gemm, gemm_batched, gemm_grouped, gemm_plan, has_gemm

# The project's version, compiled into the extension from CMakeLists.txt (as `tessel --version`).
__version__ = _tessel.__version__

# `from tessel import *` takes every public name except `eval` and `filter`, which would
# shadow Python's built-ins: those stay tessel.eval and tessel.filter.
__all__ = [
    "Error", "Layout", "Tiler", "Drawing", "LayoutLeft", "LayoutRight", "MAX_DRAW_CELLS", "evaluate", "draw",
    "draw_mma", "draw_copy", "draw_atom", "draw_tv", "draw_list", "size", "rank", "depth", "cosize", "coalesce",
    "composition", "complement", "right_inverse", "left_inverse", "logical_divide", "zipped_divide", "tiled_divide",
    "flat_divide", "logical_product", "zipped_product", "tiled_product", "blocked_product", "raked_product",
    "tile_to_shape", "make_layout", "idx2crd", "crd2idx", "gemm", "gemm_batched", "gemm_grouped", "gemm_plan",
    "GemmError", "has_gemm", "attention"
]

# The largest grid that a layout drawing accepts (calc::kMaxDrawCells).
MAX_DRAW_CELLS = _tessel.max_draw_cells


class Error(ValueError):
    """A calculator or drawing failure.

    ``str(e)`` is the message that the command line prints after ``error: ``
    (for the calculator: ``KEYWORD: message``).  Attributes:

    * ``keyword``: the broken rule (``shape-divisibility``, ``arity``, ``syntax``,
      ...; docs/algebra.md §13), or None for a drawing's argument error;
    * ``expression``: the calculator expression that failed, or None.
    """

    def __init__(self, message, keyword=None, expression=None):
        super().__init__(message)
        self.keyword = keyword
        self.expression = expression


def _fail(cli_text, expression):
    """Raises the Error of a calculator line ``error: KEYWORD: message``."""
    message = cli_text[len("error: "):] if cli_text.startswith("error: ") else cli_text
    keyword = message.split(":", 1)[0] if ":" in message else None
    raise Error(message, keyword, expression)


# ---------------------------------------------------------------------------- arguments


class _Major:
    """LayoutLeft or LayoutRight: the second argument of make_layout(SHAPE, MAJOR)."""
    __slots__ = ("_name", )

    def __init__(self, name):
        self._name = name

    def __str__(self):
        return self._name

    def __repr__(self):
        return "tessel." + self._name


LayoutLeft = _Major("LayoutLeft")
LayoutRight = _Major("LayoutRight")

# Deeper than this, a tuple is not written out (the calculator stops at 24 levels).
_MAX_WRITTEN_DEPTH = 64


def _tuple_text(x, what, depth=0):
    """An integer or (nested) tuple/list of integers in the calculator's syntax."""
    if isinstance(x, (tuple, list)):
        if depth >= _MAX_WRITTEN_DEPTH:  # the calculator's own message for a too-deep tuple
            too_deep = "(" * _MAX_WRITTEN_DEPTH + "1" + ")" * _MAX_WRITTEN_DEPTH
            _fail(_tessel.evaluate(too_deep)[1], None)
        return "(" + ",".join(_tuple_text(e, what, depth + 1) for e in x) + ")"
    if isinstance(x, bool):
        raise TypeError("%s: a bool is not an integer of the calculator" % what)
    try:
        return str(_operator.index(x))
    except TypeError:
        raise TypeError("%s: expected an integer or a tuple of integers, got %s" % (what, type(x).__name__)) from None


def _one_argument(text, what):
    """Calculator text given as a str argument: it must be one argument (no ',' outside brackets)."""
    depth = 0
    for ch in text:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if depth < 0 or (depth == 0 and ch == ","):
            raise Error("syntax: %s %r is not one argument of the calculator" % (what, text), "syntax")
    return text


def _argument_text(x, what):
    if isinstance(x, Layout):
        return x._text
    if isinstance(x, (Tiler, _Major)):
        return str(x)
    if isinstance(x, str):
        return _one_argument(x, what)
    if isinstance(x, (tuple, list)) or hasattr(x, "__index__"):
        return _tuple_text(x, what)
    raise TypeError("%s: expected a Layout, Tiler, integer, tuple of integers, LayoutLeft/LayoutRight or calculator "
                    "text, got %s" % (what, type(x).__name__))


def _read_value(text):
    """An integer or integer tuple as the calculator prints it: int, or nested tuples of ints."""
    stack = [[]]
    number = None
    for ch in text:
        if "0" <= ch <= "9":
            number = (number or 0) * 10 + (ord(ch) - 48)
            continue
        if number is not None:
            stack[-1].append(number)
            number = None
        if ch == "(":
            stack.append([])
        elif ch == ")":
            done = tuple(stack.pop())
            stack[-1].append(done)
    if number is not None:
        stack[-1].append(number)
    return stack[0][0]


def _evaluate(expr):
    """Evaluates one calculator expression: a Layout, an int or a tuple; raises Error."""
    ok, text, _keyword, layout = _tessel.evaluate(expr)
    if not ok:
        _fail(text, expr)
    if layout is not None:
        return Layout._wrap(layout)
    return _read_value(text)


def _call(name, args):
    texts = [_argument_text(a, "argument %d of %s" % (i + 1, name)) for i, a in enumerate(args)]
    return _evaluate("%s(%s)" % (name, ",".join(texts)))


# ---------------------------------------------------------------------------- Layout and Tiler


class Layout:
    """A layout ``SHAPE:STRIDE``, or a swizzled layout ``Sw<B,M,S>o(SHAPE:STRIDE)``.

    * ``Layout("(4,3):(3,1)")``: the calculator's syntax (any expression whose
      result is a layout, e.g. ``"Sw<3,3,3>o((8,64):(64,1))"``);
    * ``Layout((4, 3), (3, 1))``: shape and stride as integers or nested tuples;
    * ``Layout((4, 3))`` or ``Layout((4, 3), tessel.LayoutRight)``: compact
      strides (make_layout; column-major by default);
    * ``swizzle=(B, M, S)`` wraps any of these in ``Sw<B,M,S>``.

    ``str()`` prints it as the calculator does, ``repr()`` as a constructor
    call; ``L(i)`` or ``L(i, j)`` evaluates it (``eval``); every calculator
    operation whose first argument is a layout is also a method.  Layouts are
    immutable and compare (and hash) by their printed form.
    """
    __slots__ = ("_c", "_text")

    def __init__(self, shape, stride=None, *, swizzle=None):
        if isinstance(shape, Layout):
            if stride is not None:
                raise TypeError("Layout(layout) takes no stride")
            expr = shape._text
        elif isinstance(shape, str):
            if stride is not None:
                raise TypeError("Layout(text) takes no stride: write SHAPE:STRIDE in the text")
            expr = shape
        else:
            shape_text = _tuple_text(shape, "shape")
            if stride is None:
                expr = "make_layout(%s)" % shape_text
            elif isinstance(stride, _Major):
                expr = "make_layout(%s,%s)" % (shape_text, stride)
            else:
                expr = shape_text + ":" + _tuple_text(stride, "stride")
        ok, text, _keyword, c = _tessel.evaluate(expr)
        if not ok:
            _fail(text, expr)
        if c is None:
            raise Error("type: %r is %s, not a layout (write SHAPE:STRIDE, or Layout(shape) for compact strides)" %
                        (expr, text), "type", expr)
        if swizzle is not None:
            if c.swizzle() is not None:
                raise Error("type: %s is already swizzled" % text, "type", expr)
            if not isinstance(swizzle, (tuple, list)) or len(swizzle) != 3:
                raise TypeError("swizzle: expected (B, M, S)")
            b, m, s = (_tuple_text(v, "swizzle") for v in swizzle)
            expr = "Sw<%s,%s,%s>o(%s)" % (b, m, s, text)
            ok, text, _keyword, c = _tessel.evaluate(expr)
            if not ok:
                _fail(text, expr)
        self._c = c
        self._text = text

    @classmethod
    def _wrap(cls, c):
        self = object.__new__(cls)
        self._c = c
        self._text = c.text()
        return self

    @property
    def shape(self):
        """The shape: an int, or nested tuples of ints."""
        return self._c.shape()

    @property
    def stride(self):
        """The stride, congruent with the shape."""
        return self._c.stride()

    @property
    def swizzle(self):
        """(B, M, S) of a swizzled layout, None for a plain one."""
        return self._c.swizzle()

    def __str__(self):
        return self._text

    def __repr__(self):
        return "Layout(%r)" % self._text

    def __eq__(self, other):
        if not isinstance(other, Layout):
            return NotImplemented
        return self._text == other._text

    def __hash__(self):
        return hash(self._text)

    def __call__(self, *coord):
        """The offset of a 1-D index, a coordinate tuple, or one coordinate per mode (``eval``)."""
        if len(coord) == 1:
            return _call("eval", (self, coord[0]))
        return _call("eval", (self, coord))

    def __reduce__(self):
        return (Layout, (self._text, ))

    def draw(self, format="svg"):
        """The drawing of ``tessel layout --format FORMAT`` (svg, ascii or latex); raises Error
        for a layout of rank above 2 or with more than MAX_DRAW_CELLS cells."""
        return evaluate(self._text, format=format)

    def _repr_svg_(self):
        """The SVG drawing of a rank-1 or rank-2 layout (for notebooks); None when it cannot be drawn."""
        return self._c.svg()


class Tiler:
    """A tiler ``<T0,T1,...>``: each mode an integer, a Layout, or None for ``_`` (leave the mode).

    ``tessel.logical_divide(A, tessel.Tiler(2, 4))`` is ``logical_divide(A,<2,4>)``.
    """
    __slots__ = ("modes", )

    def __init__(self, *modes):
        if not modes:
            raise TypeError("a Tiler needs at least one mode")
        self.modes = modes
        str(self)  # a mode of the wrong type fails here, not where the tiler is used

    def __str__(self):
        texts = []
        for i, m in enumerate(self.modes):
            what = "mode %d of the tiler" % i
            if m is None or m == "_":
                texts.append("_")
            elif isinstance(m, (Layout, str)):
                texts.append(_argument_text(m, what))
            else:
                texts.append(_tuple_text(m, what))
        return "<" + ",".join(texts) + ">"

    def __repr__(self):
        return "Tiler(%s)" % ", ".join("None" if m is None else repr(m) for m in self.modes)


# ---------------------------------------------------------------------------- the operations

_OPERATIONS = {
    "size": "size(L or TUPLE): the number of coordinates (the product of the shape)",
    "rank": "rank(L or TUPLE): the number of top-level modes",
    "depth": "depth(L or TUPLE): the nesting depth",
    "cosize": "cosize(L): one past the largest offset",
    "coalesce": "coalesce(L[, PROFILE]): merge modes where the function allows",
    "filter": "filter(L[, PROFILE]): coalesce after dropping stride-0 and extent-1 modes",
    "composition": "composition(A, B or TILER): A o B",
    "complement": "complement(L[, COTARGET]): the layout that fills what L leaves out",
    "right_inverse": "right_inverse(L)",
    "left_inverse": "left_inverse(L)",
    "logical_divide": "logical_divide(A, B or TILER)",
    "zipped_divide": "zipped_divide(A, B or TILER)",
    "tiled_divide": "tiled_divide(A, B or TILER)",
    "flat_divide": "flat_divide(A, B or TILER)",
    "logical_product": "logical_product(A, B or TILER)",
    "zipped_product": "zipped_product(A, B or TILER)",
    "tiled_product": "tiled_product(A, B or TILER)",
    "blocked_product": "blocked_product(A, B)",
    "raked_product": "raked_product(A, B)",
    "tile_to_shape": "tile_to_shape(L, TARGET_SHAPE)",
    "make_layout": "make_layout(SHAPE[, LayoutLeft|LayoutRight]) or make_layout(L0, L1, ...): concatenation",
    "eval": "eval(L, COORD): the offset of a 1-D index or a coordinate",
    "idx2crd": "idx2crd(INDEX, SHAPE): the natural coordinate of an index",
    "crd2idx": "crd2idx(COORD, SHAPE, STRIDE): the offset of a coordinate",
}


def _operation(name, doc):

    def operation(*args):
        return _call(name, args)

    operation.__name__ = operation.__qualname__ = name
    operation.__doc__ = (doc + ".\n\nThe calculator's `" + name + "` (docs/algebra.md); arguments: Layout, Tiler, "
                         "integers, tuples, LayoutLeft/LayoutRight or calculator text.  Raises tessel.Error.")
    return operation


def _method(name):

    def method(self, *args):
        return _call(name, (self, ) + args)

    method.__name__ = name
    method.__qualname__ = "Layout." + name
    method.__doc__ = "%s(self, ...): see tessel.%s." % (name, name)
    return method


for _name, _doc in _OPERATIONS.items():
    globals()[_name] = _operation(_name, _doc)
    if _name not in ("make_layout", "idx2crd", "crd2idx"):
        setattr(Layout, _name, _method(_name))
del _name, _doc

# ---------------------------------------------------------------------------- evaluate

_FORMATS = ("text", "ascii", "svg", "latex")


def evaluate(expr, format="text", *, raise_errors=True):
    """What ``tessel layout [--format FORMAT] EXPR`` prints, without the final newline.

    A failure raises Error (its message is the printed line after ``error: ``);
    with ``raise_errors=False`` the line ``error: KEYWORD: message`` is returned
    instead, as ``tessel layout --batch`` prints it.
    """
    if not isinstance(expr, str):
        raise TypeError("evaluate: expr must be a str, got %s" % type(expr).__name__)
    if format not in _FORMATS:
        raise ValueError("evaluate: format must be one of %s, not %r" % (", ".join(_FORMATS), format))
    ok, out = _tessel.render(expr, format)
    if out.endswith("\n"):
        out = out[:-1]
    if not ok and raise_errors:
        _fail(out, expr)
    return out


# ---------------------------------------------------------------------------- drawings


class Drawing:
    """A thread-value drawing (``tessel draw``): ``.svg``, ``.ascii``, ``.title``, ``.notes``.

    In a notebook it draws itself (``_repr_svg_``).  Made by draw_mma,
    draw_copy, draw_atom and draw_tv.
    """
    __slots__ = ("_c", "svg", "_ascii")

    def __init__(self, built):
        ok, c = built
        if not ok:
            raise Error(c)
        ok, svg = c.svg()
        if not ok:
            raise Error(svg)
        self._c = c
        self.svg = svg
        self._ascii = None

    @property
    def ascii(self):
        """The text tables of ``tessel draw --format ascii``."""
        if self._ascii is None:
            ok, text = self._c.ascii()
            if not ok:
                raise Error(text)
            self._ascii = text
        return self._ascii

    @property
    def title(self):
        return self._c.title

    @property
    def notes(self):
        return list(self._c.notes)

    def _repr_svg_(self):
        return self.svg

    def __repr__(self):
        return "<tessel.Drawing %r>" % self.title


def _layout_expr(x, what):
    if isinstance(x, Layout):
        return x._text
    if isinstance(x, str):
        return x
    raise TypeError("%s: expected a Layout or calculator text, got %s" % (what, type(x).__name__))


def _dims_text(x, what):
    if isinstance(x, str):
        return x
    if isinstance(x, (tuple, list)):
        return "x".join(_tuple_text(v, what) for v in x)
    raise TypeError("%s: expected 'RxC' text or a tuple of integers, got %s" % (what, type(x).__name__))


def _str_arg(x, what):
    if not isinstance(x, str):
        raise TypeError("%s: expected a str, got %s" % (what, type(x).__name__))
    return x


def draw_mma(atom, am=1, an=1, ak=1):
    """``tessel draw mma ATOM --atoms AMxANxAK``: A, B and C of an MMA atom tiled over (am, an, ak) atoms."""
    atoms = "x".join(_tuple_text(v, "atoms") for v in (am, an, ak))
    return Drawing(_tessel.drawing_mma(_str_arg(atom, "atom"), atoms))


def draw_copy(thr, val):
    """``tessel draw copy --thr THR --val VAL``: make_tiled_copy(thr, val) over its copy tile."""
    return Drawing(_tessel.drawing_copy(_layout_expr(thr, "thr"), _layout_expr(val, "val")))


def draw_atom(instruction, operand=None):
    """``tessel draw atom INSTRUCTION [--operand OPERAND]``: an instruction's operand layouts."""
    operand = "" if operand is None else _str_arg(operand, "operand")
    return Drawing(_tessel.drawing_atom(_str_arg(instruction, "instruction"), operand))


def draw_tv(layout, tile):
    """``tessel draw tv LAYOUT --tile RxC``: any (thread, value) layout over an R x C tile
    (``tile`` as ``"16x8"`` or ``(16, 8)``)."""
    return Drawing(_tessel.drawing_tv(_layout_expr(layout, "layout"), _dims_text(tile, "tile")))


def draw_list():
    """What ``tessel draw list`` prints: the MMA atoms and instruction layouts that draw knows."""
    return _tessel.drawing_names()


_DRAW_KINDS = ("mma", "copy", "atom", "tv", "list")


def draw(kind, name=None, *, atoms="1x1x1", operand=None, thr=None, val=None, tile=None, format="svg"):
    """What ``tessel draw KIND ...`` prints, with the command line's arguments:

    * ``draw("mma", ATOM, atoms="2x2x1")``
    * ``draw("copy", thr="(16,8):(8,1)", val="(1,8):(0,1)")``
    * ``draw("atom", INSTRUCTION, operand="DST")``
    * ``draw("tv", LAYOUT, tile="16x8")``
    * ``draw("list")``

    ``format`` is ``"svg"`` (default) or ``"ascii"``.  Raises Error with the
    command line's message where it would fail, TypeError for a missing argument.
    """
    if kind not in _DRAW_KINDS:
        raise Error("unknown drawing %r (expected mma, copy, atom, tv or list)" % (kind, ))
    if format not in ("svg", "ascii"):
        raise ValueError("draw: format must be svg or ascii, not %r" % (format, ))
    if kind == "list":
        return draw_list()
    if kind in ("mma", "atom", "tv") and name is None:
        raise TypeError("draw(%r, ...) needs its %s argument" % (kind, {
            "mma": "ATOM",
            "atom": "INSTRUCTION",
            "tv": "LAYOUT"
        }[kind]))
    if kind == "mma":
        d = Drawing(_tessel.drawing_mma(_str_arg(name, "atom"), _dims_text(atoms, "atoms")))
    elif kind == "copy":
        if thr is None or val is None:
            raise TypeError("draw('copy', ...) needs thr= and val=")
        d = draw_copy(thr, val)
    elif kind == "atom":
        d = draw_atom(name, operand)
    else:
        if tile is None:
            raise TypeError("draw('tv', ...) needs tile=")
        d = draw_tv(name, tile)
    return d.svg if format == "svg" else d.ascii
