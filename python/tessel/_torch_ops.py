"""tessel's GEMMs as PyTorch custom operators (docs/python.md, "PyTorch: autograd and torch.compile").

``torch.ops.tessel.gemm``, ``gemm_pre``, ``gemm_batched`` and ``gemm_grouped``
run the plain calls of tessel/gemm.py on the tensors they are given; each has
a shape function (``register_fake``: the same checks, no launch, so that
``torch.compile`` and meta tensors see the output's shape and type and the
same errors) and a backward made of tessel's own GEMMs (``register_autograd``).

tessel.gemm, tessel.gemm_batched and tessel.gemm_grouped take this path for
PyTorch tensors where autograd needs it (an input that requires a gradient,
with grad mode on) or a tracer sees the call (``torch.compile``, fake, meta or
other subclassed tensors); elsewhere they call the library directly, as
before, with no operator's overhead.  This module is loaded only where
PyTorch is: ``import tessel`` never imports torch.
"""
import sys
from typing import List, Optional, Tuple

import torch

_g = sys.modules[__name__.rpartition(".")[0] + ".gemm"]

# torch.library.custom_op, register_fake and register_autograd: PyTorch 2.4 and later.  With an
# older PyTorch the calls stay plain: no autograd, and torch.compile breaks the graph around them.
available = hasattr(torch.library, "custom_op") and hasattr(torch.library, "register_fake") and hasattr(
    torch, "compiler") and hasattr(torch.compiler, "is_compiling")
if not available:
    raise ImportError("PyTorch %s has no torch.library.custom_op (2.4 and later)" % torch.__version__)

_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
# FP8 inputs run the plain call (no gradient of FP8 operands, no operator yet).
_FP8 = tuple(getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2") if hasattr(torch, n))
# Activations whose derivative needs the value before the activation (the GEMM's aux output).
_SMOOTH = ("gelu_erf", "gelu_tanh", "silu")

_Tensor, _Parameter = torch.Tensor, torch.nn.Parameter
_grad_enabled, _is_compiling = torch.is_grad_enabled, torch.compiler.is_compiling


def _needs_grad(a, b, c=None, d=None):
    """Whether autograd records the call: grad mode on and an input that requires a gradient
    (written out, not looped: it is on every call's path)."""
    return _grad_enabled() and (getattr(a, "requires_grad", False) or getattr(b, "requires_grad", False) or
                                getattr(c, "requires_grad", False) or getattr(d, "requires_grad", False))


def _traced(x):
    """Whether a tracer sees x: a tensor subclass (fake, functional, ...), a meta tensor, torch.compile."""
    return (type(x) is not _Tensor and type(x) is not _Parameter) or x.is_meta or _is_compiling()


def _not_differentiable(call, what):
    raise RuntimeError("%s with %s writes into tensors it is given or runs on a stream of its own, which "
                       "autograd cannot differentiate: call it without them for a gradient (or under "
                       "torch.no_grad()); a stream is chosen with `with torch.cuda.stream(s):`" % (call, what))


def _foreign(*xs):
    """Whether an operand is not a PyTorch tensor (a CuPy or other DLPack array beside a torch `a`)."""
    for x in xs:
        if x is not None and not isinstance(x, _Tensor):
            return True
    return False


def _plain(traced, call, *args):
    """For arguments the operator does not take: NotImplemented (the plain call runs, and raises
    its error), or on traced tensors the plain call's checks alone (which raise the same error)."""
    return call(*args, meta=True) if traced else NotImplemented


def _out_dtype(x):
    """out_dtype as a torch dtype (None stays None); written for Dynamo, which traces it."""
    if x is None:
        return None
    if isinstance(x, torch.dtype) and x in _DTYPES.values():
        return x
    if isinstance(x, str) and x in _g._DTYPE_NAMES:
        return _DTYPES[_g._DTYPE_NAMES[x]]
    return _DTYPES[_g._dtype_name(x)]  # a NumPy or CuPy dtype; raises TypeError for anything else


def _operand(g, dtype):
    """A gradient as a GEMM operand: the inputs' element type, dense (an expanded gradient has stride 0)."""
    return g.to(dtype).contiguous()


# ---------------------------------------------------------------------------- tessel::gemm and tessel::gemm_pre


def gemm(a, b, c, alpha, beta, bias, activation, out_dtype, out, aux, impl, stream, tune):
    """tessel.gemm through the operators, or NotImplemented for the plain call (which also raises
    the plain call's errors for arguments of the wrong kind)."""
    grad = _needs_grad(a, b, c, bias)
    traced = _traced(a)
    if not (grad or traced) or a.dtype in _FP8:
        return NotImplemented  # the plain call (FP8: no gradient, and no operator yet)
    if out is not None or aux is not None or stream is not None:
        if grad:
            _not_differentiable("tessel.gemm", "out=, aux= or stream=")
        return NotImplemented
    if _foreign(b, c, bias):
        if grad:
            raise RuntimeError("tessel.gemm: autograd needs every operand as a PyTorch tensor")
        return NotImplemented
    if not _g.has_gemm and not traced:
        return NotImplemented
    args = (a, b, c, alpha, beta, bias, activation, out_dtype, None, None, impl, None, tune)
    if activation not in _g._ACTIVATIONS or not isinstance(impl, str) or (tune and impl != "auto"):
        return _plain(traced, _g._gemm, *args)
    try:
        dtype = _out_dtype(out_dtype)
    except TypeError:
        return _plain(traced, _g._gemm, *args)
    act = _g._ACTIVATIONS[activation]
    if grad and act in _SMOOTH:
        return torch.ops.tessel.gemm_pre(a, b, c, float(alpha), float(beta), bias, act, dtype, impl, bool(tune))[0]
    return torch.ops.tessel.gemm(a, b, c, float(alpha), float(beta), bias, act, dtype, impl, bool(tune))


@torch.library.custom_op("tessel::gemm", mutates_args=())
def _gemm_op(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
             bias: Optional[torch.Tensor], activation: str, out_dtype: Optional[torch.dtype], impl: str,
             tune: bool) -> torch.Tensor:
    """activation(alpha * a @ b + beta * c + bias) by tessel::gemm, into a new row-major tensor."""
    return _g._gemm(a, b, c, alpha, beta, bias, activation, out_dtype, None, None, impl, None, tune)


@_gemm_op.register_fake
def _gemm_fake(a, b, c, alpha, beta, bias, activation, out_dtype, impl, tune):
    return _g._gemm(a, b, c, alpha, beta, bias, activation, out_dtype, None, None, impl, None, tune, meta=True)


@torch.library.custom_op("tessel::gemm_pre", mutates_args=())
def _gemm_pre_op(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
                 bias: Optional[torch.Tensor], activation: str, out_dtype: Optional[torch.dtype], impl: str,
                 tune: bool) -> Tuple[torch.Tensor, torch.Tensor]:
    """tessel::gemm and the value before the activation (the epilogue's aux output): what the
    backward of a smooth activation needs, written by the same kernel."""
    d = _g._gemm(a, b, c, alpha, beta, bias, activation, out_dtype, None, None, impl, None, tune, meta=True)
    pre = torch.empty_like(d)
    _g._gemm(a, b, c, alpha, beta, bias, activation, out_dtype, d, pre, impl, None, tune)
    return d, pre


@_gemm_pre_op.register_fake
def _gemm_pre_fake(a, b, c, alpha, beta, bias, activation, out_dtype, impl, tune):
    d = _g._gemm(a, b, c, alpha, beta, bias, activation, out_dtype, None, None, impl, None, tune, meta=True)
    return d, torch.empty_like(d)


def _gemm_setup(ctx, inputs, output):
    a, b, c, alpha, beta, bias, activation, _out_dtype_, _impl, tune = inputs
    if activation == "relu":
        kept = output  # relu' is (D > 0)
    elif isinstance(output, (tuple, list)):
        kept = output[1]  # gemm_pre: the value before the activation
    else:
        kept = None  # recomputed by a GEMM in the backward where the activation needs it
    ctx.save_for_backward(a, b, c, bias, kept)
    ctx.alpha, ctx.beta, ctx.activation, ctx.tune = alpha, beta, activation, tune


def _gemm_backward(ctx, grad, grad_pre=None):
    """dX = g for X = alpha A B + beta C + bias, g = grad * activation'(X): dA = alpha g B^T, dB = alpha A^T g
    (tessel's GEMMs on transposed views: no copy of A or B), dC = beta g, dbias = g summed over
    the broadcast dimension."""
    a, b, c, bias, kept = ctx.saved_tensors
    act, alpha = ctx.activation, ctx.alpha
    g = grad
    if act == "relu":
        g = torch.ops.aten.threshold_backward(g, kept, 0)
    elif act in _SMOOTH:
        pre = kept
        if pre is None:
            pre = torch.ops.tessel.gemm(a, b, c, alpha, ctx.beta, bias, "none", grad.dtype, "auto", False)
        if act == "silu":
            g = torch.ops.aten.silu_backward(g, pre)
        else:
            g = torch.ops.aten.gelu_backward(g, pre, approximate="tanh" if act == "gelu_tanh" else "none")
    if grad_pre is not None:
        g = g + grad_pre
    need = ctx.needs_input_grad
    da = db = dc = dbias = None
    if need[0] or need[1]:
        ga = _operand(g, a.dtype)
        if need[0]:
            da = torch.ops.tessel.gemm(ga, b.t(), None, alpha, 0.0, None, "none", a.dtype, "auto", ctx.tune)
        if need[1]:
            db = torch.ops.tessel.gemm(a.t(), ga, None, alpha, 0.0, None, "none", b.dtype, "auto", ctx.tune)
    if c is not None and need[2]:
        dc = (g * ctx.beta).to(c.dtype)
    if bias is not None and need[5]:
        n = g.shape[1]
        if bias.dim() == 1 or (bias.shape[0] == 1 and bias.shape[1] == n):  # one value per column
            dbias = g.sum(0, keepdim=bias.dim() == 2, dtype=torch.float32)
        else:  # (M, 1): one value per row
            dbias = g.sum(1, keepdim=True, dtype=torch.float32)
        dbias = dbias.to(bias.dtype)
    return da, db, dc, None, None, dbias, None, None, None, None


_gemm_op.register_autograd(_gemm_backward, setup_context=_gemm_setup)
_gemm_pre_op.register_autograd(_gemm_backward, setup_context=_gemm_setup)

# ---------------------------------------------------------------------------- tessel::gemm_batched


def gemm_batched(a, b, c, alpha, beta, out_dtype, out, impl, stream):
    """tessel.gemm_batched through the operator, or NotImplemented for the plain call."""
    grad = _needs_grad(a, b, c)
    traced = _traced(a)
    if not (grad or traced) or a.dtype in _FP8:  # FP8: no operator yet, as tessel.gemm
        return NotImplemented
    if out is not None or stream is not None:
        if grad:
            _not_differentiable("tessel.gemm_batched", "out= or stream=")
        return NotImplemented
    if _foreign(b, c):
        if grad:
            raise RuntimeError("tessel.gemm_batched: autograd needs every operand as a PyTorch tensor")
        return NotImplemented
    if not _g.has_gemm and not traced:
        return NotImplemented
    args = (a, b, c, alpha, beta, out_dtype, None, impl, None)
    if not isinstance(impl, str):
        return _plain(traced, _g._gemm_batched, *args)
    try:
        dtype = _out_dtype(out_dtype)
    except TypeError:
        return _plain(traced, _g._gemm_batched, *args)
    return torch.ops.tessel.gemm_batched(a, b, c, float(alpha), float(beta), dtype, impl)


@torch.library.custom_op("tessel::gemm_batched", mutates_args=())
def _batched_op(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
                out_dtype: Optional[torch.dtype], impl: str) -> torch.Tensor:
    """alpha * a[i] @ b[i] + beta * c[i] by tessel::gemm's strided batch (a 2-D a, b or c is shared)."""
    return _g._gemm_batched(a, b, c, alpha, beta, out_dtype, None, impl, None)


@_batched_op.register_fake
def _batched_fake(a, b, c, alpha, beta, out_dtype, impl):
    return _g._gemm_batched(a, b, c, alpha, beta, out_dtype, None, impl, None, meta=True)


def _batched_setup(ctx, inputs, output):
    a, b, c, alpha, beta, _out_dtype_, _impl = inputs
    ctx.save_for_backward(a, b, c)
    ctx.alpha, ctx.beta = alpha, beta


def _batched_backward(ctx, grad):
    """As tessel::gemm's, per batch; a matrix shared across the batch (2-D) gets the sum over the
    batch, as one GEMM whose reduction runs over the batch too."""
    a, b, c = ctx.saved_tensors
    alpha = ctx.alpha
    need = ctx.needs_input_grad
    da = db = dc = None
    g = _operand(grad, a.dtype) if need[0] or need[1] else None
    batch, m, n = grad.shape
    if need[0]:
        if a.dim() == 3:  # b 3-D or shared: a batched GEMM
            da = torch.ops.tessel.gemm_batched(g, b.transpose(-2, -1), None, alpha, 0.0, a.dtype, "auto")
        else:  # sum_i g_i b_i^T = [g_0 .. g_B-1] (M x B*N) @ [b_0^T; ..; b_B-1^T] (B*N x K)
            k = a.shape[1]
            gs = g.permute(1, 0, 2).reshape(m, batch * n)
            bs = b.transpose(-2, -1).reshape(batch * n, k)
            da = torch.ops.tessel.gemm(gs, bs, None, alpha, 0.0, None, "none", a.dtype, "auto", False)
    if need[1]:
        if b.dim() == 3:
            db = torch.ops.tessel.gemm_batched(a.transpose(-2, -1), g, None, alpha, 0.0, b.dtype, "auto")
        else:  # sum_i a_i^T g_i = (a as B*M x K)^T @ (g as B*M x N)
            k = b.shape[0]
            aa = a.reshape(batch * m, k)
            db = torch.ops.tessel.gemm(aa.t(), g.reshape(batch * m, n), None, alpha, 0.0, None, "none", b.dtype,
                                       "auto", False)
    if c is not None and need[2]:
        dc = grad * ctx.beta if c.dim() == 3 else grad.sum(0, dtype=torch.float32) * ctx.beta
        dc = dc.to(c.dtype)
    return da, db, dc, None, None, None, None


_batched_op.register_autograd(_batched_backward, setup_context=_batched_setup)

# ---------------------------------------------------------------------------- tessel::gemm_grouped


def gemm_grouped(a, b, out, alpha, out_dtype, impl, stream):
    """tessel.gemm_grouped through the operator, or NotImplemented for the plain call."""
    grad = _grad_enabled() and any(getattr(x, "requires_grad", False) for x in list(a) + list(b))
    traced = _traced(a[0])
    if not (grad or traced):
        return NotImplemented
    if out is not None or stream is not None:
        if grad:
            _not_differentiable("tessel.gemm_grouped", "out= or stream=")
        return NotImplemented
    if not _g.has_gemm and not traced:
        return NotImplemented
    args = (a, b, None, alpha, out_dtype, impl, None)
    if impl != "auto" or not isinstance(b, (list, tuple)):
        return _plain(traced, _g._gemm_grouped, *args)
    if _foreign(*a, *b):
        if grad:
            raise RuntimeError("tessel.gemm_grouped: autograd needs every operand as a PyTorch tensor")
        return NotImplemented
    try:
        dtype = _out_dtype(out_dtype)
    except TypeError:
        return _plain(traced, _g._gemm_grouped, *args)
    return torch.ops.tessel.gemm_grouped(list(a), list(b), float(alpha), dtype, impl)


@torch.library.custom_op("tessel::gemm_grouped", mutates_args=())
def _grouped_op(a: List[torch.Tensor], b: List[torch.Tensor], alpha: float, out_dtype: Optional[torch.dtype],
                impl: str) -> List[torch.Tensor]:
    """alpha * a[g] @ b[g] for each problem g, in one launch of tessel::gemm_grouped."""
    return _g._gemm_grouped(a, b, None, alpha, out_dtype, impl, None)


@_grouped_op.register_fake
def _grouped_fake(a, b, alpha, out_dtype, impl):
    return _g._gemm_grouped(a, b, None, alpha, out_dtype, impl, None, meta=True)


def _grouped_setup(ctx, inputs, output):
    a, b, alpha, _out_dtype_, _impl = inputs
    ctx.save_for_backward(*a, *b)
    ctx.count, ctx.alpha = len(a), alpha


def _grouped_backward(ctx, grads):
    """Problem by problem as tessel::gemm's, each direction one grouped launch."""
    saved = ctx.saved_tensors
    a, b = saved[:ctx.count], saved[ctx.count:]
    need = ctx.needs_input_grad
    gs = [
        _operand(g if g is not None else torch.zeros(x.shape[0], y.shape[1], dtype=x.dtype, device=x.device), x.dtype)
        for g, x, y in zip(grads, a, b)
    ]
    da = db = None
    if need[0]:
        da = torch.ops.tessel.gemm_grouped(gs, [y.t() for y in b], ctx.alpha, a[0].dtype, "auto")
    if need[1]:
        db = torch.ops.tessel.gemm_grouped([x.t() for x in a], gs, ctx.alpha, b[0].dtype, "auto")
    return da, db, None, None, None


_grouped_op.register_autograd(_grouped_backward, setup_context=_grouped_setup)

# ---------------------------------------------------------------- attention (forward only)

_att = sys.modules[__name__.rpartition(".")[0] + ".attention"]


@torch.library.custom_op("tessel::attention", mutates_args=())
def _attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: Optional[float],
                  cu_seqlens_q: Optional[torch.Tensor], cu_seqlens_k: Optional[torch.Tensor],
                  max_seqlen_q: Optional[int], max_seqlen_k: Optional[int],
                  impl: str) -> Tuple[torch.Tensor, torch.Tensor]:
    return _att._run(q, k, v, causal, scale, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, impl)


@_attention_op.register_fake
def _attention_fake(q, k, v, causal, scale, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, impl):
    packed = cu_seqlens_q is not None
    lse_shape = (q.shape[1], q.shape[0]) if packed else (q.shape[0], q.shape[1], q.shape[2])
    return q.new_empty(q.shape), q.new_empty(lse_shape, dtype=torch.float32)


def attention_needs_op(q, k, v):
    """Whether tessel.attention goes through the operator (a tracer sees it); an input that
    requires a gradient is refused: the kernels have no backward yet."""
    if _needs_grad(q, k, v):
        raise RuntimeError("tessel.attention has no backward yet: call it under torch.no_grad() or on tensors "
                           "that do not require a gradient (torch's scaled_dot_product_attention has one)")
    return _traced(q) or _traced(k) or _traced(v)


def attention_op(q, k, v, causal, scale, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, impl):
    return _attention_op(q, k, v, causal, scale, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, impl)
