"""tessel's GEMMs as PyTorch custom operators (tessel/_torch_ops.py).

Without a GPU: the operators' shape functions on meta tensors (shapes, element
types, the plain call's errors), torch.compile's tracing of them on meta
tensors, and the backward formulas against PyTorch's autograd with a float64
stand-in kernel registered for CPU tensors.  With a GPU: gradients by
tessel's GEMMs against float64 references under the tier-2 bound of
docs/bench-protocol.md (derived below for each gradient) and against
torch.matmul's own error, and torch.compile without graph breaks giving
eager's results.
"""
import pytest

import tessel

torch = pytest.importorskip("torch", reason="PyTorch is not installed: tessel's custom operators need it")

if not hasattr(torch.library, "custom_op"):
    pytest.skip("PyTorch %s has no torch.library.custom_op (2.4 and later)" % torch.__version__,
                allow_module_level=True)

needs_gpu = pytest.mark.skipif(not (tessel.has_gemm and torch.cuda.is_available()),
                               reason="no CUDA GPU (or a build without tessel.gemm): GPU tests skipped")

U = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11, torch.float32: 2.0**-24}
# The smallest subnormal: a result that small is rounded to its spacing, not relatively.
TINY = {torch.bfloat16: 2.0**-133, torch.float16: 2.0**-24, torch.float32: 2.0**-149}
ACC = 2.0**-24  # fp32 accumulation, per product summed


def tier2(ref, absprod, length, dtype):
    """docs/bench-protocol.md's tier-2 bound of a GEMM into dtype whose reduction sums `length`
    products (absprod: the product of the absolute values), plus the subnormal spacing."""
    return 2 * U[dtype] * ref.abs() + 2 * length * ACC * absprod + TINY[dtype]
ACTIVATIONS = {
    None: lambda x: x,
    "relu": torch.relu,
    "gelu": torch.nn.functional.gelu,
    "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
    "silu": torch.nn.functional.silu,
}


def meta(*shape, dtype=torch.bfloat16, grad=False):
    return torch.empty(*shape, dtype=dtype, device="meta", requires_grad=grad)


# ---------------------------------------------------------------------------- CPU: shapes, errors, tracing


def test_operators_are_registered():
    from tessel import _torch_ops  # registered at `import tessel` after torch, else on first use: here
    assert _torch_ops.available
    for name in ("gemm", "gemm_pre", "gemm_batched", "gemm_grouped"):
        assert hasattr(torch.ops.tessel, name), name


@pytest.mark.parametrize("out_dtype,c_dtype,want", [(None, None, torch.bfloat16), ("fp32", None, torch.float32),
                                                    (torch.float16, None, torch.float16),
                                                    (None, torch.float32, torch.float32)])
def test_meta_shapes_and_types(out_dtype, c_dtype, want):
    a, b = meta(200, 96), meta(96, 136)
    c = meta(200, 136, dtype=c_dtype) if c_dtype is not None else None
    d = tessel.gemm(a, b, c=c, beta=1.0 if c is not None else 0.0, out_dtype=out_dtype)
    assert (d.shape, d.dtype, d.device.type) == ((200, 136), want, "meta")
    bias = meta(136, dtype=want)
    d = tessel.gemm(a.t().contiguous().t(), b, bias=bias, activation="gelu", out_dtype=want)
    assert (d.shape, d.dtype) == ((200, 136), want)
    d = torch.ops.tessel.gemm(a, b, None, 1.0, 0.0, None, "none", torch.float32, "auto", False)
    assert (d.shape, d.dtype, d.is_contiguous()) == ((200, 136), torch.float32, True)
    d, pre = torch.ops.tessel.gemm_pre(a, b, None, 1.0, 0.0, None, "silu", None, "auto", False)
    assert d.shape == pre.shape == (200, 136) and d.dtype == pre.dtype == torch.bfloat16


def test_meta_batched_and_grouped_shapes():
    assert tessel.gemm_batched(meta(3, 64, 32), meta(3, 32, 48)).shape == (3, 64, 48)
    assert tessel.gemm_batched(meta(3, 64, 32), meta(32, 48), out_dtype="fp32").dtype == torch.float32
    assert tessel.gemm_batched(meta(64, 32), meta(5, 32, 48)).shape == (5, 64, 48)
    outs = tessel.gemm_grouped([meta(1, 32), meta(37, 32)], [meta(32, 16), meta(32, 8)], out_dtype="fp32")
    assert [tuple(o.shape) for o in outs] == [(1, 16), (37, 8)]
    assert all(o.dtype == torch.float32 for o in outs)


def test_meta_errors_are_the_plain_calls():
    a, b = meta(64, 32), meta(32, 48)
    with pytest.raises(ValueError, match="a's columns must equal b's rows"):
        tessel.gemm(a, meta(16, 48))
    with pytest.raises(TypeError, match="element type"):
        tessel.gemm(a.to(torch.int32), b)
    with pytest.raises(TypeError, match="one element type"):
        tessel.gemm(a, b.half())
    with pytest.raises(ValueError, match="needs c"):
        tessel.gemm(a, b, beta=1.0)
    with pytest.raises(ValueError, match="broadcast"):
        tessel.gemm(a, b, bias=meta(47))
    with pytest.raises(ValueError, match="activation"):
        tessel.gemm(a, b, activation="tanh")
    with pytest.raises(ValueError, match="batch counts"):
        tessel.gemm_batched(meta(2, 64, 32), meta(3, 32, 48))
    with pytest.raises(ValueError, match="must be row- or column-major"):
        tessel.gemm(meta(64, 64)[:, ::2], b)


def test_writing_calls_refuse_autograd():
    a, b = meta(64, 32, grad=True), meta(32, 48)
    for kwargs in ({"out": meta(64, 48)}, {"aux": meta(64, 48)}, {"stream": 0}):
        with pytest.raises(RuntimeError, match="autograd cannot differentiate"):
            tessel.gemm(a, b, **kwargs)
    with pytest.raises(RuntimeError, match="autograd cannot differentiate"):
        tessel.gemm_batched(meta(2, 64, 32, grad=True), b, out=meta(2, 64, 48))
    with pytest.raises(RuntimeError, match="autograd cannot differentiate"):
        tessel.gemm_grouped([a], [b], out=[meta(64, 48)])
    with torch.no_grad():  # no gradient wanted: the writing call is taken as it is
        assert tessel.gemm(a, b, out_dtype="fp32").dtype == torch.float32


def test_meta_gradients_have_the_inputs_shapes():
    a, b = meta(64, 32, grad=True), meta(32, 48, grad=True)
    bias = meta(64, 1, grad=True)
    d = tessel.gemm(a, b, bias=bias, activation="gelu")
    ga, gb, gbias = torch.autograd.grad(d.sum(), (a, b, bias))
    assert (ga.shape, gb.shape, gbias.shape) == (a.shape, b.shape, bias.shape)
    assert ga.dtype == gb.dtype == gbias.dtype == torch.bfloat16
    x, w = meta(4, 64, 32, grad=True), meta(32, 48, grad=True)
    gx, gw = torch.autograd.grad(tessel.gemm_batched(x, w).sum(), (x, w))
    assert (gx.shape, gw.shape) == (x.shape, w.shape)
    xs, ws = [meta(5, 32, grad=True), meta(9, 32, grad=True)], [meta(32, 16, grad=True), meta(32, 16, grad=True)]
    grads = torch.autograd.grad(sum(o.sum() for o in tessel.gemm_grouped(xs, ws)), xs + ws)
    assert [g.shape for g in grads] == [t.shape for t in xs + ws]


def opcheck_cases(make):
    """(operator, arguments) of each operator, on tensors that make(*shape, grad=) builds."""
    a, b, bias = make(64, 32, grad=True), make(32, 48, grad=True), make(48, grad=True)
    return [(torch.ops.tessel.gemm, (a, b, None, 0.5, 0.0, bias, "relu", None, "auto", False)),
            (torch.ops.tessel.gemm_pre, (a, b, None, 0.5, 0.0, bias, "gelu_erf", None, "auto", False)),
            (torch.ops.tessel.gemm_batched, (make(3, 64, 32, grad=True), b, None, 1.0, 0.0, None, "auto")),
            (torch.ops.tessel.gemm_grouped, ([a, make(16, 32, grad=True)], [b, b], 1.0, None, "auto"))]


@pytest.mark.parametrize("case", range(4))
def test_opcheck_on_meta(case):
    """PyTorch's own checks of a custom operator: schema, autograd registration, the shape
    function against the kernel (here the meta kernel), AOT dispatch with dynamic shapes."""
    op, args = opcheck_cases(meta)[case]
    torch.library.opcheck(op, args)


def f_epilogue(a, b, bias):
    return tessel.gemm(a, b, bias=bias, activation="relu", alpha=0.5) * 2


def f_batched_grouped(x, w, a, b):
    y = tessel.gemm_batched(x, w, out_dtype="fp32")
    z = tessel.gemm_grouped([a, a], [b, b])
    return y.sum() + z[0].float().sum() + z[1].float().sum()


def f_batched_grouped_outputs(x, w, a, b):
    return (tessel.gemm_batched(x, w, out_dtype="fp32"), ) + tuple(tessel.gemm_grouped([a, a], [b, b]))


def test_dynamo_traces_without_graph_breaks_on_meta():
    a, b, bias = meta(64, 32), meta(32, 48), meta(48)
    explain = torch._dynamo.explain(f_epilogue)(a, b, bias)
    assert explain.graph_break_count == 0, explain.break_reasons
    assert explain.graph_count == 1
    explain = torch._dynamo.explain(f_batched_grouped)(meta(3, 64, 32), meta(32, 48), a, b)
    assert explain.graph_break_count == 0, explain.break_reasons


def test_first_call_under_dynamo_registers_and_traces():
    """`import tessel` before torch, and the first call inside torch.compile: the operators are
    registered then, and the graph still has no break (in a fresh interpreter)."""
    import os
    import subprocess
    import sys
    code = ("import tessel, torch\n"
            "a = torch.empty(64, 32, dtype=torch.bfloat16, device='meta')\n"
            "e = torch._dynamo.explain(lambda a: tessel.gemm(a, a.t()) * 2)(a)\n"
            "assert e.graph_break_count == 0, e.break_reasons\n"
            "assert 'torch.ops.tessel.gemm' in e.graphs[0].code, e.graphs[0].code\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))


def test_compiled_backward_traces_on_meta():
    torch._dynamo.reset()
    a, b, bias = meta(64, 32, grad=True), meta(32, 48, grad=True), meta(48, grad=True)
    f = torch.compile(lambda a, b, bias: tessel.gemm(a, b, bias=bias, activation="silu").sum(),
                      backend="aot_eager",
                      fullgraph=True)
    loss = f(a, b, bias)
    loss.backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape and bias.grad.shape == bias.shape


# ---------------------------------------------------------------------------- CPU: the backward formulas


def _stand_in(a, b, c, alpha, beta, bias, activation):
    """What tessel::gemm computes, in float64 on the CPU: the pre-activation and the output."""
    x = alpha * (a.double() @ b.double())
    if c is not None and beta != 0:
        x = x + beta * c.double()
    if bias is not None:
        x = x + bias.double()
    act = {"none": None, "gelu_erf": "gelu"}.get(activation, activation)
    return x, ACTIVATIONS[act](x)


@pytest.fixture
def cpu_stand_in(monkeypatch):
    """A float64 CPU kernel for each operator (registered for this test, removed after), so that
    the backward's GEMMs, transposes, sums and derivatives run without a GPU."""
    from tessel import _torch_ops
    gemm_module = _torch_ops._g
    monkeypatch.setattr(gemm_module, "has_gemm", True)

    def out_type(a, c, out_dtype):
        return out_dtype or (c.dtype if c is not None else a.dtype)

    def gemm(a, b, c, alpha, beta, bias, activation, out_dtype, impl, tune):
        return _stand_in(a, b, c, alpha, beta, bias, activation)[1].to(out_type(a, c, out_dtype))

    def gemm_pre(a, b, c, alpha, beta, bias, activation, out_dtype, impl, tune):
        x, y = _stand_in(a, b, c, alpha, beta, bias, activation)
        return y.to(out_type(a, c, out_dtype)), x.to(out_type(a, c, out_dtype))

    def batched(a, b, c, alpha, beta, out_dtype, impl):
        return _stand_in(a, b, c, alpha, beta, None, "none")[1].to(out_type(a, c, out_dtype))

    def grouped(a, b, alpha, out_dtype, impl):
        return [_stand_in(x, y, None, alpha, 0.0, None, "none")[1].to(out_dtype or x.dtype) for x, y in zip(a, b)]

    lib = torch.library.Library("tessel", "FRAGMENT")
    for name, fn in (("gemm", gemm), ("gemm_pre", gemm_pre), ("gemm_batched", batched), ("gemm_grouped", grouped)):
        lib.impl(name, fn, "CPU")
    yield
    lib._destroy()


def _cpu(*shape, seed, grad=True):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g, dtype=torch.float64) * 2 - 1).float().requires_grad_(grad)


@pytest.mark.parametrize("activation", [None, "relu", "gelu", "gelu_tanh", "silu"])
@pytest.mark.parametrize("bias_shape", ["none", "col", "col2d", "row"])
def test_backward_formulas_on_cpu(cpu_stand_in, activation, bias_shape):
    m, n, k = 12, 10, 7
    a, b, c = _cpu(m, k, seed=1), _cpu(n, k, seed=2).t(), _cpu(m, n, seed=3)
    bias = {"none": None, "col": _cpu(n, seed=4), "col2d": _cpu(1, n, seed=4), "row": _cpu(m, 1, seed=4)}[bias_shape]
    w = _cpu(m, n, seed=5, grad=False)
    d = tessel.gemm(a, b, c=c, alpha=0.5, beta=-0.75, bias=bias, activation=activation)
    assert d.grad_fn is not None
    inputs = [t for t in (a, b, c, bias) if t is not None]
    got = torch.autograd.grad((d * w).sum(), inputs)
    pre = 0.5 * (a.double() @ b.double()) - 0.75 * c.double() + (bias.double() if bias is not None else 0)
    want = torch.autograd.grad((ACTIVATIONS[activation](pre) * w.double()).sum(), inputs)
    for x, y, t in zip(got, want, inputs):
        assert x.shape == t.shape and x.dtype == t.dtype
        torch.testing.assert_close(x.double(), y.double(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shared", ["none", "a", "b"])
def test_batched_backward_formulas_on_cpu(cpu_stand_in, shared):
    batch, m, n, k = 3, 6, 5, 4
    a = _cpu(m, k, seed=1) if shared == "a" else _cpu(batch, m, k, seed=1)
    b = _cpu(k, n, seed=2) if shared == "b" else _cpu(batch, n, k, seed=2).transpose(1, 2)
    c = _cpu(m, n, seed=3)  # shared across the batch
    w = _cpu(batch, m, n, seed=4, grad=False)
    d = tessel.gemm_batched(a, b, c=c, alpha=2.0, beta=0.5)
    got = torch.autograd.grad((d * w).sum(), (a, b, c))
    ref = 2.0 * torch.matmul(a.double(), b.double()) + 0.5 * c.double()
    want = torch.autograd.grad((ref * w.double()).sum(), (a, b, c))
    for x, y, t in zip(got, want, (a, b, c)):
        assert x.shape == t.shape
        torch.testing.assert_close(x.double(), y.double(), rtol=1e-5, atol=1e-5)


def test_grouped_backward_formulas_on_cpu(cpu_stand_in):
    k, n = 6, 5
    a = [_cpu(mg, k, seed=10 + g) for g, mg in enumerate([1, 4, 7])]
    b = [_cpu(k, n, seed=20 + g) for g in range(3)]
    d = tessel.gemm_grouped(a, b, alpha=0.25)
    w = [_cpu(*x.shape, seed=30 + g, grad=False) for g, x in enumerate(d)]
    got = torch.autograd.grad(sum((x * y).sum() for x, y in zip(d, w)), a + b)
    ref = sum(((0.25 * (x.double() @ y.double())) * z.double()).sum() for x, y, z in zip(a, b, w))
    want = torch.autograd.grad(ref, a + b)
    for x, y in zip(got, want):
        torch.testing.assert_close(x.double(), y.double(), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------- GPU: gradients under the protocol's bound


def _rand(shape, dtype, seed, major="row"):
    """Uniform in [-1, 1], rounded to dtype (tier 2's inputs), row- or column-major."""
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(*shape, generator=g, dtype=torch.float64) * 2 - 1).to(dtype)
    if major == "col":
        x = x.transpose(-2, -1).contiguous().transpose(-2, -1)
    return x.cuda()


def _normalized(x, ref, bound):
    """max |x - ref| / bound (the protocol's normalized error); NaN never passes."""
    x = x.detach().double().cpu()
    assert not torch.isnan(x).any()
    return ((x - ref).abs() / bound).max().item()


def _check(got, theirs, ref, bound, what):
    """Within the bound, and (where not far inside it) at most twice torch.matmul's error."""
    e, e_torch = _normalized(got, ref, bound), _normalized(theirs, ref, bound)
    assert e <= 1.0, "%s: %.3g of the bound (torch.matmul %.3g)" % (what, e, e_torch)
    assert e < 1 / 32 or e <= 2 * e_torch, "%s: %.3g of the bound, torch.matmul %.3g" % (what, e, e_torch)


@needs_gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("amaj,bmaj", [("row", "row"), ("col", "row"), ("row", "col"), ("col", "col")])
def test_gemm_gradients_within_the_bound(dtype, amaj, bmaj):
    m, n, k = 200, 136, 96
    alpha, beta = 0.5, 0.75
    a = _rand((m, k), dtype, 1, amaj).requires_grad_()
    b = _rand((k, n), dtype, 2, bmaj).requires_grad_()
    c = _rand((m, n), dtype, 3).requires_grad_()
    w = _rand((m, n), dtype, 4)  # the gradient of D: exact in every type
    d = tessel.gemm(a, b, c=c, alpha=alpha, beta=beta)
    assert d.grad_fn is not None
    ga, gb, gc = torch.autograd.grad((d * w).sum(), (a, b, c))
    at, bt, ct = (t.detach().clone().requires_grad_() for t in (a, b, c))
    ta, tb, tc = torch.autograd.grad(((alpha * torch.matmul(at, bt) + beta * ct) * w).sum(), (at, bt, ct))
    A, B, W = (t.detach().double().cpu() for t in (a, b, w))
    # dA = alpha W B^T: a GEMM of reduction length N; dB = alpha A^T W: length M.
    ref = alpha * W @ B.t()
    _check(ga, ta, ref, tier2(ref, alpha * (W.abs() @ B.abs().t()), n, dtype), "dA")
    ref = alpha * A.t() @ W
    _check(gb, tb, ref, tier2(ref, alpha * (A.abs().t() @ W.abs()), m, dtype), "dB")
    ref = beta * W  # dC = beta W: one rounding
    assert _normalized(gc, ref, U[dtype] * ref.abs() + TINY[dtype]) <= 1.0
    assert ga.dtype == gb.dtype == gc.dtype == dtype


def _act_derivative(activation, x):
    """activation'(x) in float64, and a bound of |activation''| (how an error of x moves the derivative)."""
    x = x.clone().requires_grad_()
    (g, ) = torch.autograd.grad(ACTIVATIONS[activation](x).sum(), x)
    return g, (0.0 if activation in (None, "relu") else 1.0)


@needs_gpu
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "gelu_tanh", "silu"])
@pytest.mark.parametrize("bias_shape", ["col", "row"])
def test_epilogue_gradients_within_the_derived_bound(activation, bias_shape):
    """bf16 inputs, fp32 output.  The backward computes G = W * act'(pre) from the fp32 value
    before the activation, rounds G to bf16 for its GEMMs and sums G for the bias; the bound
    adds to tier 2's terms what those steps can cost (E below)."""
    m, n, k = 192, 320, 128
    alpha, beta = 0.5, 1.0
    a = _rand((m, k), torch.bfloat16, 11).requires_grad_()
    b = _rand((k, n), torch.bfloat16, 12).requires_grad_()
    c = _rand((m, n), torch.float32, 13).requires_grad_()
    bias = _rand((n, ) if bias_shape == "col" else (m, 1), torch.float32, 14).requires_grad_()
    w = _rand((m, n), torch.float32, 15)
    d = tessel.gemm(a, b, c=c, alpha=alpha, beta=beta, bias=bias, activation=activation, out_dtype="fp32")
    ga, gb, gc, gbias = torch.autograd.grad((d * w).sum(), (a, b, c, bias))
    A, B, C, BIAS, W = (t.detach().double().cpu() for t in (a, b, c, bias, w))
    pre = alpha * A @ B + beta * C + BIAS
    # The fp32 pre-activation's error (tier 2 with the C and bias terms), and what it moves in G.
    e_pre = 2 * U[torch.float32] * (pre.abs() + (beta * C).abs() + BIAS.abs()) + 2 * k * ACC * alpha * (A.abs() @ B.abs())
    deriv, second = _act_derivative(activation, pre)
    G = W * deriv
    E = W.abs() * (second * e_pre + 2.0**-20)  # + the fp32 evaluation of the derivative
    if activation == "relu":  # where the sign of pre is in doubt, the derivative may be 0 or 1
        E = E + W.abs() * (pre.abs() <= e_pre)
    u_in = U[torch.bfloat16]
    Gerr = u_in * (G.abs() + E) + E  # rounded to bf16 for the GEMMs
    ref = alpha * G @ B.t()
    bound = tier2(ref, alpha * (G.abs() @ B.abs().t()), n, torch.bfloat16) + alpha * (Gerr @ B.abs().t())
    assert _normalized(ga, ref, bound) <= 1.0
    ref = alpha * A.t() @ G
    bound = tier2(ref, alpha * (A.abs().t() @ G.abs()), m, torch.bfloat16) + alpha * (A.abs().t() @ Gerr)
    assert _normalized(gb, ref, bound) <= 1.0
    ref = beta * G
    assert _normalized(gc, ref, tier2(ref, 0, 0, torch.float32) + beta * E) <= 1.0
    dim, length = (0, m) if bias_shape == "col" else (1, n)
    ref = G.sum(dim).reshape(BIAS.shape)
    bound = tier2(ref, G.abs().sum(dim).reshape(BIAS.shape), length, torch.float32) + E.sum(dim).reshape(BIAS.shape)
    assert _normalized(gbias, ref, bound) <= 1.0


@needs_gpu
@pytest.mark.parametrize("shared", ["none", "a", "b"])
def test_batched_gradients_within_the_bound(shared):
    batch, m, n, k = 3, 136, 96, 64
    dtype, alpha, beta = torch.bfloat16, 0.5, 0.75
    a = (_rand((m, k), dtype, 21) if shared == "a" else _rand((batch, m, k), dtype, 21)).requires_grad_()
    b = (_rand((k, n), dtype, 22) if shared == "b" else _rand((batch, k, n), dtype, 22, "col")).requires_grad_()
    c = _rand((batch, m, n), dtype, 23).requires_grad_()
    w = _rand((batch, m, n), dtype, 24)
    d = tessel.gemm_batched(a, b, c=c, alpha=alpha, beta=beta)
    ga, gb = torch.autograd.grad((d * w).sum(), (a, b))
    at, bt = (t.detach().clone().requires_grad_() for t in (a, b))
    ta, tb = torch.autograd.grad(((alpha * torch.matmul(at, bt) + beta * c.detach()) * w).sum(), (at, bt))
    A, B, W = (t.detach().double().cpu() for t in (a, b, w))
    ref = alpha * W @ B.transpose(-2, -1)
    absprod = alpha * W.abs() @ B.abs().transpose(-2, -1)
    length = n
    if shared == "a":  # summed over the batch: one GEMM of reduction length batch * N
        ref, absprod, length = ref.sum(0), absprod.sum(0), batch * n
    _check(ga, ta, ref, tier2(ref, absprod, length, dtype), "dA")
    ref = alpha * A.transpose(-2, -1) @ W
    absprod = alpha * A.abs().transpose(-2, -1) @ W.abs()
    length = m
    if shared == "b":
        ref, absprod, length = ref.sum(0), absprod.sum(0), batch * m
    _check(gb, tb, ref, tier2(ref, absprod, length, dtype), "dB")


@needs_gpu
def test_grouped_gradients_within_the_bound():
    n, k = 256, 192
    dtype, alpha = torch.float16, 0.5
    tokens = [1, 37, 128, 300]
    a = [_rand((mg, k), dtype, 30 + g).requires_grad_() for g, mg in enumerate(tokens)]
    b = [_rand((k, n), dtype, 40 + g).requires_grad_() for g in range(len(tokens))]
    w = [_rand((mg, n), dtype, 50 + g) for g, mg in enumerate(tokens)]
    d = tessel.gemm_grouped(a, b, alpha=alpha)
    got = torch.autograd.grad(sum((x * y).sum() for x, y in zip(d, w)), a + b)
    ts = [t.detach().clone().requires_grad_() for t in a + b]
    theirs = torch.autograd.grad(sum(((alpha * (x @ y)) * z).sum() for x, y, z in zip(ts[:4], ts[4:], w)), ts)
    for g, mg in enumerate(tokens):
        A, B, W = a[g].detach().double().cpu(), b[g].detach().double().cpu(), w[g].double().cpu()
        ref = alpha * W @ B.t()
        _check(got[g], theirs[g], ref, tier2(ref, alpha * (W.abs() @ B.abs().t()), n, dtype), "dA%d" % g)
        ref = alpha * A.t() @ W
        _check(got[4 + g], theirs[4 + g], ref, tier2(ref, alpha * (A.abs().t() @ W.abs()), mg, dtype), "dB%d" % g)


# ---------------------------------------------------------------------------- GPU: torch.compile


@needs_gpu
@pytest.mark.parametrize("case", range(4))
def test_opcheck_on_gpu(case):
    """As on meta tensors, now with tessel's kernels: the shape function's output (shape, type,
    strides) against the kernel's."""
    make = lambda *shape, grad=False: _rand(shape, torch.bfloat16, len(shape) * 7 + shape[-1]).requires_grad_(grad)
    op, args = opcheck_cases(make)[case]
    torch.library.opcheck(op, args)



@needs_gpu
def test_explain_reports_no_graph_break():
    a, b = _rand((256, 128), torch.bfloat16, 60), _rand((128, 192), torch.bfloat16, 61)
    bias = _rand((192, ), torch.bfloat16, 62)
    explain = torch._dynamo.explain(f_epilogue)(a, b, bias)
    assert explain.graph_break_count == 0, explain.break_reasons
    x = _rand((3, 256, 128), torch.bfloat16, 63)
    explain = torch._dynamo.explain(f_batched_grouped)(x, b, a, b)
    assert explain.graph_break_count == 0, explain.break_reasons


@needs_gpu
def test_compiled_equals_eager_forward_and_backward():
    torch._dynamo.reset()
    a = _rand((256, 128), torch.bfloat16, 70).requires_grad_()
    b = _rand((128, 192), torch.bfloat16, 71).requires_grad_()
    bias = _rand((192, ), torch.bfloat16, 72).requires_grad_()
    w = _rand((256, 192), torch.bfloat16, 73)

    def f(a, b, bias):
        return tessel.gemm(a, b, bias=bias, activation="relu", alpha=0.5) * w

    compiled = torch.compile(f, fullgraph=True)
    eager_out = f(a, b, bias)
    compiled_out = compiled(a, b, bias)
    assert torch.equal(eager_out, compiled_out)
    eager = torch.autograd.grad(eager_out.float().sum(), (a, b, bias))
    traced = torch.autograd.grad(compiled_out.float().sum(), (a, b, bias))
    assert torch.equal(eager[0], traced[0]) and torch.equal(eager[1], traced[1])  # tessel's GEMMs on equal inputs
    torch.testing.assert_close(eager[2], traced[2])  # a sum, whose order the compiler may change
    x = _rand((3, 256, 128), torch.bfloat16, 74)
    a, b = a.detach(), b.detach()
    compiled = torch.compile(f_batched_grouped_outputs, fullgraph=True)(x, b, a, b)
    for got, want in zip(compiled, f_batched_grouped_outputs(x, b, a, b)):
        assert torch.equal(got, want)
