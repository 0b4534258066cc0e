#!/usr/bin/env bash
# Session-19 device run 6 (the last): f07's tests and timing against f06 and
# cuBLAS fp32; the plan's tests; the suite with rules 4 (unsplit 64-wide
# swapped tile) and 5 (k14 for short K); ncu of k13, k14 and cuBLASLt at 1024^3.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test gemm_api_test > "$OUT/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 120 $B/tests/cuda/gemm_test --gtest_filter='Fp32Steps/*f07*:Fp32Plan/*:Plan/*:K13Swap/*' > "$OUT/gemm_test.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gemm_test.log" | tr '\n' ' ')"; grep -E "^\[  FAILED" "$OUT/gemm_test.log" | head
timeout 40 $B/tests/cuda/gemm_api_test > "$OUT/gemm_api_test.log" 2>&1; echo "gemm_api_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gemm_api_test.log" | tr '\n' ' ')"
med() {
python3 - "$@" <<'PY'
import csv,sys,statistics as st,collections,math
g=collections.defaultdict(list)
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        if r['impl']!='cublas' and r['ratio']: g[(r['m'],r['n'],r['k'],r['dtype'],r['impl'],r['note'])].append(r)
meds={}
for k,v in sorted(g.items()):
    meds[k]=st.median(float(x['ratio']) for x in v)
    print(k,'ratio %.3f'%meds[k],'TFLOP/s %.1f cub %.1f'%(st.median(float(x['tflops']) for x in v),st.median(float(x['cublas_tflops']) for x in v)))
impls=set(k[4] for k in meds)
for i in impls:
    xs=[v for k,v in meds.items() if k[4]==i]
    print(i,'geomean of medians %.3f min %.3f over %d'%(math.exp(sum(map(math.log,xs))/len(xs)),min(xs),len(xs)))
PY
}
$B/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f06,f07,cublas --repeat 2 --csv "$OUT/fp32_f07_h100.csv" 2>/dev/null | tail -3
med "$OUT/fp32_f07_h100.csv"
echo "elapsed $(( $(date +%s) - t0 )) s"
$B/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 3 --csv "$OUT/suite_auto_final_h100.csv" 2>/dev/null | tail -2
med "$OUT/suite_auto_final_h100.csv"
echo "elapsed $(( $(date +%s) - t0 )) s"
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__inst_executed.sum,launch__grid_size,launch__cluster_dim_x,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_issue_stalled_barrier,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_membar_per_warp_active.pct"
for impl in k13 k14; do
  timeout 60 ncu --kernel-name-base mangled --launch-skip 4 --launch-count 1 -k regex:'gemm_kernels|nvjet' --metrics $M $B/tessel bench gemm --m 1024 --n 1024 --k 1024 --impl $impl --tile-n 64 --iterations 12 --warmup 3 --verify none 2>&1 | grep -E "^  [_n]|duration|dram|lts|inst|grid|cluster|throughput|stalled" | cut -c1-110
done
echo "elapsed $(( $(date +%s) - t0 )) s"
