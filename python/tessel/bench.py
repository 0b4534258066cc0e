"""python -m tessel.bench: tessel.gemm against torch.matmul under tessel's protocol.

The rules are those of ``tessel bench gemm`` (docs/bench-protocol.md): every
row verified before it is timed (output poisoned with NaN; tier 2: random
inputs in [-1, 1] against an fp64 reference with the K-aware bound, and not
more than twice torch's error), the L2 flushed before every timed launch by
reading a buffer of twice its size, CUDA events around each launch, warm-up
first, tessel and torch timed in one interleaved loop (one launch of each per
round, the first alternating), the median reported with the minimum and the
90th percentile, and the mean SM clock and board power of the loop (NVML,
where nvidia-ml-py is installed).  The CSV has the command line's columns;
the ``cublas_*`` columns hold torch.matmul's numbers (cuBLAS underneath), and
the ``impl`` of the reference rows is ``torch``.

    python -m tessel.bench --suite tests/data/bench_suite.csv --csv out.csv
    python -m tessel.bench --m 4096 --n 4096 --k 4096 --repeat 3
    python -m tessel.bench --overhead          # the Python call's cost over C++'s
    python -m tessel.bench attention ...       # tessel.attention against SDPA (tessel/bench_attention.py)
"""
import argparse
import csv
import statistics
import sys
import threading
import time

import tessel

COLUMNS = [
    "gpu", "sm_count", "commit", "impl", "group", "repeat", "m", "n", "k", "dtype", "out_dtype", "layout", "alpha",
    "beta", "verify", "disposition", "note", "max_err", "cublas_max_err", "cublas_disposition", "median_ms", "min_ms",
    "p90_ms", "tflops", "cublas_median_ms", "cublas_tflops", "ratio", "gbytes_per_s", "cublas_gbytes_per_s", "l2_flush",
    "sm_clock_mhz", "power_w", "cublas_sm_clock_mhz", "cublas_power_w", "timing"
]


class Sampler:
    """Mean SM clock (MHz) and board power (W) over a span, sampled every 5 ms through NVML."""

    def __init__(self, device):
        self.nvml = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(device)
        except Exception:  # no nvidia-ml-py or no driver: the columns stay empty
            self.nvml = None
        self.samples = []
        self.stop = threading.Event()

    def __enter__(self):
        if self.nvml is not None:
            self.stop.clear()
            self.samples = []
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()
        return self

    def _run(self):
        while not self.stop.is_set():
            try:
                clk = self.nvml.nvmlDeviceGetClockInfo(self.handle, self.nvml.NVML_CLOCK_SM)
                watts = self.nvml.nvmlDeviceGetPowerUsage(self.handle) / 1000.0
                self.samples.append((clk, watts))
            except Exception:
                return
            time.sleep(0.005)

    def __exit__(self, *exc):
        if self.nvml is not None:
            self.stop.set()
            self.thread.join()

    def means(self):
        if not self.samples:
            return "", ""
        return ("%.1f" % statistics.fmean(s[0] for s in self.samples),
                "%.1f" % statistics.fmean(s[1] for s in self.samples))


def tier2_check(torch, d, a, b, out_dtype):
    """(passed, max normalized error) of D against the fp64 reference with the protocol's bound."""
    k = a.shape[1]
    ref = a.double() @ b.double()
    bound_acc = 2.0 * k * 2.0**-24 * (a.double().abs() @ b.double().abs())
    u = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11, torch.float32: 2.0**-24}[out_dtype]
    bound = 2.0 * u * ref.abs() + bound_acc
    err = (d.double() - ref).abs()
    if torch.isnan(d).any():
        return False, float("nan")
    norm = (err / bound.clamp_min(1e-300)).max().item()
    return bool((err <= bound).all().item()), norm


def one_problem(torch, args, group, m, n, k, repeat, flush, gpu, sms):
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    out_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.out_dtype or args.dtype]
    gen = torch.Generator(device="cuda").manual_seed(1234 + m + 7 * n + 13 * k)
    a = (torch.rand(m, k, device="cuda", generator=gen) * 2 - 1).to(dtype)
    b = (torch.rand(k, n, device="cuda", generator=gen) * 2 - 1).to(dtype)
    if args.layout[0] == "m":
        a = a.t().contiguous().t()
    if args.layout[1] == "k":
        b = b.t().contiguous().t()
    d = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
    row = {c: "" for c in COLUMNS}
    row.update(gpu=gpu, sm_count=sms, commit=args.commit, impl="tessel:" + args.impl, group=group, repeat=repeat, m=m,
               n=n, k=k, dtype=args.dtype, out_dtype=args.out_dtype or args.dtype,
               layout="A:%s,B:%s" % (args.layout[0], args.layout[1]), alpha=1, beta=0, verify="tier2",
               l2_flush="read", timing="interleaved")
    try:
        tessel.gemm(a, b, out=d, impl=args.impl)
        torch.cuda.synchronize()
    except (ValueError, TypeError) as e:
        row.update(disposition="not_supported", note=str(e))
        return [row]
    ok, err = tier2_check(torch, d, a, b, out_dtype)
    ref_out = torch.matmul(a, b).to(out_dtype) if out_dtype != dtype else torch.matmul(a, b)
    tok, terr = tier2_check(torch, ref_out, a, b, out_dtype)
    row.update(max_err="%.6g" % err, cublas_max_err="%.6g" % terr, cublas_disposition="passed" if tok else "incorrect")
    if not ok or (tok and terr > 0 and err > 2 * terr):
        row.update(disposition="incorrect", note="max normalized error %.3g (torch %.3g)" % (err, terr))
        return [row]
    row["disposition"] = "passed"
    row["note"] = tessel.gemm_plan(m, n, k, args.dtype, args.out_dtype or args.dtype)

    def run_tessel():
        tessel.gemm(a, b, out=d, impl=args.impl)

    if out_dtype == dtype:

        def run_torch():
            torch.matmul(a, b, out=ref_out)
    else:

        def run_torch():  # torch has no mixed-output matmul: the conversion is part of its cost
            torch.matmul(a, b).to(out_dtype)

    runs = [run_tessel, run_torch]
    for f in runs:  # warm-up: at least 10 launches or 25 ms
        t0 = time.perf_counter()
        i = 0
        while i < 10 or time.perf_counter() - t0 < 0.025:
            f()
            i += 1
        torch.cuda.synchronize()
    times = [[], []]
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(2)]
    sampler = Sampler(torch.cuda.current_device())
    with sampler:
        t0 = time.perf_counter()
        r = 0
        while r < args.iterations or time.perf_counter() - t0 < 0.2:
            order = (0, 1) if r % 2 == 0 else (1, 0)
            for i in order:
                flush()
                events[i][0].record()
                runs[i]()
                events[i][1].record()
            torch.cuda.synchronize()
            for i in (0, 1):
                times[i].append(events[i][0].elapsed_time(events[i][1]))
            r += 1
    clk, watts = sampler.means()
    flop = 2.0 * m * n * k
    nbytes = (m * k + k * n) * a.element_size() + m * n * d.element_size()

    def stats(ts):
        s = sorted(ts)
        return statistics.median(s), s[0], s[min(len(s) - 1, int(0.9 * len(s)))]

    med, lo, p90 = stats(times[0])
    tmed, _, _ = stats(times[1])
    row.update(median_ms="%.6g" % med, min_ms="%.6g" % lo, p90_ms="%.6g" % p90, tflops="%.6g" % (flop / med / 1e9),
               cublas_median_ms="%.6g" % tmed, cublas_tflops="%.6g" % (flop / tmed / 1e9), ratio="%.6g" % (tmed / med),
               gbytes_per_s="%.6g" % (nbytes / med / 1e6), cublas_gbytes_per_s="%.6g" % (nbytes / tmed / 1e6),
               sm_clock_mhz=clk, power_w=watts, cublas_sm_clock_mhz=clk, cublas_power_w=watts)
    ref_row = dict(row)
    ref_row.update(impl="torch", note="torch.matmul", max_err=row["cublas_max_err"], median_ms=row["cublas_median_ms"],
                   tflops=row["cublas_tflops"], ratio="1", gbytes_per_s=row["cublas_gbytes_per_s"], min_ms="", p90_ms="")
    return [ref_row, row]


def write_csv(path, columns, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)


def device_and_flush(torch):
    """The current device's properties, and the L2 flush: read twice the L2, write one value, so
    nothing dirty is left to write back during the timed launch."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    l2 = getattr(props, "L2_cache_size", 50 * 2**20)
    buf = torch.empty(max(2 * l2, 64 * 2**20) // 4, device="cuda", dtype=torch.float32).uniform_()
    return props, buf.sum


def overhead(torch, calls):
    """Median host time of a tiny tessel.gemm from Python and of tessel::gemm from C++ (µs)."""
    m = n = k = 64
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    stream = torch.cuda.current_stream().cuda_stream
    device = torch.cuda.current_device()
    for _ in range(50):
        tessel.gemm(a, b, out=d)
    torch.cuda.synchronize()
    py = []
    for _ in range(calls):
        t0 = time.perf_counter_ns()
        tessel.gemm(a, b, out=d)
        t1 = time.perf_counter_ns()
        torch.cuda.synchronize()
        py.append(t1 - t0)
    cpp = tessel._tessel._time_cpp_calls("auto", m, n, k, "bf16", "bf16", "kn", a.data_ptr(), k, b.data_ptr(), n,
                                         d.data_ptr(), n, device, stream, calls)
    if not cpp:
        raise SystemExit("tessel.bench: the C++ timing loop failed")
    py_us, cpp_us = statistics.median(py) / 1e3, statistics.median(cpp) / 1e3
    return py_us, cpp_us


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "attention":
        from . import bench_attention
        return bench_attention.main(argv[1:])
    p = argparse.ArgumentParser(prog="python -m tessel.bench", description=__doc__.split("\n")[0])
    p.add_argument("--suite", help="CSV with columns group,m,n,k (tests/data/bench_suite.csv)")
    p.add_argument("--m", type=int)
    p.add_argument("--n", type=int)
    p.add_argument("--k", type=int)
    p.add_argument("--dtype", default="bf16", choices=["bf16", "fp16", "fp32"])
    p.add_argument("--out-dtype", dest="out_dtype", choices=["bf16", "fp16", "fp32"])
    p.add_argument("--layout", default="kn", choices=["kn", "kk", "mn", "mk"],
                   help="A's and B's contiguous index (as tessel bench gemm's short form)")
    p.add_argument("--impl", default="auto")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--iterations", type=int, default=50, help="timed rounds, at least (and at least 200 ms)")
    p.add_argument("--csv", help="write the rows here")
    p.add_argument("--commit", default="", help="the commit to record in the commit column")
    p.add_argument("--overhead", action="store_true", help="measure the Python call's cost over the C++ call")
    p.add_argument("--calls", type=int, default=1000)
    args = p.parse_args(argv)

    import torch
    if not (tessel.has_gemm and torch.cuda.is_available()):
        print("tessel.bench: SKIPPED: needs a CUDA GPU and a tessel build with the GEMMs (tessel.has_gemm)")
        return 0
    if args.overhead:
        py_us, cpp_us = overhead(torch, args.calls)
        print("tiny GEMM (64 x 64 x 64, bf16), median host time per call over %d calls: Python %.2f us, "
              "C++ %.2f us, Python's overhead %.2f us" % (args.calls, py_us, cpp_us, py_us - cpp_us))
        return 0
    problems = []
    if args.suite:
        with open(args.suite, newline="") as f:
            for r in csv.DictReader(f):
                problems.append((r["group"], int(r["m"]), int(r["n"]), int(r["k"])))
    elif args.m and args.n and args.k:
        problems.append(("single", args.m, args.n, args.k))
    else:
        p.error("give --suite FILE or --m, --n and --k")
    props, flush = device_and_flush(torch)
    rows = []
    for rep in range(1, args.repeat + 1):
        for group, m, n, k in problems:
            got = one_problem(torch, args, group, m, n, k, rep, flush, props.name, props.multi_processor_count)
            rows.extend(got)
            t = got[-1]
            print("%-8s %6d x %6d x %6d  %-26s %s  tessel %s TFLOP/s  torch %s  ratio %s" %
                  (group, m, n, k, t["impl"], t["disposition"], t["tflops"] or "-", t["cublas_tflops"] or "-", t["ratio"]
                   or "-"),
                  flush=True)
    if args.csv:
        write_csv(args.csv, COLUMNS, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
