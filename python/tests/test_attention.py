"""tessel.attention on PyTorch tensors against an fp64 reference.

Random inputs on a grid of 1/8 (exact in bf16 and fp16), the error bounded as
in docs/attention.md: P and O rounded to the input type, 2u max|V|, plus the
fp32 sums' share.  GPU tests skip with a message without a GPU or a CUDA
build; the argument errors that need no GPU run everywhere.
"""
import math

import pytest

import tessel

torch = pytest.importorskip("torch", reason="PyTorch is not installed: tessel.attention's tests use torch tensors")

needs_gpu = pytest.mark.skipif(not (tessel.has_gemm and torch.cuda.is_available()),
                               reason="no CUDA GPU (or a build without the kernels): GPU tests skipped")


def grid(shape, seed, step):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(-8, 9, shape, generator=g).double() * step


def reference(q, k, v, causal, scale):
    """(out, lse) in fp64 of (batch, heads, seq, dim) tensors; K/V heads shared by groups of Q heads."""
    q, k, v = q.double().cpu(), k.double().cpu(), v.double().cpu()
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    s = scale * q @ k.transpose(-1, -2)
    lq, lk = q.shape[2], k.shape[2]
    if causal:
        i = torch.arange(lq).view(-1, 1)
        j = torch.arange(lk).view(1, -1)
        s = s.masked_fill(j > i + (lk - lq), -math.inf)
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0)
    return p @ v, lse


def bound(q, k, v, dtype):
    u = 2.0**-8 if dtype == torch.bfloat16 else 2.0**-11
    d = q.shape[-1]
    s_err = d * 2.0**-24 * d**-0.5 * d * q.abs().max().item() * k.abs().max().item()
    return (2 * u + 2 * s_err + 2.0**-24 * k.shape[-2] + 1e-5) * v.abs().max().item()


def check(q, k, v, causal, dtype, impl="auto"):
    qd, kd, vd = (x.to(dtype).cuda() for x in (q, k, v))
    out, lse = tessel.attention(qd, kd, vd, causal=causal, return_lse=True, impl=impl)
    ref, ref_lse = reference(q, k, v, causal, q.shape[-1]**-0.5)
    err = (out.double().cpu() - ref).abs().max().item()
    assert err <= bound(q, k, v, dtype), (err, bound(q, k, v, dtype))
    got = lse.double().cpu()
    finite = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(got), finite)
    assert ((got - ref_lse).abs()[finite] <= 1e-3 * (1 + ref_lse.abs()[finite])).all()


@needs_gpu
@pytest.mark.parametrize("dim", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("impl", ["auto", "a01", "a05", "a08", "a09", "a10"])
def test_against_fp64(dim, causal, impl):
    q, k, v = grid((2, 4, 100, dim), 1, 0.25), grid((2, 2, 150, dim), 2, 0.125), grid((2, 2, 150, dim), 3, 0.125)
    if impl == "a10" and dim == 256:  # two Q tiles and the rings do not fit: refused, naming the rule
        with pytest.raises(tessel.GemmError, match="a10 takes head dims 64, 128 and 192"):
            check(q, k, v, causal, torch.bfloat16, impl)
        return
    check(q, k, v, causal, torch.bfloat16, impl)


@needs_gpu
def test_fp16_and_q_longer_than_kv():
    q, k, v = grid((1, 2, 130, 96), 4, 0.25), grid((1, 1, 70, 96), 5, 0.125), grid((1, 1, 70, 96), 6, 0.125)
    check(q, k, v, True, torch.float16)


@needs_gpu
def test_packed_matches_one_call_per_sequence():
    lens = [5, 130, 64]
    qs = [grid((n, 4, 128), 10 + i, 0.25) for i, n in enumerate(lens)]
    ks = [grid((n, 2, 128), 20 + i, 0.125) for i, n in enumerate(lens)]
    vs = [grid((n, 2, 128), 30 + i, 0.125) for i, n in enumerate(lens)]
    cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0)), dtype=torch.int32, device="cuda")
    cat = [torch.cat(x).to(torch.bfloat16).cuda() for x in (qs, ks, vs)]
    out = tessel.attention(*cat, causal=True, cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=130,
                           max_seqlen_k=130)
    assert out.shape == cat[0].shape
    rows = 0
    for q, k, v in zip(qs, ks, vs):
        ref, _ = reference(q.permute(1, 0, 2)[None], k.permute(1, 0, 2)[None], v.permute(1, 0, 2)[None], True,
                           128**-0.5)
        got = out[rows:rows + q.shape[0]].permute(1, 0, 2)[None].double().cpu()
        assert (got - ref).abs().max().item() <= bound(q, k, v, torch.bfloat16)
        rows += q.shape[0]


@needs_gpu
def test_strided_views_like_flash_attention_layout():
    # (batch, seq, heads, dim) storage seen as (batch, heads, seq, dim) through a transpose
    q = grid((2, 80, 4, 64), 7, 0.25)
    k = grid((2, 90, 4, 64), 8, 0.125)
    v = grid((2, 90, 4, 64), 9, 0.125)
    qd, kd, vd = (x.to(torch.bfloat16).cuda().transpose(1, 2) for x in (q, k, v))
    out = tessel.attention(qd, kd, vd)
    ref, _ = reference(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), False, 0.125)
    assert (out.double().cpu() - ref).abs().max().item() <= bound(q, k, v, torch.bfloat16)


@needs_gpu
def test_matches_torch_sdpa():
    q, k, v = (torch.randn(1, 8, 256, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    ours = tessel.attention(q, k, v, causal=True)
    theirs = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert (ours.float() - theirs.float()).abs().max().item() < 0.05


@needs_gpu
def test_compiles_through_the_custom_operator():
    q, k, v = (torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    f = torch.compile(lambda a, b, c: tessel.attention(a, b, c, causal=True) * 2, fullgraph=True)
    assert torch.allclose(f(q, k, v), 2 * tessel.attention(q, k, v, causal=True))


@needs_gpu
def test_errors_name_the_rule():
    q = torch.zeros(1, 3, 16, 64, device="cuda", dtype=torch.bfloat16)
    k = torch.zeros(1, 2, 16, 64, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(tessel.GemmError, match="must divide heads_q"):
        tessel.attention(q, k, k)
    with pytest.raises(tessel.GemmError, match="head_dim 80"):
        x = torch.zeros(1, 1, 16, 80, device="cuda", dtype=torch.bfloat16)
        tessel.attention(x, x, x)
    with pytest.raises(TypeError, match="bfloat16 or float16"):
        x = torch.zeros(1, 1, 16, 64, device="cuda")
        tessel.attention(x, x, x)
    with pytest.raises(RuntimeError, match="no backward"):
        x = torch.zeros(1, 1, 16, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        tessel.attention(x, x, x)


def test_cpu_tensors_are_refused():
    if not tessel.has_gemm:
        with pytest.raises(RuntimeError, match="without CUDA"):
            tessel.attention(torch.zeros(1, 1, 4, 64), torch.zeros(1, 1, 4, 64), torch.zeros(1, 1, 4, 64))
        return
    with pytest.raises(ValueError, match="CUDA tensor"):
        x = torch.zeros(1, 1, 4, 64, dtype=torch.bfloat16)
        tessel.attention(x, x, x)
