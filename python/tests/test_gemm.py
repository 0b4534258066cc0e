"""tessel.gemm on PyTorch (and CuPy) tensors against torch.matmul.

Inputs are small integers, so every product and sum is exact in fp32 and the
results are compared bit for bit with an fp64 reference (docs/bench-protocol.md,
tier 1).  The GPU tests skip with a message where the build has no GEMMs or
no GPU is present; the error tests that need no GPU run everywhere.
"""
import gc
import sys

import pytest

import tessel

torch = pytest.importorskip("torch", reason="PyTorch is not installed: tessel.gemm's tests use torch tensors")

needs_gemm = pytest.mark.skipif(not tessel.has_gemm, reason="tessel was built without CUDA (no tessel.gemm)")
needs_gpu = pytest.mark.skipif(not (tessel.has_gemm and torch.cuda.is_available()),
                               reason="no CUDA GPU (or a build without tessel.gemm): GPU tests skipped")

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def small_ints(rows, cols, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(-3, 4, (rows, cols), generator=g).to(dtype)


def gemm_built(*args, **kwargs):
    """tessel.gemm, skipping the test where it names a teaching step this build leaves out
    (TESSEL_BUILD_LADDER=OFF, the default of `pip install .`)."""
    try:
        return tessel.gemm(*args, **kwargs)
    except tessel.GemmError as e:
        if "is not built" in str(e):
            pytest.skip(str(e))
        raise


def reference(a, b, c=None, alpha=1.0, beta=0.0):
    r = alpha * (a.double().cpu() @ b.double().cpu())
    if c is not None and beta != 0:
        r = r + beta * c.double().cpu()
    return r


def as_major(x, major):
    """x with the same values, stored row-major ('row') or column-major ('col')."""
    return x.contiguous() if major == "row" else x.t().contiguous().t()


def test_without_cuda_build_says_so():
    if tessel.has_gemm:
        pytest.skip("this build has tessel.gemm")
    with pytest.raises(RuntimeError, match="without CUDA"):
        tessel.gemm(None, None)


@needs_gpu
def test_tuned_is_exact_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_TUNE_CACHE", str(tmp_path))
    m, n, k = 300, 520, 704
    a = small_ints(m, k, torch.bfloat16, 11).cuda()
    b = small_ints(k, n, torch.bfloat16, 12).cuda()
    d = tessel.gemm(a, b, out_dtype="fp32", tune=True)
    torch.cuda.synchronize()
    assert torch.equal(d.double().cpu(), reference(a, b))
    assert len(list(tmp_path.glob("*.tune"))) == 1  # the choice, kept on disk
    with pytest.raises(ValueError, match="tune=True"):
        tessel.gemm(a, b, impl="k13", tune=True)


@needs_gpu
@pytest.mark.parametrize("amaj", ["row", "col"])
@pytest.mark.parametrize("bmaj", ["row", "col"])
@pytest.mark.parametrize("out", ["bf16", "fp16", "fp32"])
def test_layouts_and_output_types_exact(amaj, bmaj, out):
    m, n, k = 200, 136, 96  # partial tiles in every direction
    a = as_major(small_ints(m, k, torch.bfloat16, 1).cuda(), amaj)
    b = as_major(small_ints(k, n, torch.bfloat16, 2).cuda(), bmaj)
    d = tessel.gemm(a, b, out_dtype=out)
    torch.cuda.synchronize()
    assert d.dtype == DTYPES[out] and d.shape == (m, n)
    assert torch.equal(d.double().cpu(), reference(a, b))


@needs_gpu
@pytest.mark.parametrize("impl", ["auto", "k13", "k11", "k08"])
def test_impls_with_alpha_beta_and_c(impl):
    m, n, k = 130, 260, 192
    a = small_ints(m, k, torch.float16, 3).cuda()
    b = small_ints(k, n, torch.float16, 4).cuda()
    c = small_ints(m, n, torch.float32, 5).cuda()
    d = gemm_built(a, b, c=c, alpha=2.0, beta=-1.0, impl=impl)
    torch.cuda.synchronize()
    assert d.dtype == torch.float32
    assert torch.equal(d.double().cpu(), reference(a, b, c, 2.0, -1.0))


@needs_gpu
def test_column_major_out_and_c():
    m, n, k = 96, 200, 64
    a = small_ints(m, k, torch.bfloat16, 6).cuda()
    b = small_ints(k, n, torch.bfloat16, 7).cuda()
    c = small_ints(m, n, torch.float32, 8).cuda().t().contiguous().t()
    out = torch.full((n, m), 7.0, device="cuda").t()  # column-major M x N
    r = tessel.gemm(a, b, c=c, beta=1.0, out=out)
    torch.cuda.synchronize()
    assert r is out
    assert torch.equal(out.double().cpu(), reference(a, b, c, 1.0, 1.0))


@needs_gpu
def test_views_with_leading_dimensions():
    big_a = small_ints(64, 200, torch.bfloat16, 9).cuda()
    big_b = small_ints(300, 128, torch.bfloat16, 10).cuda()
    a, b = big_a[:, 8:136], big_b[16:144, :]  # row-major views: lda 200, ldb 128
    d = tessel.gemm(a, b)
    torch.cuda.synchronize()
    assert torch.equal(d.double().cpu(), reference(a, b))


@needs_gpu
def test_fp32_ladder():
    a = small_ints(70, 50, torch.float32, 11).cuda()
    b = small_ints(50, 90, torch.float32, 12).cuda()
    d = tessel.gemm(a, b)
    torch.cuda.synchronize()
    assert d.dtype == torch.float32
    assert torch.equal(d.double().cpu(), reference(a, b))


@needs_gpu
def test_explicit_and_current_stream():
    a = small_ints(256, 128, torch.bfloat16, 13).cuda()
    b = small_ints(128, 256, torch.bfloat16, 14).cuda()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):  # the current stream: tessel runs there
        d1 = tessel.gemm(a, b)
    d2 = torch.empty_like(d1)
    tessel.gemm(a, b, out=d2, stream=s)
    tessel.gemm(a, b, out=d2, stream=s.cuda_stream)
    s.synchronize()
    assert torch.equal(d1, d2)
    assert torch.equal(d1.double().cpu(), reference(a, b))


@needs_gpu
def test_bad_arguments_raise_and_write_nothing():
    a = small_ints(64, 32, torch.bfloat16, 15).cuda()
    b = small_ints(32, 48, torch.bfloat16, 16).cuda()
    out = torch.full((64, 48), 7.0, device="cuda", dtype=torch.bfloat16)
    poisoned = out.clone()
    with pytest.raises(ValueError, match="a's columns must equal b's rows"):
        tessel.gemm(a, b[:16], out=out)
    with pytest.raises(ValueError, match="CUDA tensor"):
        tessel.gemm(a.cpu(), b, out=out)
    with pytest.raises(TypeError, match="element type"):
        tessel.gemm(a.to(torch.int32), b, out=out)
    with pytest.raises(TypeError, match="one element type"):
        tessel.gemm(a, b.half(), out=out)
    with pytest.raises(ValueError, match="needs c"):
        tessel.gemm(a, b, beta=1.0, out=out)
    with pytest.raises(ValueError, match="row- or column-major"):
        tessel.gemm(small_ints(64, 64, torch.bfloat16, 17).cuda()[:, ::2], b, out=out)
    with pytest.raises(ValueError, match="must be 64 x 48"):
        tessel.gemm(a, b, out=out[:, :40])
    # Rejected by the library (fp32 ladder step on bf16 inputs): its message, a GemmError.
    with pytest.raises(tessel.GemmError) as e:
        tessel.gemm(a, b, out=out, impl="f07")
    assert "f07" in str(e.value)
    with pytest.raises(tessel.GemmError, match="unknown implementation"):
        tessel.gemm(a, b, out=out, impl="k99")
    torch.cuda.synchronize()
    assert torch.equal(out, poisoned)


@needs_gpu
def test_reference_counts_stay_flat():
    a = small_ints(32, 32, torch.bfloat16, 18).cuda()
    b = small_ints(32, 32, torch.bfloat16, 19).cuda()
    out = torch.empty(32, 32, device="cuda", dtype=torch.bfloat16)
    gc.collect()
    before = (sys.getrefcount(a), sys.getrefcount(b), sys.getrefcount(out))
    for _ in range(2000):
        tessel.gemm(a, b, out=out)
    for _ in range(200):
        with pytest.raises(ValueError):
            tessel.gemm(a, b[:16], out=out)
    torch.cuda.synchronize()
    gc.collect()
    assert (sys.getrefcount(a), sys.getrefcount(b), sys.getrefcount(out)) == before


@needs_gpu
def test_cupy_arrays_through_dlpack():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    a = cupy.asarray(small_ints(100, 64, torch.float16, 20).numpy())
    b = cupy.asarray(small_ints(64, 72, torch.float16, 21).numpy())
    d = tessel.gemm(a, b, out_dtype="fp32")
    cupy.cuda.get_current_stream().synchronize()
    ref = reference(torch.from_numpy(cupy.asnumpy(a)), torch.from_numpy(cupy.asnumpy(b)))
    assert torch.equal(torch.from_numpy(cupy.asnumpy(d)).double(), ref)


@needs_gpu
def test_plan_names_the_kernel():
    assert tessel.gemm_plan(4096, 4096, 4096).startswith("k1")


@needs_gpu
def test_bench_writes_the_cli_columns(tmp_path):
    import csv

    from tessel import bench
    out = tmp_path / "bench.csv"
    assert bench.main(["--m", "256", "--n", "384", "--k", "128", "--iterations", "5", "--csv", str(out)]) == 0
    rows = list(csv.DictReader(open(out)))
    assert [r["impl"] for r in rows] == ["torch", "tessel:auto"]
    assert list(rows[0].keys()) == bench.COLUMNS
    assert rows[1]["disposition"] == "passed" and float(rows[1]["ratio"]) > 0


@needs_gpu
def test_python_call_overhead_is_measured():
    from tessel import bench
    py_us, cpp_us = bench.overhead(torch, 200)
    assert py_us > 0 and cpp_us > 0


@needs_gpu
@pytest.mark.parametrize("bias_shape", ["col", "col2d", "row"])
@pytest.mark.parametrize("impl", ["auto", "k11"])
def test_bias_relu_and_aux_exact(bias_shape, impl):
    m, n, k = 192, 320, 128
    a = small_ints(m, k, torch.bfloat16, 30).cuda()
    b = small_ints(k, n, torch.bfloat16, 31).cuda()
    shape = {"col": (n, ), "col2d": (1, n), "row": (m, 1)}[bias_shape]
    bias = small_ints(*(shape if len(shape) == 2 else (1, n)), torch.float32, 32).reshape(shape).cuda()
    aux = torch.full((m, n), 7.0, device="cuda")
    d = gemm_built(a, b, bias=bias, activation="relu", out_dtype="fp32", aux=aux, impl=impl)
    torch.cuda.synchronize()
    pre = reference(a, b) + bias.double().cpu()
    assert torch.equal(aux.double().cpu(), pre)
    assert torch.equal(d.double().cpu(), pre.clamp_min(0))


@needs_gpu
@pytest.mark.parametrize("activation,fn,e", [("gelu", lambda x: torch.nn.functional.gelu(x), 2.0**-18),
                                             ("gelu_tanh", lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
                                              2.0**-10), ("silu", torch.nn.functional.silu, 2.0**-14)])
def test_activations_against_torch(activation, fn, e):
    m, n, k = 256, 256, 256
    a = small_ints(m, k, torch.bfloat16, 33).cuda()
    b = small_ints(k, n, torch.bfloat16, 34).cuda()
    bias = small_ints(1, n, torch.float32, 35).reshape(n).cuda()
    d = tessel.gemm(a, b, bias=bias, activation=activation, out_dtype="fp32", alpha=0.125)
    torch.cuda.synchronize()
    x = 0.125 * reference(a, b) + bias.double().cpu()
    want = fn(x)
    # The bound of docs/epilogues.md, doubled: |D - act(x)| <= |x| e + 2^-20 (tanh.approx's error for the tanh
    # GELU, the fast exponential's for SiLU, erff's for the erf GELU) plus fp32's rounding of D.
    err = (d.double().cpu() - want).abs()
    assert (err <= x.abs() * e + 2.0**-20 + want.abs() * 2.0**-23).all(), err.max().item()


@needs_gpu
def test_column_major_out_with_row_bias():
    m, n, k = 128, 96, 64
    a = small_ints(m, k, torch.bfloat16, 36).cuda()
    b = small_ints(k, n, torch.bfloat16, 37).cuda()
    bias = small_ints(m, 1, torch.float32, 38).cuda()
    out = torch.empty((n, m), device="cuda").t()
    tessel.gemm(a, b, bias=bias, out=out)
    torch.cuda.synchronize()
    assert torch.equal(out.double().cpu(), reference(a, b) + bias.double().cpu())


@needs_gpu
def test_bad_epilogues_raise_and_write_nothing():
    a = small_ints(64, 32, torch.bfloat16, 39).cuda()
    b = small_ints(32, 48, torch.bfloat16, 40).cuda()
    out = torch.full((64, 48), 7.0, device="cuda", dtype=torch.bfloat16)
    poisoned = out.clone()
    with pytest.raises(ValueError, match="activation"):
        tessel.gemm(a, b, out=out, activation="tanh")
    with pytest.raises(ValueError, match="broadcast"):
        tessel.gemm(a, b, out=out, bias=torch.zeros(47, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(TypeError, match="element type"):
        tessel.gemm(a, b, out=out, bias=torch.zeros(48, device="cuda"))
    with pytest.raises(tessel.GemmError, match="aux"):
        tessel.gemm(a, b, out=out, aux=out)  # aux overlapping D: the library's rule
    torch.cuda.synchronize()
    assert torch.equal(out, poisoned)


@needs_gpu
@pytest.mark.parametrize("amaj", ["row", "col"])
def test_batched_exact_and_broadcast(amaj):
    batch, m, n, k = 3, 130, 96, 64
    a = small_ints(batch * m, k, torch.bfloat16, 41).reshape(batch, m, k).cuda()
    if amaj == "col":
        a = a.transpose(1, 2).contiguous().transpose(1, 2)  # each matrix column-major
    b = small_ints(batch * k, n, torch.bfloat16, 42).reshape(batch, k, n).cuda()
    d = tessel.gemm_batched(a, b, out_dtype="fp32")
    torch.cuda.synchronize()
    assert d.shape == (batch, m, n)
    assert torch.equal(d.double().cpu(), torch.bmm(a.double().cpu(), b.double().cpu()))
    w = small_ints(k, n, torch.bfloat16, 43).cuda()  # one B for every batch (stride 0)
    c = small_ints(m, n, torch.float32, 44).cuda()  # one C for every batch
    d = tessel.gemm_batched(a, w, c=c, beta=1.0, out_dtype="fp32")
    torch.cuda.synchronize()
    ref = torch.matmul(a.double().cpu(), w.double().cpu()) + c.double().cpu()
    assert torch.equal(d.double().cpu(), ref)


@needs_gpu
def test_grouped_exact():
    n, k = 256, 192
    tokens = [1, 37, 128, 300]
    a = [small_ints(m, k, torch.float16, 50 + g).cuda() for g, m in enumerate(tokens)]
    b = [small_ints(k, n, torch.float16, 60 + g).cuda() for g in range(len(tokens))]
    d = tessel.gemm_grouped(a, b, out_dtype="fp32")
    torch.cuda.synchronize()
    for x, y, z in zip(a, b, d):
        assert torch.equal(z.double().cpu(), reference(x, y))


@needs_gpu
def test_batched_and_grouped_errors_write_nothing():
    a = small_ints(64, 32, torch.bfloat16, 70).cuda()
    b = small_ints(32, 48, torch.bfloat16, 71).cuda()
    out = torch.full((2, 64, 48), 7.0, device="cuda", dtype=torch.bfloat16)
    poisoned = out.clone()
    with pytest.raises(ValueError, match="3-D"):
        tessel.gemm_batched(a, b, out=out)
    with pytest.raises(ValueError, match="batch counts"):
        tessel.gemm_batched(torch.stack([a, a]), torch.stack([b, b, b]), out=out)
    with pytest.raises(tessel.GemmError):  # the two problems' D are one tensor: the library's overlap rule
        tessel.gemm_grouped([a, a], [b, b], out=[out[0], out[0]])
    with pytest.raises(ValueError, match="same, non-zero length"):
        tessel.gemm_grouped([a], [b, b])
    torch.cuda.synchronize()
    assert torch.equal(out, poisoned)


@needs_gpu
@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="this PyTorch has no float8 types")
@pytest.mark.parametrize("fp8", ["float8_e4m3fn", "float8_e5m2"])
def test_fp8_inputs_exact(fp8):
    """FP8 a and b (docs/fp8.md): K-major both (b as w.t() of an N x K w), bfloat16 out by default,
    per-tensor scales folded into alpha; small integers are exact in both formats."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("FP8 GEMMs run on sm_90")
    m, n, k = 200, 136, 256
    a = small_ints(m, k, torch.float32, 1).cuda()
    w = small_ints(n, k, torch.float32, 2).cuda()
    dtype = getattr(torch, fp8)
    d = tessel.gemm(a.to(dtype), w.to(dtype).t(), alpha=0.125)
    assert d.dtype == torch.bfloat16 and d.shape == (m, n)
    ref = reference(a, w.t(), alpha=0.125)
    assert torch.equal(d.cpu(), ref.to(torch.bfloat16))
    with pytest.raises(tessel.GemmError, match="K-major"):
        tessel.gemm(a.to(dtype), w.t().contiguous().to(dtype))  # b N-major: wgmma reads FP8 K-major only


@needs_gpu
@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="this PyTorch has no float8 types")
@pytest.mark.parametrize("fa,fb", [("float8_e4m3fn", "float8_e5m2"), ("float8_e5m2", "float8_e4m3fn")])
def test_fp8_mixed_formats_exact(fa, fb):
    """a and b in different FP8 formats (e5m2 gradients times e4m3 weights): exact, also with a column-major
    out (computed as D^T = B^T A^T, the formats swapped with the operands) and in a group; FP8 with bf16 refused."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("FP8 GEMMs run on sm_90")
    m, n, k = 200, 136, 256
    a = small_ints(m, k, torch.float32, 1).cuda()
    w = small_ints(n, k, torch.float32, 2).cuda()
    ta, tb = getattr(torch, fa), getattr(torch, fb)
    ref = reference(a, w.t(), alpha=0.5).to(torch.bfloat16).cpu()
    assert torch.equal(tessel.gemm(a.to(ta), w.to(tb).t(), alpha=0.5).cpu(), ref)
    out = torch.full((n, m), float("nan"), dtype=torch.bfloat16, device="cuda").t()
    assert torch.equal(tessel.gemm(a.to(ta), w.to(tb).t(), alpha=0.5, out=out).cpu(), ref)
    outs = tessel.gemm_grouped([a.to(ta), a[:70].to(ta)], [w.to(tb).t(), w.to(tb).t()], alpha=0.5)
    assert torch.equal(outs[0].cpu(), ref) and torch.equal(outs[1].cpu(), ref[:70])
    with pytest.raises(TypeError, match="two FP8 formats"):
        tessel.gemm(a.to(ta), w.to(torch.bfloat16).t())


@needs_gpu
@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="this PyTorch has no float8 types")
def test_fp8_batched_exact():
    """A strided batch of FP8 products (one launch of the grouped FP8 kernel), a weight shared by the batch, and
    an FP8 GEMM with bias and activation (the elementwise pass after it): exact."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("FP8 GEMMs run on sm_90")
    f8 = torch.float8_e4m3fn
    x = torch.stack([small_ints(130, 256, torch.float32, 30 + i) for i in range(3)])
    w = small_ints(136, 256, torch.float32, 40)
    d = tessel.gemm_batched(x.cuda().to(f8), w.cuda().to(f8).t(), alpha=0.5)
    assert d.dtype == torch.bfloat16 and d.shape == (3, 130, 136)
    for i in range(3):
        assert torch.equal(d[i].cpu(), reference(x[i], w.t(), alpha=0.5).to(torch.bfloat16))
    bias = torch.arange(136, dtype=torch.float32).remainder(5).sub(2)
    d = tessel.gemm(x[0].cuda().to(f8), w.cuda().to(f8).t(), bias=bias.cuda(), activation="relu",
                    out_dtype=torch.float32)  # float32 out: one rounding before the pass, exact here
    assert torch.equal(d.cpu(), (reference(x[0], w.t()) + bias).clamp_min(0).to(torch.float32))


def pow2_scales(shape, seed):
    """float32 powers of two from 1/4 to 4: exact products with small integers."""
    g = torch.Generator().manual_seed(seed)
    return torch.pow(2.0, torch.randint(-2, 3, shape, generator=g).to(torch.float32))


@needs_gpu
@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="this PyTorch has no float8 types")
@pytest.mark.parametrize("mode", ["tensor", "channel", "block", "block_weight", "channel_col_out"])
def test_fp8_scales_exact(mode):
    """FP8 with scale_a and scale_b (docs/fp8.md, Scales), the mode read from their shapes: exact
    against the dequantized product (small integers, powers of two); partial blocks of K and N."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("FP8 GEMMs run on sm_90")
    m, n, k = 200, 264, 400
    kb, nb = -(-k // 128), -(-n // 128)
    a = small_ints(m, k, torch.float32, 3)
    w = small_ints(n, k, torch.float32, 4)  # b = w.t(): K-major
    if mode == "tensor":
        sa, sb = pow2_scales((1, ), 5), pow2_scales((), 6)
        da, dw = a * sa, w * sb
    elif mode.startswith("channel"):
        sa, sb = pow2_scales((m, 1), 5), pow2_scales((1, n), 6)
        da, dw = a * sa, w * sb.t()
    else:
        sa_t, sw = pow2_scales((kb, m), 5), pow2_scales((nb, kb), 6)  # A's k-block-major; the weight's
        sa, sb = sa_t.t(), (sw if mode == "block_weight" else sw.t())
        da = a * sa_t.t().repeat_interleave(128, dim=1)[:, :k]
        dw = w * sw.repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
    f8 = torch.float8_e4m3fn
    out = None
    if mode == "channel_col_out":
        out = torch.full((n, m), float("nan"), dtype=torch.bfloat16, device="cuda").t()  # column-major D
    d = tessel.gemm(a.cuda().to(f8), w.cuda().to(f8).t(), scale_a=sa.cuda(), scale_b=sb.cuda(), out=out)
    ref = reference(da, dw.t())
    assert torch.equal(d.cpu(), ref.to(torch.bfloat16))


@needs_gpu
@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="this PyTorch has no float8 types")
def test_fp8_scale_errors():
    """Scales that fit no mode, of the wrong type or with 16-bit inputs raise before anything is written."""
    m, n, k = 64, 128, 256
    f8 = torch.float8_e4m3fn
    a = small_ints(m, k, torch.float32, 1).cuda().to(f8)
    b = small_ints(n, k, torch.float32, 2).cuda().to(f8).t()
    one = torch.ones(1, device="cuda")
    out = torch.full((m, n), 7.0, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(ValueError, match="come together"):
        tessel.gemm(a, b, scale_a=one, out=out)
    with pytest.raises(TypeError, match="float32"):
        tessel.gemm(a, b, scale_a=one.half(), scale_b=one, out=out)
    with pytest.raises(ValueError, match="none of the FP8 scale modes"):
        tessel.gemm(a, b, scale_a=torch.ones(m, 3, device="cuda"), scale_b=one, out=out)
    with pytest.raises(ValueError, match="none of the FP8 scale modes"):  # A's block scales K-contiguous
        tessel.gemm(a, b, scale_a=torch.ones(m, 2, device="cuda"), scale_b=torch.ones(2, 1, device="cuda"), out=out)
    with pytest.raises(TypeError, match="scale FP8"):
        tessel.gemm(a.to(torch.bfloat16), b.to(torch.bfloat16), scale_a=one, scale_b=one, out=out)
    with pytest.raises(tessel.GemmError, match="row-major out"):
        tessel.gemm(a, b, scale_a=torch.ones(2, m, device="cuda").t(), scale_b=torch.ones(1, 2, device="cuda"),
                    out=torch.empty(n, m, dtype=torch.bfloat16, device="cuda").t())
    torch.cuda.synchronize()
    assert bool((out == 7.0).all())


@needs_gpu
@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="this PyTorch has no float8 types")
def test_fp8_grouped_exact():
    """An FP8 group (docs/fp8.md, Groups): experts of different M in one launch, bfloat16 out by default, exact."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("FP8 GEMMs run on sm_90")
    n, k, f8 = 136, 256, torch.float8_e4m3fn
    xs = [small_ints(m, k, torch.float32, 10 + m) for m in (1, 70, 200)]
    ws = [small_ints(n, k, torch.float32, 20 + m) for m in (1, 70, 200)]
    outs = tessel.gemm_grouped([x.cuda().to(f8) for x in xs], [w.cuda().to(f8).t() for w in ws], alpha=0.5)
    for x, w, d in zip(xs, ws, outs):
        assert d.dtype == torch.bfloat16
        assert torch.equal(d.cpu(), reference(x, w.t(), alpha=0.5).to(torch.bfloat16))


@needs_gpu
@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="this PyTorch has no float8 types")
def test_fp8_grouped_masked_exact():
    """A masked FP8 group (decode-time experts): each expert's row count in a CUDA int32 tensor, read when the
    kernel runs; the rows below it exact, the rest of out untouched."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("FP8 GEMMs run on sm_90")
    cap, n, k, f8 = 128, 136, 256, torch.float8_e4m3fn
    counts = [0, 5, 128, 77]
    xs = [small_ints(cap, k, torch.float32, 90 + g) for g in range(4)]
    ws = [small_ints(n, k, torch.float32, 95 + g) for g in range(4)]
    outs = [torch.full((cap, n), 7.0, dtype=torch.bfloat16, device="cuda") for _ in range(4)]
    tessel.gemm_grouped([x.cuda().to(f8) for x in xs], [w.cuda().to(f8).t() for w in ws], out=outs,
                        masked_m=torch.tensor(counts, dtype=torch.int32, device="cuda"))
    for x, w, d, c in zip(xs, ws, outs, counts):
        assert torch.equal(d[:c].cpu(), reference(x[:c], w.t()).to(torch.bfloat16))
        assert bool((d[c:] == 7.0).all())
    with pytest.raises(ValueError, match="int32 tensor of 4 row counts"):
        tessel.gemm_grouped([x.cuda().to(f8) for x in xs], [w.cuda().to(f8).t() for w in ws],
                            masked_m=torch.tensor(counts, dtype=torch.int64, device="cuda"))


@needs_gpu
@pytest.mark.skipif(not hasattr(torch, "float8_e4m3fn"), reason="this PyTorch has no float8 types")
def test_fp8_grouped_block_scales_exact():
    """An FP8 group with each expert's block scales (1 x 128 of x, 128 x 128 of the weight, as tessel.gemm
    takes them): exact against the dequantized products; scales of two modes in one group are refused."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("FP8 GEMMs run on sm_90")
    n, k, f8 = 264, 400, torch.float8_e4m3fn
    kb, nb = -(-k // 128), -(-n // 128)
    ms = (1, 70, 200)
    xs = [small_ints(m, k, torch.float32, 50 + m) for m in ms]
    ws = [small_ints(n, k, torch.float32, 60 + m) for m in ms]
    sxs = [pow2_scales((kb, m), 70 + m) for m in ms]  # x's scales, M contiguous: passed as .t()
    sws = [pow2_scales((nb, kb), 80 + m) for m in ms]  # the weight's, as it keeps them
    outs = tessel.gemm_grouped([x.cuda().to(f8) for x in xs], [w.cuda().to(f8).t() for w in ws],
                               scale_a=[s.cuda().t() for s in sxs], scale_b=[s.cuda() for s in sws],
                               out_dtype=torch.float32)
    for x, w, sx, sw, d in zip(xs, ws, sxs, sws, outs):
        dx = x * sx.t().repeat_interleave(128, dim=1)[:, :k]
        dw = w * sw.repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
        assert torch.equal(d.cpu(), reference(dx, dw.t()).to(torch.float32))
    with pytest.raises(ValueError, match="share one FP8 scale mode"):
        one = torch.ones(1, device="cuda")
        tessel.gemm_grouped([xs[0].cuda().to(f8)] * 2, [ws[0].cuda().to(f8).t()] * 2,
                            scale_a=[one, sxs[0].cuda().t()], scale_b=[one, sws[0].cuda()])
