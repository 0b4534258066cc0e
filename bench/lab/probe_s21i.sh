#!/usr/bin/env bash
# Session-21 device run 9: (1) rule 9's table again, with the bench's error
# floor (1536^3 and 3072^3 were flagged by the 2x-cuBLAS rule only);
# (2) why k13's batched kernel reaches 0.60 of cuBLASLt at 32 x 2048^2 x 128:
# ncu of gemm_grouped (tile 128) against cuBLASLt's nvjet kernel: duration,
# DRAM bytes and throughput, stall reasons, and the stall samples per SASS
# instruction of gemm_grouped.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 150 $B/tessel bench gemm --suite bench/fp32_rule9_suite.csv --dtype fp32 --impl f07,f08,auto,cublas --repeat 2 --flush read --csv "$R/fp32_rule9_h100.csv" > "$R/fp32_rule9.log" 2>&1
echo "rule9 rc=$?"
python3 - "$R/fp32_rule9_h100.csv" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[(r['m'],r['n'],r['k'],r['impl'])].append(r)
for (m,n,k,i),v in g.items():
    rt=[float(r['ratio']) for r in v if r['ratio']]
    print(m,n,k,'%-7s'%i,v[0]['disposition'],'ratio %.3f'%st.median(rt) if rt else '-','err',v[0]['max_err'][:8],v[0]['cublas_max_err'][:8],v[0]['note'][:40])
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.per_cycle_active,launch__grid_size,launch__block_size,launch__registers_per_thread
S='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
for impl in k13 cublas; do
  case $impl in k13) k=gemm_grouped;; cublas) k=nvjet;; esac
  timeout 90 ncu --launch-skip 2 --launch-count 1 -k regex:$k --metrics "$M,$S" \
    $B/tessel bench gemm --batch 32 --m 2048 --n 2048 --k 128 --impl $impl --tile-n 128 --iterations 4 --warmup 2 --verify none > "$R/ncu_batched_$impl.txt" 2>&1
  echo "== $impl"; grep -E "^  [a-zA-Z_].*\(|duration|dram|throughput|grid|block|registers|issue_active" "$R/ncu_batched_$impl.txt" | cut -c1-110
  grep -E "stalled" "$R/ncu_batched_$impl.txt" | awk '$NF+0 >= 0.05' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | head -12
done
timeout 120 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_grouped --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
  $B/tessel bench gemm --batch 32 --m 2048 --n 2048 --k 128 --impl k13 --tile-n 128 --iterations 4 --warmup 2 --verify none > "$R/ncu_source_batched.csv" 2>"$R/ncu_source_batched.err"
echo "source rc=$? $(wc -c < "$R/ncu_source_batched.csv")"
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
