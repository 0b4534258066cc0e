#!/usr/bin/env bash
# Session 38, probe o: the shape suite with auto (rules 10b, fused included)
# each alone against cuBLASLt with blocks of at least 2 s (--order blocks
# --min-ms 2000, the new option), two repeats: cuBLASLt first in the
# first, last in the second.  plan3 = probe n's build with --min-ms
# (bench_gemm_args.cpp, bench_gemm.cu and main.cpp recompiled, relinked).
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/plan3 && tar xJf .carry/plan3.txz -C /tmp/plan3
B=/tmp/plan3/tessel
timeout 560 $B bench gemm --suite tests/data/bench_suite.csv --impl auto --order blocks --min-ms 2000 --repeat 2 \
  --csv "$R/suite_alone_s38o.csv" > "$R/suite_alone_s38o.txt" 2>&1; echo "suite rc=$?"
medians "$R/suite_alone_s38o.csv" | grep -v cublas | tee "$R/suite_alone_medians.txt"
elapsed suite; pack
