"""Type stubs of the extension tessel._tessel (python/src/tessel_ext.cpp, gemm_ext.cpp).

The package `tessel` wraps this module; failures come back as values, not
exceptions.  The names below `has_gemm` exist only in a build with the GEMMs
(`has_gemm` is then True).
"""
from typing import List, Optional, Sequence, Tuple, Union

IntTuple = Union[int, Tuple["IntTuple", ...]]

__version__: str
max_draw_cells: int
has_gemm: bool


class _Layout:
    """A layout or swizzled layout of the library (identity swizzle: plain)."""

    def text(self) -> str:
        ...

    def shape(self) -> IntTuple:
        ...

    def stride(self) -> IntTuple:
        ...

    def swizzle(self) -> Optional[Tuple[int, int, int]]:
        ...

    def svg(self) -> Optional[str]:
        ...


class _Drawing:
    """A thread-value drawing (calc::TvDrawing)."""

    @property
    def title(self) -> str:
        ...

    @property
    def notes(self) -> List[str]:
        ...

    def svg(self) -> Tuple[bool, str]:
        ...

    def ascii(self) -> Tuple[bool, str]:
        ...


def evaluate(expr: str) -> Tuple[bool, str, Optional[str], Optional[_Layout]]:
    """(ok, text, keyword, layout or None): calc::evaluate; text is what `tessel layout EXPR` prints."""


def render(expr: str, format: str) -> Tuple[bool, str]:
    """(ok, text): the standard output of `tessel layout --format FORMAT EXPR`."""


def drawing_mma(atom: str, atoms: str) -> Union[Tuple[bool, _Drawing], Tuple[bool, str]]:
    """(ok, drawing or message): `tessel draw mma ATOM --atoms`."""


def drawing_copy(thr: str, val: str) -> Union[Tuple[bool, _Drawing], Tuple[bool, str]]:
    """(ok, drawing or message): `tessel draw copy`."""


def drawing_atom(instruction: str, operand: str) -> Union[Tuple[bool, _Drawing], Tuple[bool, str]]:
    """(ok, drawing or message): `tessel draw atom`."""


def drawing_tv(layout: str, tile: str) -> Union[Tuple[bool, _Drawing], Tuple[bool, str]]:
    """(ok, drawing or message): `tessel draw tv`."""


def drawing_names() -> str:
    """What `tessel draw list` prints."""


# ---------------------------------------------------------------- only where has_gemm is True


def _dlpack_info(
    obj: object
) -> Union[Tuple[bool, Tuple[int, List[int], List[int], Optional[str], int, int]], Tuple[bool, str]]:
    """(ok, (ptr, shape, strides, dtype name or None, DLPack device type, device id) or message)."""


def _gemm(impl: str, m: int, n: int, k: int, ab: str, cd: str, layout: str, a: int, lda: int, b: int, ldb: int, c: int,
          ldc: int, d: int, ldd: int, alpha: float, beta: float, activation: str, bias_kind: str, bias: int, aux: int,
          ldaux: int, batch: int, stride_a: int, stride_b: int, stride_c: int, stride_d: int, fp8_scale: str,
          scale_a: int, scale_b: int, device: int, stream: int) -> Tuple[int, str]:
    """(code, message): tessel::gemm on device pointers (0: success); the GIL is released during the call."""


def _gemm_grouped(ab: str, cd: str, layout: str, problems: Sequence[Tuple[Union[int, float], ...]], fp8_scale: str,
                  masked: bool, device: int, stream: int) -> Tuple[int, str]:
    """(code, message): tessel::gemm_grouped over (m, n, k, a, lda, b, ldb, c, ldc, d, ldd, alpha, beta[, scale a,
    scale b][, row count]) tuples."""


def _plan(m: int, n: int, k: int, ab: str, cd: str, device: int) -> str:
    """What tessel.gemm(impl='auto') runs for an M x N x K problem with row-major operands (the plan's words)."""


def _time_cpp_calls(impl: str, m: int, n: int, k: int, ab: str, cd: str, layout: str, a: int, lda: int, b: int,
                    ldb: int, d: int, ldd: int, device: int, stream: int, calls: int) -> List[int]:
    """Host ns of each of `calls` tessel::gemm calls from C++ (empty on any failure)."""


def _attention(impl: str, dtype: str, batch: int, heads_q: int, heads_kv: int, seq_q: int, seq_kv: int, head_dim: int,
               q: int, q_strides: Sequence[int], k: int, k_strides: Sequence[int], v: int, v_strides: Sequence[int],
               o: int, o_strides: Sequence[int], lse: int, causal: bool, scale: float, cu_seqlens_q: int,
               cu_seqlens_kv: int, max_seq_q: int, max_seq_kv: int, device: int, stream: int) -> Tuple[int, str]:
    """(code, message): tessel::attention on device pointers (strides per batch, head and row); the GIL is released
    during the call."""
