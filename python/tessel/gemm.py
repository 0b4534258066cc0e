"""tessel's GEMMs on CUDA tensors: ``tessel.gemm`` (docs/python.md, "GEMMs").

``D = alpha * A @ B + beta * C`` by ``tessel::gemm`` (the C++ library's call,
the same plan and kernels as ``tessel bench gemm``) on any CUDA tensor that
PyTorch, CuPy or another DLPack producer hands over.  Layouts are read from
the strides: a row-major or column-major A or B is taken as it is (a
transposed view costs no copy); D (and C) may be row- or column-major too,
the latter by computing D^T = B^T A^T.  The call runs on the tensors'
framework's current stream unless ``stream=`` names one, with the GIL
released.  Every failure raises before anything is written: ``TypeError`` for
a wrong kind of argument or element type, ``ValueError`` (a ``GemmError``)
with the library's message for a problem it rejects, ``RuntimeError`` for a
CUDA failure.
"""
import math
import sys as _sys

from . import _tessel

__all__ = ["gemm", "gemm_batched", "gemm_grouped", "gemm_plan", "GemmError", "has_gemm"]

has_gemm = bool(getattr(_tessel, "has_gemm", False))

# tessel::Status::Code
_OK, _INVALID, _UNSUPPORTED, _CUDA_ERROR = 0, 1, 2, 3
_KDL_CUDA = 2  # DLPack's kDLCUDA


class GemmError(ValueError):
    """A GEMM the library rejects; ``str(e)`` is the library's message naming the rule broken."""


class _Tensor:
    """What tessel reads of a tensor: pointer, shape, strides (elements), dtype name, device."""
    __slots__ = ("obj", "ptr", "shape", "strides", "dtype", "device", "kind", "bstride", "batch")

    def __init__(self):
        self.bstride, self.batch = 0, None  # a batched tensor's third (leading) dimension

    def transposed(self):
        t = _Tensor()
        t.obj, t.ptr, t.dtype, t.device, t.kind = self.obj, self.ptr, self.dtype, self.device, self.kind
        t.bstride, t.batch = self.bstride, self.batch
        t.shape = (self.shape[1], self.shape[0])
        t.strides = (self.strides[1], self.strides[0])
        return t


_torch = None
_TORCH_DTYPES = {}


def _torch_module():
    global _torch
    if _torch is None:
        import torch
        _torch = torch
        _TORCH_DTYPES.update({torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"})
        # FP8 inputs (docs/fp8.md), where this PyTorch has them: a and b K-major (b = w.t() of an N x K w).
        for name, dtype in (("float8_e4m3fn", "e4m3"), ("float8_e5m2", "e5m2")):
            if hasattr(torch, name):
                _TORCH_DTYPES[getattr(torch, name)] = dtype
    return _torch


def _is_torch(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


# tessel/_torch_ops.py once loaded (the custom operators registered); False where PyTorch
# has no torch.library.custom_op.  Loaded at import when PyTorch is, else on first use.
_ops = None


def _load_ops():
    global _ops
    try:
        from . import _torch_ops
        _ops = _torch_ops
    except ImportError:  # a PyTorch without custom operators: the plain calls alone
        _ops = False
    return _ops


def _ops_for(x):
    """tessel/_torch_ops.py where x is a PyTorch tensor and the operators exist, else None."""
    ops = _ops
    if ops is None:
        if not _is_torch(x):
            return None
        ops = _load_ops()
    if ops is False or not isinstance(x, ops.torch.Tensor):
        return None
    return ops


def _read(x, what, batched=False, meta=False):
    """The _Tensor of argument ``what``: a 2-D CUDA tensor of bf16, fp16 or fp32
    (``batched``: or 3-D, the leading dimension a batch: shape and strides are
    then a matrix's, ``batch`` and ``bstride`` the batch's count and stride).
    ``meta``: a PyTorch fake or meta tensor, read for its shape and type alone
    (the custom operators' shape functions, tessel/_torch_ops.py)."""
    t = _Tensor()
    t.obj = x
    if _is_torch(x):
        _torch_module()
        if not (x.is_cuda or (meta and x.device.type == "meta")):
            raise ValueError("%s must be a CUDA tensor (got one on %s)" % (what, x.device))
        if x.dim() != 2 and not (batched and x.dim() == 3):
            raise ValueError("%s must be %s (got %d dimensions, shape %s)" %
                             (what, "2-D or 3-D" if batched else "2-D", x.dim(), tuple(x.shape)))
        dtype = _TORCH_DTYPES.get(x.dtype)
        if dtype is None:
            raise TypeError("%s: element type %s is not one tessel takes (bfloat16, float16, float32; "
                            "float8_e4m3fn and float8_e5m2 for a and b)" % (what, x.dtype))
        t.ptr, t.shape, t.strides = 0 if meta else x.data_ptr(), tuple(x.shape), tuple(x.stride())
        t.dtype, t.device, t.kind = dtype, x.device.index, "torch"
        return _split_batch(t)
    if meta or not hasattr(x, "__dlpack__"):
        raise TypeError("%s must be a CUDA tensor that speaks DLPack (PyTorch, CuPy, JAX); got %s" %
                        (what, type(x).__name__))
    ok, info = _tessel._dlpack_info(x)
    if not ok:
        raise TypeError("%s: %s" % (what, info))
    ptr, shape, strides, dtype, device_type, device_id = info
    if device_type != _KDL_CUDA:
        raise ValueError("%s must be a CUDA tensor (DLPack device type %d)" % (what, device_type))
    if len(shape) != 2 and not (batched and len(shape) == 3):
        raise ValueError("%s must be %s (got %d dimensions, shape %s)" %
                         (what, "2-D or 3-D" if batched else "2-D", len(shape), tuple(shape)))
    if dtype is None:
        raise TypeError("%s: element type is not one tessel takes (bfloat16, float16, float32)" % what)
    t.ptr, t.shape, t.strides, t.dtype, t.device = ptr, tuple(shape), tuple(strides), dtype, device_id
    t.kind = "cupy" if type(x).__module__.startswith("cupy") else "dlpack"
    return _split_batch(t)


def _split_batch(t):
    if len(t.shape) == 3:
        t.batch, t.bstride = t.shape[0], t.strides[0]
        t.shape, t.strides = t.shape[1:], t.strides[1:]
    return t


def _major_as(t, kind):
    """('row', ld) where t can be read with element (i, j) at i*ld + j (kind 'row'), ('col', ld)
    where at i + j*ld (kind 'col'), else None.  A vector can be read both ways."""
    rows, cols = t.shape
    s0, s1 = t.strides
    if kind == "row" and (cols == 1 or s1 == 1) and (rows == 1 or s0 >= cols):
        return "row", (s0 if rows > 1 else max(cols, 1))
    if kind == "col" and (rows == 1 or s0 == 1) and (cols == 1 or s1 >= rows):
        return "col", (s1 if cols > 1 else max(rows, 1))
    return None


def _major(t):
    """('row', ld) where element (i, j) is at i*ld + j, ('col', ld) where at i + j*ld, or None."""
    return _major_as(t, "row") or _major_as(t, "col")


def _group_major(ts):
    """The (kind, ld) of each matrix, one kind for all (a vector takes its neighbours' kind), or None."""
    for kind in ("row", "col"):
        majors = [_major_as(t, kind) for t in ts]
        if all(majors):
            return majors
    return None


def _stream_of(t, stream):
    if stream is not None:
        if isinstance(stream, int):
            return stream
        for attr in ("cuda_stream", "ptr", "handle"):
            if hasattr(stream, attr):
                return int(getattr(stream, attr))
        raise TypeError("stream= must be an int (a cudaStream_t) or a stream object with .cuda_stream or .ptr; got %s" %
                        type(stream).__name__)
    if t.kind == "torch":
        torch = _torch_module()
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        return raw(t.device) if raw is not None else torch.cuda.current_stream(t.device).cuda_stream
    if t.kind == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    return 0  # the legacy default stream: what DLPack assumes without a stream


def _empty_like(t, m, n, dtype):
    if t.kind == "torch":
        torch = _torch_module()
        tdtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype]
        return torch.empty((m, n), dtype=tdtype, device=t.obj.device)
    if t.kind == "cupy":
        import cupy
        if dtype == "bf16":
            raise TypeError("CuPy has no bfloat16 arrays: pass out= with a bfloat16 tensor of another framework")
        with cupy.cuda.Device(t.device):
            return cupy.empty((m, n), dtype={"fp16": cupy.float16, "fp32": cupy.float32}[dtype])
    raise TypeError("out= is needed for tensors of %s (tessel allocates PyTorch and CuPy outputs only)" %
                    type(t.obj).__name__)


_FP8 = ("e4m3", "e5m2")  # input types only: out defaults to bfloat16 for them

_DTYPE_NAMES = {
    "bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "f16": "fp16", "float16": "fp16", "half": "fp16",
    "fp32": "fp32", "f32": "fp32", "float32": "fp32"
}


def _dtype_name(x):
    """'bf16', 'fp16' or 'fp32' for a name, a torch dtype or a NumPy/CuPy dtype (None stays None)."""
    if x is None:
        return None
    if type(x).__module__.startswith("torch"):
        _torch_module()
        if x in _TORCH_DTYPES:
            return _TORCH_DTYPES[x]
    name = x if isinstance(x, str) else getattr(x, "name", None) or getattr(x, "__name__", None) or str(x)
    if name in _DTYPE_NAMES:
        return _DTYPE_NAMES[name]
    raise TypeError("out_dtype: %r is not bf16, fp16 or fp32" % (x, ))


def _raise(code, message):
    if code in (_INVALID, _UNSUPPORTED):
        raise GemmError(message)
    raise RuntimeError(message)


_ACTIVATIONS = {
    None: "none", "none": "none", "relu": "relu", "gelu": "gelu_erf", "gelu_erf": "gelu_erf",
    "gelu_tanh": "gelu_tanh", "silu": "silu"
}


def _read_vector(x, what, meta=False):
    """(pointer, shape, strides, dtype name, device) of a small CUDA tensor (a bias, FP8 scales)."""
    if _is_torch(x):
        _torch_module()
        if not (x.is_cuda or (meta and x.device.type == "meta")):
            raise ValueError("%s must be a CUDA tensor (got one on %s)" % (what, x.device))
        return 0 if meta else x.data_ptr(), tuple(x.shape), tuple(x.stride()), _TORCH_DTYPES.get(x.dtype), x.device.index
    if meta or not hasattr(x, "__dlpack__"):
        raise TypeError("%s must be a CUDA tensor; got %s" % (what, type(x).__name__))
    ok, info = _tessel._dlpack_info(x)
    if not ok:
        raise TypeError("%s: %s" % (what, info))
    ptr, shape, strides, dtype, device_type, device = info
    if device_type != _KDL_CUDA:
        raise ValueError("%s must be a CUDA tensor" % what)
    return ptr, tuple(shape), tuple(strides), dtype, device


def _read_counts(x, count, meta=False):
    """(pointer, device) of gemm_grouped's masked_m: a contiguous CUDA int32 PyTorch tensor of `count` row counts."""
    if not _is_torch(x):
        raise TypeError("masked_m must be a PyTorch CUDA int32 tensor; got %s" % type(x).__name__)
    torch = _torch_module()
    if not (x.is_cuda or (meta and x.device.type == "meta")):
        raise ValueError("masked_m must be a CUDA tensor (got one on %s)" % x.device)
    if x.dtype != torch.int32 or x.dim() != 1 or x.numel() != count or (count > 1 and x.stride(0) != 1):
        raise ValueError("masked_m must be a contiguous 1-D int32 tensor of %d row counts (got %s of shape %s)" %
                         (count, x.dtype, tuple(x.shape)))
    return 0 if meta else x.data_ptr(), x.device.index


def _read_bias(bias, m, n, dtype, meta=False):
    """(kind, pointer) of a bias broadcast as in ``a @ b + bias``: (N,) or (1, N) per column, (M, 1) per row."""
    ptr, shape, strides, bdtype, device = _read_vector(bias, "bias", meta)
    if bdtype != dtype:
        raise TypeError("bias must have out's element type %s (got %s)" % (dtype, bdtype))
    if len(shape) == 1 or (len(shape) == 2 and shape[0] == 1 and shape[1] == n):
        kind, length, stride = "col", shape[-1], strides[-1]
    elif len(shape) == 2 and shape[1] == 1 and shape[0] == m:
        kind, length, stride = "row", shape[0], strides[0]
    else:
        raise ValueError("bias must be (N,), (1, N) (per column) or (M, 1) (per row) to broadcast over %d x %d; got %s" %
                         (m, n, shape))
    if length != (n if kind == "col" else m):
        raise ValueError("bias must be (N,), (1, N) (per column) or (M, 1) (per row) to broadcast over %d x %d; got %s" %
                         (m, n, shape))
    if length > 1 and stride != 1:
        raise ValueError("bias must be contiguous (stride %d)" % stride)
    return kind, ptr, device


def _packed(shape, strides, order):
    """Whether a tensor of ``shape`` lies packed with its dimensions ``order``ed from the fastest."""
    step = 1
    for d in order:
        if shape[d] > 1 and strides[d] != step:
            return False
        step *= shape[d]
    return True


def _read_scales(scale_a, scale_b, m, n, k, meta=False):
    """(mode, pointer a, pointer b, devices) of FP8 scales (docs/fp8.md, Scales): one float each
    (per tensor); (M,) or (M, 1) and (N,) or (1, N) (per row of a, column of b); or A's
    (M, ceil(K/128)) with M contiguous (``s.t()`` of a contiguous (ceil(K/128), M)) and B's
    (ceil(K/128), ceil(N/128)) with K contiguous (``s.t()`` of a weight's contiguous
    (ceil(N/128), ceil(K/128))), or that contiguous tensor itself (per block)."""
    if scale_a is None and scale_b is None:
        return "none", 0, 0, set()
    if scale_a is None or scale_b is None:
        raise ValueError("scale_a and scale_b come together (got only %s)" % ("scale_a" if scale_b is None else "scale_b"))
    pa, sa, ta, da, deva = _read_vector(scale_a, "scale_a", meta)
    pb, sb, tb, db, devb = _read_vector(scale_b, "scale_b", meta)
    for what, dt in (("scale_a", da), ("scale_b", db)):
        if dt != "fp32":
            raise TypeError("%s must be float32 (got %s)" % (what, dt))
    numel_a, numel_b = math.prod(sa), math.prod(sb)
    kb, nb = -(-k // 128), -(-n // 128)
    if numel_a == 1 and numel_b == 1:
        mode = "tensor"
    elif sa in ((m, ), (m, 1)) and sb in ((n, ), (1, n)) and _packed(sa, ta, range(len(sa))) and \
            _packed(sb, tb, range(len(sb))):
        mode = "channel"
    elif sa == (m, kb) and _packed(sa, ta, (0, 1)) and \
            ((sb == (kb, nb) and _packed(sb, tb, (0, 1))) or (sb == (nb, kb) and _packed(sb, tb, (1, 0)))):
        mode = "block"
    else:
        raise ValueError("scale_a %s (strides %s) and scale_b %s (strides %s) are none of the FP8 scale modes for "
                         "%d x %d x %d: one float each (per tensor); (M,) or (M, 1) and (N,) or (1, N) (per "
                         "channel); (M, ceil(K/128)) with M contiguous and (ceil(K/128), ceil(N/128)) with K "
                         "contiguous or (ceil(N/128), ceil(K/128)) row-major (per block)" % (sa, ta, sb, tb, m, n, k))
    return mode, pa, pb, {deva, devb}


def gemm(a, b, *, c=None, alpha=1.0, beta=0.0, bias=None, activation=None, out_dtype=None, out=None, aux=None,
         impl="auto", stream=None, tune=False, scale_a=None, scale_b=None):
    """``alpha * a @ b + beta * c`` by tessel::gemm; returns ``out`` (allocated when not given).

    ``a`` (M x K) and ``b`` (K x N): CUDA tensors of one element type, bf16 or
    fp16 (fp32 for the fp32 ladder), or FP8 (``float8_e4m3fn``,
    ``float8_e5m2``; a and b may differ in format); row- or column-major, any
    leading dimension tessel takes.  ``c`` (M x N) is read where ``beta != 0``.
    ``out`` (M x N): D, row- or column-major; ``out_dtype`` (bf16, fp16 or
    fp32; default: ``c``'s type, else ``a``'s) when tessel allocates it.
    ``bias``: added before the activation, broadcast as in ``a @ b + bias``:
    (N,) or (1, N) one value per column, (M, 1) one per row; out's element
    type.  ``activation``: None, ``"relu"``, ``"gelu"`` (the erf GELU, as
    ``torch.nn.functional.gelu``), ``"gelu_tanh"`` (its tanh form, cuBLASLt's)
    or ``"silu"``.  ``aux`` (M x N, out's type and layout): also receives the
    value before the activation.  k13 fuses them into its epilogue; other
    implementations run an elementwise pass after the GEMM (docs/epilogues.md).
    ``impl``: ``"auto"`` (the plan) or a ladder step (``"k13"``...).
    ``tune``: with ``impl="auto"``, measured tuning (docs/heuristics.md): the
    first call of a problem times the candidate configurations and keeps the
    fastest, in memory and in the on-disk cache (``TESSEL_TUNE_CACHE``).
    ``stream``: an int (a cudaStream_t) or a stream object; default the
    tensors' framework's current stream.
    ``scale_a``, ``scale_b``: float32 CUDA tensors of FP8 a's and b's scales,
    ``(a * scale_a) @ (b * scale_b)`` broadcast by their shapes: one float
    each (per tensor); (M, 1) and (1, N) (per row of a and column of b); or
    per block, a's (M, ceil(K/128)) one per 1 x 128 of a row (M contiguous:
    ``s.t()`` of a contiguous (ceil(K/128), M)) and b's (ceil(K/128),
    ceil(N/128)) one per 128 x 128 (``s.t()`` of a weight's contiguous
    (ceil(N/128), ceil(K/128))), as ``torch._scaled_mm`` takes them.

    On PyTorch tensors that need a gradient, under ``torch.compile`` and on
    fake or meta tensors the call runs as the custom operator
    ``torch.ops.tessel.gemm`` (differentiable, traced without a graph break;
    docs/python.md, "PyTorch: autograd and torch.compile"); otherwise directly.
    """
    ops = _ops_for(a) if scale_a is None and scale_b is None else None  # scales: FP8, no operator
    if ops is not None:
        d = ops.gemm(a, b, c, alpha, beta, bias, activation, out_dtype, out, aux, impl, stream, tune)
        if d is not NotImplemented:
            return d
    return _gemm(a, b, c, alpha, beta, bias, activation, out_dtype, out, aux, impl, stream, tune, scale_a=scale_a,
                 scale_b=scale_b)


def _gemm(a, b, c, alpha, beta, bias, activation, out_dtype, out, aux, impl, stream, tune, meta=False, scale_a=None,
          scale_b=None):
    """tessel.gemm without the operator: checks, then the launch; ``meta``: the checks and the
    allocation of ``out`` alone, on fake or meta tensors (the operator's shape function)."""

    if not has_gemm and not meta:
        raise RuntimeError("tessel was built without CUDA: the GEMMs are not in this build (docs/python.md)")
    if activation not in _ACTIVATIONS:
        raise ValueError("activation must be None, 'relu', 'gelu', 'gelu_tanh' or 'silu' (got %r)" % (activation, ))
    act = _ACTIVATIONS[activation]
    if not isinstance(impl, str):
        raise TypeError("impl must be a string such as 'auto' or 'k13'")
    if tune:
        if impl != "auto":
            raise ValueError("tune=True chooses the configuration itself: it takes impl='auto' (got %r)" % (impl, ))
        impl = "tuned"
    A, B = _read(a, "a", meta=meta), _read(b, "b", meta=meta)
    _input_types(A.dtype, B.dtype)
    m, k = A.shape
    k2, n = B.shape
    if k != k2:
        raise ValueError("a is %d x %d and b is %d x %d: a's columns must equal b's rows" % (m, k, k2, n))
    C = _read(c, "c", meta=meta) if c is not None else None
    if C is not None and C.shape != (m, n):
        raise ValueError("c must be %d x %d (got %d x %d)" % (m, n, C.shape[0], C.shape[1]))
    if C is None and beta != 0:
        raise ValueError("beta = %g needs c (C is read only where beta != 0)" % beta)
    want = _dtype_name(out_dtype)
    if C is not None and C.dtype in _FP8:
        raise TypeError("c: FP8 is an input type (a and b); c and out are bfloat16, float16 or float32")
    if out is None:
        dtype = want or (C.dtype if C is not None else "bf16" if A.dtype in _FP8 else A.dtype)
        out = _empty_like(A, m, n, dtype)
    D = _read(out, "out", meta=meta)
    if D.shape != (m, n):
        raise ValueError("out must be %d x %d (got %d x %d)" % (m, n, D.shape[0], D.shape[1]))
    if want is not None and D.dtype != want:
        raise TypeError("out is %s but out_dtype is %s" % (D.dtype, want))
    if C is not None and C.dtype != D.dtype:
        raise TypeError("c and out must have one element type (got %s and %s)" % (C.dtype, D.dtype))
    X = _read(aux, "aux", meta=meta) if aux is not None else None
    if X is not None and (X.shape != (m, n) or X.dtype != D.dtype):
        raise ValueError("aux must be %d x %d of out's type %s (got %d x %d %s)" %
                         (m, n, D.dtype, X.shape[0], X.shape[1], X.dtype))
    bias_kind, bias_ptr, bias_device = ("none", 0, None) if bias is None else _read_bias(bias, m, n, D.dtype, meta)
    scales = _read_scales(scale_a, scale_b, m, n, k, meta)
    if scales[0] != "none" and A.dtype not in _FP8:
        raise TypeError("scale_a and scale_b scale FP8 a and b (got %s)" % A.dtype)
    devices = {t.device for t in (A, B, C, D, X) if t is not None} | scales[3]
    if bias_device is not None:
        devices.add(bias_device)
    if len(devices) != 1:
        raise ValueError("a, b, c, out and the scales must be on one CUDA device (got devices %s)" % sorted(devices))

    _launch(impl, A, B, C, D, X, m, n, k, act, bias_kind, bias_ptr, alpha, beta, stream, meta=meta,
            scales=scales[:3])
    return out


def _input_types(a, b):
    """The library's name of a's and b's element types: 'bf16', or their FP8 formats where they differ,
    'e4m3xe5m2'; TypeError for any other pair."""
    if a == b:
        return a
    if a in _FP8 and b in _FP8:
        return a + "x" + b
    raise TypeError("a and b must have one element type, or two FP8 formats (got %s and %s)" % (a, b))


def _launch(impl, A, B, C, D, X, m, n, k, act, bias_kind, bias_ptr, alpha, beta, stream, batch=1, meta=False,
            scales=("none", 0, 0)):
    """The layouts from the strides (a column-major D as D^T = B^T A^T), then _tessel._gemm (not
    for ``meta``: the checks alone); raises on failure."""
    dmaj = _major(D)
    if dmaj is None:
        raise ValueError("out must be row- or column-major (strides %s for shape %s)" % (D.strides, D.shape))
    if dmaj[0] == "col":
        if scales[0] == "block":
            raise GemmError("block scales take a row-major out (A's 1 x 128 blocks do not transpose into B's "
                            "128 x 128)")
        scales = (scales[0], scales[2], scales[1])
        # D^T (N x M, row-major) = B^T A^T: the transposed views, read as they are.
        A, B = B.transposed(), A.transposed()
        D = D.transposed()
        C = C.transposed() if C is not None else None
        X = X.transposed() if X is not None else None
        bias_kind = {"row": "col", "col": "row", "none": "none"}[bias_kind]
        m, n = n, m
        dmaj = _major(D)
    cmaj = _major(C) if C is not None else ("row", n)
    if cmaj is None or cmaj[0] != "row":
        raise ValueError("c must have out's layout (both row-major or both column-major)")
    amaj, bmaj = _major(A), _major(B)
    if amaj is None:
        raise ValueError("a must be row- or column-major (strides %s for shape %s)" % (A.strides, A.shape))
    if bmaj is None:
        raise ValueError("b must be row- or column-major (strides %s for shape %s)" % (B.strides, B.shape))
    xmaj = _major(X) if X is not None else ("row", n)
    if xmaj is None or xmaj[0] != "row":
        raise ValueError("aux must have out's layout (both row-major or both column-major)")
    layout = ("k" if amaj[0] == "row" else "m") + ("n" if bmaj[0] == "row" else "k")
    if meta:
        return
    types = _input_types(A.dtype, B.dtype)
    code, message = _tessel._gemm(impl, m, n, k, types, D.dtype, layout, A.ptr, amaj[1], B.ptr, bmaj[1],
                                  C.ptr if C is not None else 0, cmaj[1], D.ptr, dmaj[1], float(alpha), float(beta),
                                  act, bias_kind, bias_ptr, X.ptr if X is not None else 0, xmaj[1], batch, A.bstride,
                                  B.bstride, C.bstride if C is not None else 0, D.bstride, scales[0], scales[1],
                                  scales[2], D.device, _stream_of(A, stream))
    if code != _OK:
        _raise(code, message)


def gemm_batched(a, b, *, c=None, alpha=1.0, beta=0.0, out_dtype=None, out=None, impl="auto", stream=None):
    """A strided batch: ``out[i] = alpha * a[i] @ b[i] + beta * c[i]``; returns ``out``.

    ``a`` (batch x M x K) and ``b`` (batch x K x N), either one 2-D to share it
    across the batch (a stride of 0: shared weights); ``c`` and ``out``
    (batch x M x N; ``c`` may be 2-D too).  Each matrix row- or column-major,
    any batch stride tessel takes (docs/batched.md: the batches of D must not
    overlap).  One launch of k13's batched kernel on sm_90 (the plan's tile),
    else one launch per batch.  No epilogue (tessel::gemm refuses one with a
    batch).  Errors as tessel.gemm's.  As with tessel.gemm, PyTorch tensors
    that need a gradient, ``torch.compile`` and fake or meta tensors run the
    custom operator ``torch.ops.tessel.gemm_batched``.
    """
    ops = _ops_for(a)
    if ops is not None:
        d = ops.gemm_batched(a, b, c, alpha, beta, out_dtype, out, impl, stream)
        if d is not NotImplemented:
            return d
    return _gemm_batched(a, b, c, alpha, beta, out_dtype, out, impl, stream)


def _gemm_batched(a, b, c, alpha, beta, out_dtype, out, impl, stream, meta=False):
    """tessel.gemm_batched without the operator (``meta``: the checks and the allocation alone)."""
    if not has_gemm and not meta:
        raise RuntimeError("tessel was built without CUDA: the GEMMs are not in this build (docs/python.md)")
    A, B = _read(a, "a", True, meta), _read(b, "b", True, meta)
    _input_types(A.dtype, B.dtype)
    # A list, not a set: under torch.compile with dynamic shapes a batch count is a SymInt, which does not hash.
    counts = [t.batch for t in (A, B) if t.batch is not None]
    if not counts:
        raise ValueError("gemm_batched needs a 3-D a or b (batch x rows x columns); for one GEMM call tessel.gemm")
    if len(counts) == 2 and counts[0] != counts[1]:
        raise ValueError("a and b have different batch counts [%d, %d]" % (min(counts), max(counts)))
    batch = counts[0]
    m, k = A.shape
    k2, n = B.shape
    if k != k2:
        raise ValueError("a's matrices are %d x %d and b's %d x %d: a's columns must equal b's rows" % (m, k, k2, n))
    C = _read(c, "c", True, meta) if c is not None else None
    if C is not None and (C.shape != (m, n) or (C.batch is not None and C.batch != batch)):
        raise ValueError("c must be %d x %d x %d or %d x %d" % (batch, m, n, m, n))
    if C is None and beta != 0:
        raise ValueError("beta = %g needs c (C is read only where beta != 0)" % beta)
    want = _dtype_name(out_dtype)
    if C is not None and C.dtype in _FP8:
        raise TypeError("c: FP8 is an input type (a and b); c and out are bfloat16, float16 or float32")
    if out is None:
        dtype = want or (C.dtype if C is not None else "bf16" if A.dtype in _FP8 else A.dtype)
        out = _empty_batch_like(A if A.batch is not None else B, batch, m, n, dtype)
    D = _read(out, "out", True, meta)
    if D.shape != (m, n) or D.batch != batch:
        raise ValueError("out must be %d x %d x %d" % (batch, m, n))
    if want is not None and D.dtype != want:
        raise TypeError("out is %s but out_dtype is %s" % (D.dtype, want))
    if C is not None and C.dtype != D.dtype:
        raise TypeError("c and out must have one element type (got %s and %s)" % (C.dtype, D.dtype))
    if len({t.device for t in (A, B, C, D) if t is not None}) != 1:
        raise ValueError("a, b, c and out must be on one CUDA device")
    _launch(impl, A, B, C, D, None, m, n, k, "none", "none", 0, alpha, beta, stream, batch, meta)
    return out


def _empty_batch_like(t, batch, m, n, dtype):
    if t.kind == "torch":
        torch = _torch_module()
        tdtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype]
        return torch.empty((batch, m, n), dtype=tdtype, device=t.obj.device)
    if t.kind == "cupy":
        import cupy
        if dtype == "bf16":
            raise TypeError("CuPy has no bfloat16 arrays: pass out= with a bfloat16 tensor of another framework")
        with cupy.cuda.Device(t.device):
            return cupy.empty((batch, m, n), dtype={"fp16": cupy.float16, "fp32": cupy.float32}[dtype])
    raise TypeError("out= is needed for tensors of %s (tessel allocates PyTorch and CuPy outputs only)" %
                    type(t.obj).__name__)


def gemm_grouped(a, b, *, out=None, alpha=1.0, out_dtype=None, impl="auto", stream=None, scale_a=None, scale_b=None,
                 masked_m=None):
    """A group of GEMMs of different shapes in one launch: ``out[g] = alpha * a[g] @ b[g]``; returns ``out``.

    ``a`` and ``b``: sequences of 2-D CUDA tensors (problem g is a[g], M_g x K_g,
    times b[g], K_g x N_g), one element type and one layout for all (each
    operand row-major throughout or column-major throughout), as a
    mixture-of-experts layer's experts; ``out``: a sequence of row-major
    M_g x N_g tensors, allocated when not given.  One persistent launch of
    k13's grouped kernel on sm_90 (tessel::gemm_grouped); ``impl`` must be
    ``"auto"``.  Errors as tessel.gemm's; a group whose outputs overlap each
    other or another problem's inputs is refused before anything runs.  As
    with tessel.gemm, PyTorch tensors that need a gradient, ``torch.compile``
    and fake or meta tensors run the custom operator ``torch.ops.tessel.gemm_grouped``.
    ``scale_a``, ``scale_b``: FP8 a's and b's scales, a sequence of one tensor
    per problem each, shaped as tessel.gemm takes them, one mode for the group.
    ``masked_m``: a CUDA int32 tensor of one row count per problem, read when
    the kernel runs (decode-time experts); a[g]'s and out[g]'s rows are then
    the capacity, and out[g]'s rows past the count are not written.
    """
    plain = scale_a is None and scale_b is None and masked_m is None  # scales or counts: no operator
    ops = _ops_for(a[0]) if isinstance(a, (list, tuple)) and a and isinstance(b, (list, tuple)) and plain else None
    if ops is not None:
        d = ops.gemm_grouped(a, b, out, alpha, out_dtype, impl, stream)
        if d is not NotImplemented:
            return d
    return _gemm_grouped(a, b, out, alpha, out_dtype, impl, stream, scale_a=scale_a, scale_b=scale_b,
                         masked_m=masked_m)


def _gemm_grouped(a, b, out, alpha, out_dtype, impl, stream, meta=False, scale_a=None, scale_b=None, masked_m=None):
    """tessel.gemm_grouped without the operator (``meta``: the checks and the allocations alone)."""
    if not has_gemm and not meta:
        raise RuntimeError("tessel was built without CUDA: the GEMMs are not in this build (docs/python.md)")
    if impl != "auto":
        raise GemmError("gemm_grouped runs tessel::gemm_grouped: impl must be 'auto' (got %r)" % (impl, ))
    a, b = list(a), list(b)
    if len(a) != len(b) or not a:
        raise ValueError("a and b must be sequences of the same, non-zero length (got %d and %d)" % (len(a), len(b)))
    if out is not None and len(out) != len(a):
        raise ValueError("out must have one tensor per problem (%d, got %d)" % (len(a), len(out)))
    if (scale_a is None) != (scale_b is None):
        raise ValueError("scale_a and scale_b come together (got only %s)" % ("scale_a" if scale_b is None else "scale_b"))
    if scale_a is not None:
        scale_a, scale_b = list(scale_a), list(scale_b)
        if len(scale_a) != len(a) or len(scale_b) != len(a):
            raise ValueError("scale_a and scale_b must have one tensor per problem (%d, got %d and %d)" %
                             (len(a), len(scale_a), len(scale_b)))
    counts = _read_counts(masked_m, len(a), meta) if masked_m is not None else None
    want = _dtype_name(out_dtype)
    problems, outs, layouts, dtypes, devices, scales = [], [], set(), set(), set(), []
    for g, (x, y) in enumerate(zip(a, b)):
        A, B = _read(x, "a[%d]" % g, meta=meta), _read(y, "b[%d]" % g, meta=meta)
        m, k = A.shape
        k2, n = B.shape
        if k != k2:
            raise ValueError("problem %d: a is %d x %d and b is %d x %d: a's columns must equal b's rows" %
                             (g, m, k, k2, n))
        o = out[g] if out is not None else _empty_like(A, m, n, want or ("bf16" if A.dtype in _FP8 else A.dtype))
        D = _read(o, "out[%d]" % g, meta=meta)
        if D.shape != (m, n):
            raise ValueError("out[%d] must be %d x %d (got %d x %d)" % (g, m, n, D.shape[0], D.shape[1]))
        amaj, bmaj, dmaj = _major(A), _major(B), _major_as(D, "row")
        if amaj is None or bmaj is None:
            raise ValueError("problem %d: a and b must be row- or column-major" % g)
        if dmaj is None:
            raise ValueError("out[%d] must be row-major (strides (ld, 1))" % g)
        layouts.add(("k" if amaj[0] == "row" else "m") + ("n" if bmaj[0] == "row" else "k"))
        dtypes.add((A.dtype, B.dtype, D.dtype))
        devices.update((A.device, B.device, D.device))
        if scale_a is not None:
            mode, pa, pb, sdev = _read_scales(scale_a[g], scale_b[g], m, n, k, meta)
            if A.dtype not in _FP8:
                raise TypeError("scale_a and scale_b scale FP8 a and b (got %s)" % A.dtype)
            scales.append((mode, pa, pb))
            devices.update(sdev)
        problems.append([m, n, k, A, None, B, None, dmaj[1], D.ptr, dmaj[1]])
        outs.append(o)
    amajs, bmajs = _group_major([p[3] for p in problems]), _group_major([p[5] for p in problems])
    if amajs is None or bmajs is None:
        raise ValueError("the problems of a group share one layout (got %s)" % sorted(layouts))
    layouts = {("k" if amajs[0][0] == "row" else "m") + ("n" if bmajs[0][0] == "row" else "k")}
    problems = [(m, n, k, A.ptr, amaj[1], B.ptr, bmaj[1], 0, ldc, dptr, ldd, float(alpha), 0.0)
                for (m, n, k, A, _a, B, _b, ldc, dptr, ldd), amaj, bmaj in zip(problems, amajs, bmajs)]
    mode = "none"
    if scales:
        modes = sorted({s[0] for s in scales})
        if len(modes) != 1:
            raise ValueError("the problems of a group share one FP8 scale mode (got %s)" % modes)
        mode = modes[0]
        problems = [p + (pa, pb) for p, (_, pa, pb) in zip(problems, scales)]
    if counts is not None:
        devices.add(counts[1])
        problems = [p + (counts[0] + 4 * g, ) for g, p in enumerate(problems)]
    if len(dtypes) != 1:
        raise TypeError("the problems of a group share their element types (got %s)" % sorted(dtypes))
    if len(devices) != 1:
        raise ValueError("the problems of a group are on one CUDA device (got %s)" % sorted(devices))
    ab, bt, cd = dtypes.pop()
    types = _input_types(ab, bt)
    if meta:
        return outs
    first = _read(a[0], "a[0]")
    code, message = _tessel._gemm_grouped(types, cd, layouts.pop(), problems, mode,
                                          counts is not None, first.device, _stream_of(first, stream))
    if code != _OK:
        _raise(code, message)
    return outs


def gemm_plan(m, n, k, dtype="bf16", out_dtype=None, device=0):
    """What ``tessel.gemm(impl='auto')`` runs for row-major operands, in the plan's words."""
    if not has_gemm:
        raise RuntimeError("tessel was built without CUDA: the GEMMs are not in this build (docs/python.md)")
    ab = _dtype_name(dtype)
    return _tessel._plan(m, n, k, ab, _dtype_name(out_dtype) or ab, device)


if "torch" in _sys.modules:  # registered now, so that torch.compile never meets their registration
    _load_ops()
