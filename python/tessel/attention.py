"""tessel.attention: fused attention (tessel::attention, docs/attention.md) on PyTorch tensors.

    out = tessel.attention(q, k, v, causal=True)            # (batch, heads, seq, dim), as SDPA's
    out, lse = tessel.attention(q, k, v, return_lse=True)
    out = tessel.attention(q, k, v, cu_seqlens_q=cu, cu_seqlens_k=cu,
                           max_seqlen_q=n, max_seqlen_k=n)   # packed (total, heads, dim)

Under ``torch.compile`` (or on fake and meta tensors) the call goes through the
custom operator ``torch.ops.tessel.attention`` (tessel/_torch_ops.py), whose
shape function gives the outputs' shapes without a launch.  There is no
backward yet: an input that requires a gradient (with grad mode on) is refused
with a message, not silently detached.
"""
from . import _tessel
from .gemm import GemmError, _INVALID, _UNSUPPORTED, _is_torch, _torch_module, has_gemm

__all__ = ["attention"]

# The steps `impl` takes (tessel::kAttentionImpls's names; the bench's --impl choices too).
_IMPLS = ("auto", "a01", "a02", "a03", "a04", "a05", "a06", "a07", "a08", "a09", "a10")


def _check_tensor(torch, x, what, dims):
    if not _is_torch(x):
        raise TypeError("%s must be a PyTorch tensor (got %s)" % (what, type(x).__name__))
    if not (x.is_cuda or x.device.type == "meta"):
        raise ValueError("%s must be a CUDA tensor (got one on %s)" % (what, x.device))
    if x.dim() != dims:
        raise ValueError("%s must have %d dimensions (got shape %s)" % (what, dims, tuple(x.shape)))
    if x.dtype not in (torch.bfloat16, torch.float16):
        raise TypeError("%s: element type %s is not bfloat16 or float16" % (what, x.dtype))
    if x.shape[-1] > 1 and x.stride(-1) != 1:
        raise ValueError("%s: the head dimension must be contiguous (stride 1; got %d)" % (what, x.stride(-1)))


def _shapes(q, k, v, packed):
    """(batch, heads_q, heads_kv, seq_q, seq_kv, dim) and each tensor's (batch, head, row) strides."""
    if packed:  # (total, heads, dim)
        dims = (1, q.shape[1], k.shape[1], q.shape[0], k.shape[0], q.shape[2])
        strides = [(0, t.stride(1), t.stride(0)) for t in (q, k, v)]
    else:  # (batch, heads, seq, dim)
        dims = (q.shape[0], q.shape[1], k.shape[1], q.shape[2], k.shape[2], q.shape[3])
        strides = [(t.stride(0), t.stride(1), t.stride(2)) for t in (q, k, v)]
    if k.shape != v.shape:
        raise ValueError("k and v must have one shape (got %s and %s)" % (tuple(k.shape), tuple(v.shape)))
    if k.shape[-1] != q.shape[-1]:
        raise ValueError("q and k must have one head dim (got %d and %d)" % (q.shape[-1], k.shape[-1]))
    if not packed and k.shape[0] != q.shape[0]:
        raise ValueError("q and k must have one batch (got %d and %d)" % (q.shape[0], k.shape[0]))
    if q.dtype != k.dtype or q.dtype != v.dtype:
        raise TypeError("q, k and v must have one element type (got %s, %s, %s)" % (q.dtype, k.dtype, v.dtype))
    return dims, strides


def _outputs(torch, q, packed):
    """out like q (contiguous), and the log-sum-exp (fp32, (batch, heads, seq) or (heads, total))."""
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    shape = (q.shape[1], q.shape[0]) if packed else (q.shape[0], q.shape[1], q.shape[2])
    return out, torch.empty(shape, dtype=torch.float32, device=q.device)


def _run(q, k, v, causal, scale, cu_q, cu_k, max_q, max_k, impl):
    """The plain call: checks, outputs (the log-sum-exp always: the kernels write it at no
    measurable cost), the launch on the current stream."""
    if not has_gemm:
        raise RuntimeError("tessel was built without CUDA: attention is not in this build (docs/python.md)")
    torch = _torch_module()
    packed = cu_q is not None or cu_k is not None
    if impl not in _IMPLS:
        raise ValueError("impl must be one of %s (got %r)" % (", ".join(_IMPLS), impl))
    for x, what in ((q, "q"), (k, "k"), (v, "v")):
        _check_tensor(torch, x, what, 3 if packed else 4)
    if packed:
        if cu_q is None or cu_k is None or max_q is None or max_k is None:
            raise ValueError("packed sequences need cu_seqlens_q, cu_seqlens_k, max_seqlen_q and max_seqlen_k")
        for c, what in ((cu_q, "cu_seqlens_q"), (cu_k, "cu_seqlens_k")):
            if not (_is_torch(c) and c.dtype == torch.int32 and c.dim() == 1 and c.is_contiguous()):
                raise TypeError("%s must be a contiguous 1-D int32 tensor" % what)
            if c.device != q.device:
                raise ValueError("%s must be on q's device (%s; got %s)" % (what, q.device, c.device))
        if cu_q.shape[0] != cu_k.shape[0] or cu_q.shape[0] < 2:
            raise ValueError("cu_seqlens_q and cu_seqlens_k must have batch + 1 >= 2 entries each (got %d and %d)" %
                             (cu_q.shape[0], cu_k.shape[0]))
    for x, what in ((k, "k"), (v, "v")):
        if x.device != q.device:
            raise ValueError("%s must be on q's device (%s; got %s)" % (what, q.device, x.device))
    dims, strides = _shapes(q, k, v, packed)
    batch = cu_q.shape[0] - 1 if packed else dims[0]
    out, lse = _outputs(torch, q, packed)
    if q.device.type == "meta":
        return out, lse
    o_strides = (0, out.stride(1), out.stride(0)) if packed else (out.stride(0), out.stride(1), out.stride(2))
    dtype = "bf16" if q.dtype == torch.bfloat16 else "fp16"
    stream = torch.cuda.current_stream(q.device).cuda_stream
    code, message = _tessel._attention(impl, dtype, batch, dims[1], dims[2], dims[3], dims[4], dims[5], q.data_ptr(),
                                       strides[0], k.data_ptr(), strides[1], v.data_ptr(), strides[2], out.data_ptr(),
                                       o_strides, lse.data_ptr(), bool(causal), float(scale or 0.0),
                                       cu_q.data_ptr() if packed else 0, cu_k.data_ptr() if packed else 0,
                                       int(max_q or 0), int(max_k or 0), q.device.index, stream)
    if code in (_INVALID, _UNSUPPORTED):
        raise GemmError(message)
    if code != 0:
        raise RuntimeError(message)
    return out, lse


def attention(q,
              k,
              v,
              *,
              causal=False,
              scale=None,
              cu_seqlens_q=None,
              cu_seqlens_k=None,
              max_seqlen_q=None,
              max_seqlen_k=None,
              return_lse=False,
              impl="auto"):
    """softmax(scale q k^T [+ causal mask]) v on the current CUDA stream.

    q: (batch, heads_q, seq_q, dim); k, v: (batch, heads_kv, seq_kv, dim), heads_kv dividing heads_q
    (GQA, MQA); any strides with the head dim contiguous.  Packed sequences of different lengths:
    q (total_q, heads_q, dim), k and v (total_k, heads_kv, dim), with cu_seqlens_q and cu_seqlens_k
    (int32, batch + 1 offsets on the device) and the longest lengths max_seqlen_q, max_seqlen_k.
    causal: query row i of a sequence of lq rows and lk keys sees keys j <= i + lk - lq (aligned
    bottom-right); a row that sees no key gets zeros and lse -inf.  scale: default 1/sqrt(dim).
    bfloat16 or float16; head dims 64, 96, 128, 192, 256.  Returns out (q's shape, contiguous),
    and with return_lse=True also the fp32 log-sum-exp of each query row, (batch, heads_q, seq_q)
    or, packed, (heads_q, total_q).  A call the kernels cannot take raises tessel.GemmError naming
    the rule.
    """
    from .gemm import _ops_for
    ops = _ops_for(q)
    if ops is not None and ops.attention_needs_op(q, k, v):
        out, lse = ops.attention_op(q, k, v, causal, scale, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                                    impl)
    else:
        out, lse = _run(q, k, v, causal, scale, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, impl)
    return (out, lse) if return_lse else out
