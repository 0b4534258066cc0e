"""Type stubs of the package tessel (docs/python.md).

The operations are made at import from one table (tessel/__init__.py), so
their signatures are written here; python/tests/test_stubs.py checks that
these names are the package's public names and that the plain functions'
parameters match.
"""
from typing import Any, Literal, Optional, Sequence, Tuple, Union, overload

from . import _tessel as _tessel

_IntTuple = Union[int, Tuple["_IntTuple", ...]]
_IntTupleLike = Union[int, Sequence["_IntTupleLike"]]
# An argument of the operations: a Layout, a Tiler, integers or tuples of them,
# LayoutLeft/LayoutRight, or one argument in the calculator's syntax.
_Argument = Union["Layout", "Tiler", _IntTupleLike, "_Major", str]
_Result = Union["Layout", _IntTuple]
_Format = Literal["text", "ascii", "svg", "latex"]
_Dtype = Any  # "bf16", "fp16", "fp32", a torch dtype or a NumPy/CuPy dtype
_Tensor = Any  # a CUDA tensor: PyTorch, or any DLPack producer (CuPy, JAX)
_Stream = Any  # an int cudaStream_t, or an object with .cuda_stream or .ptr
_Activation = Optional[Literal["none", "relu", "gelu", "gelu_erf", "gelu_tanh", "silu"]]

__version__: str
__all__: list[str]
MAX_DRAW_CELLS: int
has_gemm: bool


class Error(ValueError):
    keyword: Optional[str]
    expression: Optional[str]

    def __init__(self, message: str, keyword: Optional[str] = None, expression: Optional[str] = None) -> None:
        ...


class GemmError(ValueError):
    ...


class _Major:
    ...


LayoutLeft: _Major
LayoutRight: _Major


class Layout:

    def __init__(self,
                 shape: Union["Layout", str, _IntTupleLike],
                 stride: Union[_IntTupleLike, _Major, None] = None,
                 *,
                 swizzle: Optional[Tuple[int, int, int]] = None) -> None:
        ...

    @property
    def shape(self) -> _IntTuple:
        ...

    @property
    def stride(self) -> _IntTuple:
        ...

    @property
    def swizzle(self) -> Optional[Tuple[int, int, int]]:
        ...

    def __call__(self, *coord: _IntTupleLike) -> int:
        ...

    def __eq__(self, other: object) -> bool:
        ...

    def __hash__(self) -> int:
        ...

    def draw(self, format: _Format = "svg") -> str:
        ...

    def _repr_svg_(self) -> Optional[str]:
        ...

    # The operations whose first argument is a layout, as methods.
    def size(self) -> int:
        ...

    def rank(self) -> int:
        ...

    def depth(self) -> int:
        ...

    def cosize(self) -> int:
        ...

    def coalesce(self, profile: Optional[_Argument] = None) -> "Layout":
        ...

    def filter(self, profile: Optional[_Argument] = None) -> "Layout":
        ...

    def composition(self, b: _Argument) -> "Layout":
        ...

    def complement(self, cotarget: Optional[_Argument] = None) -> "Layout":
        ...

    def right_inverse(self) -> "Layout":
        ...

    def left_inverse(self) -> "Layout":
        ...

    def logical_divide(self, b: _Argument) -> "Layout":
        ...

    def zipped_divide(self, b: _Argument) -> "Layout":
        ...

    def tiled_divide(self, b: _Argument) -> "Layout":
        ...

    def flat_divide(self, b: _Argument) -> "Layout":
        ...

    def logical_product(self, b: _Argument) -> "Layout":
        ...

    def zipped_product(self, b: _Argument) -> "Layout":
        ...

    def tiled_product(self, b: _Argument) -> "Layout":
        ...

    def blocked_product(self, b: _Argument) -> "Layout":
        ...

    def raked_product(self, b: _Argument) -> "Layout":
        ...

    def tile_to_shape(self, shape: _Argument) -> "Layout":
        ...

    def eval(self, coord: _Argument) -> int:
        ...


class Tiler:
    modes: Tuple[Union[int, Layout, str, None], ...]

    def __init__(self, *modes: Union[_IntTupleLike, Layout, str, None]) -> None:
        ...


class Drawing:
    svg: str

    @property
    def ascii(self) -> str:
        ...

    @property
    def title(self) -> str:
        ...

    @property
    def notes(self) -> list[str]:
        ...

    def _repr_svg_(self) -> str:
        ...


# ---------------------------------------------------------------- the calculator's operations (docs/algebra.md)


def size(x: _Argument) -> int:
    ...


def rank(x: _Argument) -> int:
    ...


def depth(x: _Argument) -> int:
    ...


def cosize(layout: _Argument) -> int:
    ...


def coalesce(layout: _Argument, profile: Optional[_Argument] = None) -> Layout:
    ...


def filter(layout: _Argument, profile: Optional[_Argument] = None) -> Layout:
    ...


def composition(a: _Argument, b: _Argument) -> Layout:
    ...


def complement(layout: _Argument, cotarget: Optional[_Argument] = None) -> Layout:
    ...


def right_inverse(layout: _Argument) -> Layout:
    ...


def left_inverse(layout: _Argument) -> Layout:
    ...


def logical_divide(a: _Argument, b: _Argument) -> Layout:
    ...


def zipped_divide(a: _Argument, b: _Argument) -> Layout:
    ...


def tiled_divide(a: _Argument, b: _Argument) -> Layout:
    ...


def flat_divide(a: _Argument, b: _Argument) -> Layout:
    ...


def logical_product(a: _Argument, b: _Argument) -> Layout:
    ...


def zipped_product(a: _Argument, b: _Argument) -> Layout:
    ...


def tiled_product(a: _Argument, b: _Argument) -> Layout:
    ...


def blocked_product(a: _Argument, b: _Argument) -> Layout:
    ...


def raked_product(a: _Argument, b: _Argument) -> Layout:
    ...


def tile_to_shape(layout: _Argument, shape: _Argument) -> Layout:
    ...


@overload
def make_layout(shape: _Argument, major: _Major) -> Layout:
    ...


@overload
def make_layout(*modes: _Argument) -> Layout:
    ...


def eval(layout: _Argument, coord: _Argument) -> int:
    ...


def idx2crd(index: _Argument, shape: _Argument) -> _IntTuple:
    ...


def crd2idx(coord: _Argument, shape: _Argument, stride: _Argument) -> int:
    ...


def evaluate(expr: str, format: _Format = "text", *, raise_errors: bool = True) -> str:
    ...


# ---------------------------------------------------------------- drawings


def draw(kind: Literal["mma", "copy", "atom", "tv", "list"],
         name: Optional[str] = None,
         *,
         atoms: Union[str, Sequence[int]] = "1x1x1",
         operand: Optional[str] = None,
         thr: Union[Layout, str, None] = None,
         val: Union[Layout, str, None] = None,
         tile: Union[str, Sequence[int], None] = None,
         format: Literal["svg", "ascii"] = "svg") -> str:
    ...


def draw_mma(atom: str, am: int = 1, an: int = 1, ak: int = 1) -> Drawing:
    ...


def draw_copy(thr: Union[Layout, str], val: Union[Layout, str]) -> Drawing:
    ...


def draw_atom(instruction: str, operand: Optional[str] = None) -> Drawing:
    ...


def draw_tv(layout: Union[Layout, str], tile: Union[str, Sequence[int]]) -> Drawing:
    ...


def draw_list() -> str:
    ...


# ---------------------------------------------------------------- GEMMs (where has_gemm)


def gemm(a: _Tensor,
         b: _Tensor,
         *,
         c: Optional[_Tensor] = None,
         alpha: float = 1.0,
         beta: float = 0.0,
         bias: Optional[_Tensor] = None,
         activation: _Activation = None,
         out_dtype: Optional[_Dtype] = None,
         out: Optional[_Tensor] = None,
         aux: Optional[_Tensor] = None,
         impl: str = "auto",
         stream: Optional[_Stream] = None,
         tune: bool = False,
         scale_a: Optional[_Tensor] = None,
         scale_b: Optional[_Tensor] = None) -> _Tensor:
    ...


def gemm_batched(a: _Tensor,
                 b: _Tensor,
                 *,
                 c: Optional[_Tensor] = None,
                 alpha: float = 1.0,
                 beta: float = 0.0,
                 out_dtype: Optional[_Dtype] = None,
                 out: Optional[_Tensor] = None,
                 impl: str = "auto",
                 stream: Optional[_Stream] = None) -> _Tensor:
    ...


def gemm_grouped(a: Sequence[_Tensor],
                 b: Sequence[_Tensor],
                 *,
                 out: Optional[Sequence[_Tensor]] = None,
                 alpha: float = 1.0,
                 out_dtype: Optional[_Dtype] = None,
                 impl: str = "auto",
                 stream: Optional[_Stream] = None,
                 scale_a: Optional[Sequence[_Tensor]] = None,
                 scale_b: Optional[Sequence[_Tensor]] = None,
                 masked_m: Optional[_Tensor] = None) -> list[_Tensor]:
    ...


def gemm_plan(m: int, n: int, k: int, dtype: _Dtype = "bf16", out_dtype: Optional[_Dtype] = None, device: int = 0) -> str:
    ...


# ---------------------------------------------------------------- attention (where has_gemm)


def attention(q: _Tensor,
              k: _Tensor,
              v: _Tensor,
              *,
              causal: bool = False,
              scale: Optional[float] = None,
              cu_seqlens_q: Optional[_Tensor] = None,
              cu_seqlens_k: Optional[_Tensor] = None,
              max_seqlen_q: Optional[int] = None,
              max_seqlen_k: Optional[int] = None,
              return_lse: bool = False,
              impl: str = "auto") -> Any:
    ...
