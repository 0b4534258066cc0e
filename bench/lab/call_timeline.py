#!/usr/bin/env python3
"""What one GEMM call puts on the GPU, as the bench times it: an L2 flush (a
read of a large buffer), then the call, between CUDA events; tessel against
torch.mm (cuBLASLt) on the same operands.  The torch profiler (CUPTI) records
every kernel, memset and copy of the process, so the timeline shows what the
events cannot: when the call's first kernel starts after the flush ends, each
kernel's duration, and anything else the call enqueues (a memset, a second
kernel).  ncu times a kernel alone, without the start latency that events
include; this is the tool for "is there time outside the kernel?".

  python3 bench/lab/call_timeline.py 256x1024x13152,1x1088x256 [--iters 15]

Needs torch with CUDA and the tessel Python package (PYTHONPATH).  bf16,
row-major A (M x K) and B (K x N): tessel's A:k, B:n.  Prints one line per
problem and library: the median event time, and for the median iteration
each operation's start after the flush and its duration (µs).
"""
import argparse
import json
import os
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile

import tessel


def timeline(fn, flush, sink, iters):
    """Median event time (µs) and the median iteration's operations after the flush: (name, start, duration)."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    events = []
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            torch.sum(flush, dim=0, dtype=torch.int64, out=sink)
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            fn()
            e1.record()
            events.append((e0, e1))
        torch.cuda.synchronize()
    event_us = sorted(a.elapsed_time(b) * 1000 for a, b in events)[len(events) // 2]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)["traceEvents"]
    ops = sorted((e for e in trace if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")), key=lambda e: e["ts"])
    # Each flush (a reduction longer than 50 µs) opens an iteration.  Left out: torch's own kernels, and the
    # memset that torch.sum puts just before the next flush (within 20 µs of its start).
    iterations, current = [], None
    for e in ops:
        if "reduce" in e["name"].lower() and e["dur"] > 50:
            if current is not None:
                current["ops"] = [o for o in current["ops"]
                                  if not (o["name"].startswith("Memset") and e["ts"] - o["ts"] < 20)]
            current = {"end": e["ts"] + e["dur"], "ops": []}
            iterations.append(current)
        elif current is not None and "at::" not in e["name"]:
            current["ops"].append(e)
    rows = []
    for it in iterations[2:]:
        if it["ops"]:
            last = it["ops"][-1]
            rows.append((last["ts"] + last["dur"] - it["end"],
                         [(o["name"][:48], o["ts"] - it["end"], o["dur"]) for o in it["ops"]]))
    rows.sort(key=lambda r: r[0])
    return event_us, rows[len(rows) // 2][1] if rows else []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("problems", help="MxNxK[,MxNxK...]")
    ap.add_argument("--iters", type=int, default=15)
    a = ap.parse_args()
    flush = torch.zeros(128 << 20, dtype=torch.int32, device="cuda")  # 512 MB: several times any L2
    sink = torch.empty((), dtype=torch.int64, device="cuda")
    for text in a.problems.split(","):
        m, n, k = map(int, text.split("x"))
        x = torch.randn(m, k, device="cuda").to(torch.bfloat16)
        w = torch.randn(k, n, device="cuda").to(torch.bfloat16)
        for lib, fn in (("tessel", lambda: tessel.gemm(x, w)), ("torch", lambda: torch.mm(x, w))):
            event_us, ops = timeline(fn, flush, sink, a.iters)
            what = "  ".join("%s @%.1f %.1f" % o for o in ops)
            plan = tessel.gemm_plan(m, n, k) if lib == "tessel" else ""
            print("%s %-6s event %6.1f us | %s %s" % (text, lib, event_us, what, plan), flush=True)


if __name__ == "__main__":
    main()
