"""python -m tessel.bench attention: tessel.attention against torch's SDPA (cuDNN and FlashAttention).

The protocol of ``tessel bench gemm`` (docs/bench-protocol.md): every row verified before it is
timed (each implementation's output on sampled query rows against an fp64 reference; tessel's
error at most the bound of docs/attention.md and at most twice cuDNN's), then tessel, cuDNN's SDPA
backend and the FlashAttention backend timed in one interleaved loop (one launch of each per
round, the first rotating), the L2 flushed by reading before every launch, CUDA events, the median
with the minimum and the 90th percentile, and the loop's mean SM clock and board power (NVML).
FLOPs are 4 d per query-key pair attended (a causal call counts the pairs it sees).

    python -m tessel.bench attention --seq 8192 --dim 128 --mask none,causal --csv out.csv
    python -m tessel.bench attention --seq 1024 --batch 16 --heads 32 --kv-heads 8
    python -m tessel.bench attention --varlen --seq 8192 --batch 4   # 32k tokens of packed sequences
"""
import argparse
import math
import statistics
import time

import tessel
from tessel.attention import _IMPLS
from tessel.bench import Sampler, device_and_flush, write_csv

COLUMNS = [
    "gpu", "sm_count", "commit", "impl", "repeat", "batch", "heads_q", "heads_kv", "seq_q", "seq_kv", "head_dim",
    "causal", "dtype", "verify", "disposition", "note", "max_err", "bound", "median_ms", "min_ms", "p90_ms", "tflops",
    "ratio_cudnn", "ratio_flash", "sm_clock_mhz", "power_w", "timing"
]


def pairs(lq, lk, causal):
    if not causal:
        return lq * lk
    return sum(min(max(i + lk - lq + 1, 0), lk) for i in range(lq))


def sampled_reference(torch, q, k, v, causal, rows):
    """fp64 O on `rows` query rows of every (batch, head): (row indices, reference, max|V|)."""
    lq, lk, d = q.shape[2], k.shape[2], q.shape[3]
    group = q.shape[1] // k.shape[1]
    idx = torch.unique(torch.cat([torch.tensor([0, lq - 1]), torch.randint(0, lq, (rows, ))]))
    qs = q[:, :, idx.to(q.device)].double()
    kk = k.double().repeat_interleave(group, dim=1)
    vv = v.double().repeat_interleave(group, dim=1)
    s = (qs @ kk.transpose(-1, -2)) * d**-0.5
    if causal:
        j = torch.arange(lk, device=q.device).view(1, -1)
        s = s.masked_fill(j > idx.to(q.device).view(-1, 1) + (lk - lq), -math.inf)
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    return idx, p @ vv


def sdpa_call(torch, backend, q, k, v, causal, gqa):
    from torch.nn.attention import sdpa_kernel

    def call():
        with sdpa_kernel(backend):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)

    return call


def bound_of(torch, dtype, dim, keys):
    """The bound of docs/attention.md for inputs in [-1, 1]."""
    u = 2.0**-8 if dtype == torch.bfloat16 else 2.0**-11
    return 2 * u + 2 * dim * 2.0**-24 * dim**-0.5 * dim + keys * 2.0**-24 + 1e-5


def dense(torch, args, batch, heads, kv_heads, seq, dim, causal):
    """(implementations, check, flops, verify words, note) of a (batch, heads, seq, dim) problem."""
    from torch.nn.attention import SDPBackend
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    gen = torch.Generator(device="cuda").manual_seed(seq * 7 + dim)
    q = (torch.rand(batch, heads, seq, dim, device="cuda", generator=gen) * 2 - 1).to(dtype)
    k = (torch.rand(batch, kv_heads, seq, dim, device="cuda", generator=gen) * 2 - 1).to(dtype)
    v = (torch.rand(batch, kv_heads, seq, dim, device="cuda", generator=gen) * 2 - 1).to(dtype)
    gqa = heads != kv_heads
    impls = [("tessel:" + args.impl, lambda: tessel.attention(q, k, v, causal=causal, impl=args.impl)),
             ("torch:cudnn", sdpa_call(torch, SDPBackend.CUDNN_ATTENTION, q, k, v, causal, gqa)),
             ("torch:flash", sdpa_call(torch, SDPBackend.FLASH_ATTENTION, q, k, v, causal, gqa))]
    idx, ref = sampled_reference(torch, q, k, v, causal, args.verify_rows)

    def check(out):
        got = out[:, :, idx.to(out.device)].double()
        return (got - ref).abs().max().item() if not torch.isnan(got).any() else float("inf")

    flops = 4.0 * dim * pairs(seq, seq, causal) * batch * heads
    return impls, check, bound_of(torch, dtype, dim, seq), flops, "sampled%d" % len(idx), ""


def varlen_lengths(total, seed):
    """Lengths log-uniform in [128, 8192] summing to `total` (the last one cut to fit)."""
    import random
    rng, lengths = random.Random(seed), []
    while sum(lengths) < total:
        lengths.append(int(round(math.exp(rng.uniform(math.log(128), math.log(8192))))))
    lengths[-1] -= sum(lengths) - total
    return [n for n in lengths if n > 0]


def varlen(torch, args, heads, kv_heads, seq, dim, causal):
    """A packed batch of sequences of different lengths, args.batch x seq tokens in all: tessel on the
    packed tensors (cu_seqlens), SDPA on nested (jagged) tensors of the same storage."""
    from torch.nn.attention import SDPBackend
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    lengths = varlen_lengths(args.batch * seq, seq * 31 + dim)
    total = sum(lengths)
    gen = torch.Generator(device="cuda").manual_seed(seq * 7 + dim + 1)
    q = (torch.rand(total, heads, dim, device="cuda", generator=gen) * 2 - 1).to(dtype)
    k = (torch.rand(total, kv_heads, dim, device="cuda", generator=gen) * 2 - 1).to(dtype)
    v = (torch.rand(total, kv_heads, dim, device="cuda", generator=gen) * 2 - 1).to(dtype)
    offsets = [0]
    for n in lengths:
        offsets.append(offsets[-1] + n)
    cu = torch.tensor(offsets, dtype=torch.int32, device="cuda")
    longest = max(lengths)

    def nested(x):  # (B, j, H, D) jagged, seen as (B, H, j, D)
        return torch.nested.nested_tensor_from_jagged(x, offsets=cu.long()).transpose(1, 2)

    qn, kn, vn = nested(q), nested(k), nested(v)
    gqa = heads != kv_heads

    def vendor(backend):
        call = sdpa_call(torch, backend, qn, kn, vn, causal, gqa)
        return lambda: call().transpose(1, 2).values()  # back to (total, heads, dim)

    impls = [("tessel:" + args.impl,
              lambda: tessel.attention(q, k, v, causal=causal, cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=longest,
                                       max_seqlen_k=longest, impl=args.impl)),
             ("torch:cudnn", vendor(SDPBackend.CUDNN_ATTENTION)), ("torch:flash", vendor(SDPBackend.FLASH_ATTENTION))]
    # The reference: sampled rows of the first, the longest and the last sequence.
    picks = sorted({0, lengths.index(longest), len(lengths) - 1})
    refs = []
    for b in picks:
        sl = slice(offsets[b], offsets[b + 1])
        one = [x[sl].permute(1, 0, 2).unsqueeze(0) for x in (q, k, v)]  # (1, H, n, D)
        idx, ref = sampled_reference(torch, *one, causal, args.verify_rows)
        refs.append((offsets[b], idx, ref))

    def check(out):
        err = 0.0
        for first, idx, ref in refs:
            got = out[first + idx.to(out.device)].permute(1, 0, 2).unsqueeze(0).double()
            if torch.isnan(got).any():
                return float("inf")
            err = max(err, (got - ref).abs().max().item())
        return err

    flops = 4.0 * dim * heads * sum(pairs(n, n, causal) for n in lengths)
    note = "varlen: %d sequences of %d-%d tokens" % (len(lengths), min(lengths), longest)
    return impls, check, bound_of(torch, dtype, dim, longest), flops, "sampled_varlen", note


def measure(torch, args, flush, meta, impls, check, bound, flops, verify, note):
    """Each implementation verified (its error at most the bound, tessel's at most twice cuDNN's),
    then the passing ones timed in one interleaved loop; one row each."""
    rows, launches = [], []
    for name, call in impls:
        row = {c: "" for c in COLUMNS}
        row.update(meta, commit=args.commit, impl=name, dtype=args.dtype, verify=verify, bound="%.6g" % bound,
                   timing="interleaved", note=note)
        try:
            out = call()
            torch.cuda.synchronize()
        except (RuntimeError, ValueError, TypeError) as e:
            row.update(disposition="not_supported", note=str(e).splitlines()[0][:200])
            rows.append(row)
            continue
        err = check(out)
        row.update(max_err="%.6g" % err, disposition="passed" if err <= bound else "incorrect")
        rows.append(row)
        if err <= bound:
            launches.append((len(rows) - 1, call))
    cudnn_err = rows[1]["max_err"]
    if rows[0]["disposition"] == "passed" and cudnn_err and float(rows[0]["max_err"]) > 2 * float(cudnn_err) > 0:
        note = "error %s above twice cuDNN's %s" % (rows[0]["max_err"], cudnn_err)
        rows[0].update(disposition="incorrect", note=note)
        launches = [(i, f) for i, f in launches if i != 0]
    for _, f in launches:  # warm-up: at least 10 launches or 25 ms each
        t0, i = time.perf_counter(), 0
        while i < 10 or time.perf_counter() - t0 < 0.025:
            f()
            i += 1
    torch.cuda.synchronize()
    times = {i: [] for i, _ in launches}
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in launches]
    sampler = Sampler(torch.cuda.current_device())
    with sampler:
        t0, r = time.perf_counter(), 0
        while launches and (r < args.iterations or time.perf_counter() - t0 < 0.2):
            for q_ in range(len(launches)):
                j = (r + q_) % len(launches)
                flush()
                events[j][0].record()
                launches[j][1]()
                events[j][1].record()
            torch.cuda.synchronize()
            for j, (i, _) in enumerate(launches):
                times[i].append(events[j][0].elapsed_time(events[j][1]))
            r += 1
    clk, watts = sampler.means()
    med = {}
    for i, ts in times.items():
        s = sorted(ts)
        med[i] = statistics.median(s)
        p90 = s[min(len(s) - 1, int(0.9 * len(s)))]
        rows[i].update(median_ms="%.6g" % med[i], min_ms="%.6g" % s[0], p90_ms="%.6g" % p90,
                       tflops="%.6g" % (flops / med[i] / 1e9), sm_clock_mhz=clk, power_w=watts)
    if 0 in med:
        if 1 in med:
            rows[0]["ratio_cudnn"] = "%.6g" % (med[1] / med[0])
        if 2 in med:
            rows[0]["ratio_flash"] = "%.6g" % (med[2] / med[0])
    return rows


def main(argv):
    p = argparse.ArgumentParser(prog="python -m tessel.bench attention", description=__doc__.split("\n")[0])
    ints = lambda s: [int(x) for x in s.split(",")]  # noqa: E731
    p.add_argument("--seq", type=ints, default=[8192], help="sequence lengths (list)")
    p.add_argument("--dim", type=ints, default=[128], help="head dims (list)")
    p.add_argument("--mask", default="none", help="none, causal or none,causal")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", dest="kv_heads", type=int, default=0, help="default: --heads")
    p.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    p.add_argument("--impl", default="auto", choices=list(_IMPLS))
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--iterations", type=int, default=50, help="timed rounds, at least (and at least 200 ms)")
    p.add_argument("--verify-rows", dest="verify_rows", type=int, default=32)
    p.add_argument("--csv", help="write the rows here")
    p.add_argument("--varlen", action="store_true",
                   help="packed sequences of lengths log-uniform in [128, 8192], --batch x --seq tokens in all "
                   "(SDPA on nested jagged tensors)")
    p.add_argument("--commit", default="")
    args = p.parse_args(argv)
    masks = args.mask.split(",")
    if any(m not in ("none", "causal") for m in masks):
        p.error("--mask: none, causal or none,causal")
    import torch
    if not (tessel.has_gemm and torch.cuda.is_available()):
        print("tessel.bench attention: SKIPPED: needs a CUDA GPU and a tessel build with the kernels")
        return 0
    props, flush = device_and_flush(torch)
    out = []
    for rep in range(1, args.repeat + 1):
        for seq in args.seq:
            for dim in args.dim:
                for m in masks:
                    kv = args.kv_heads or args.heads
                    problem = (varlen(torch, args, args.heads, kv, seq, dim, m == "causal") if args.varlen else dense(
                        torch, args, args.batch, args.heads, kv, seq, dim, m == "causal"))
                    meta = dict(gpu=props.name, sm_count=props.multi_processor_count, repeat=rep, batch=args.batch,
                                heads_q=args.heads, heads_kv=kv, seq_q=seq, seq_kv=seq, head_dim=dim,
                                causal=int(m == "causal"))
                    rows = measure(torch, args, flush, meta, *problem)
                    out.extend(rows)
                    t = rows[0]
                    print("%6d d%-3d %-6s %s %s  %s TFLOP/s  vs cuDNN %s  vs flash %s" %
                          (seq, dim, m, t["impl"], t["disposition"], t["tflops"] or "-", t["ratio_cudnn"] or "-",
                           t["ratio_flash"] or "-"),
                          flush=True)
    if args.csv:
        write_csv(args.csv, COLUMNS, out)
    return 0
