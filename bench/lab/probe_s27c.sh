#!/usr/bin/env bash
# Session-27 device run (c): where the small-M gap lies.  auto against
# cuBLASLt at M = 16, 64, 128, N = 8192 and K from 4096 to 32768
# (bench/lab/small_m_scaling_s27_suite.csv, three repeats): a line through
# time against K gives each side's streaming rate (slope) and fixed cost
# (intercept).  Predicted: the intercepts differ by 1-2 us (split K's second
# phase, the ramp) and the slopes by under 2 %.  Then ncu of one launch each,
# ours (gemm_wgmma) and cuBLASLt's (nvjet), at 16 x 8192 x 8192: DRAM bytes
# and throughput, duration.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
S=bench/lab/small_m_scaling_s27_suite.csv
timeout 200 /tmp/bn/tessel bench gemm --suite $S --impl auto,cublas --repeat 3 --csv "$R/scaling.csv" > "$R/scaling.txt" 2>&1
elapsed "scaling"; pack
medians "$R/scaling.csv"
python3 - "$R/scaling.csv" <<'PY'
import csv, collections, statistics as st, sys
t = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl'] == 'auto':
        t[(int(r['m']), 'auto', int(r['k']))].append(float(r['median_ms']) * 1e3)
        t[(int(r['m']), 'cublas', int(r['k']))].append(float(r['cublas_median_ms']) * 1e3)
for m in (16, 64, 128):
    for who in ('auto', 'cublas'):
        ks = sorted(k for (mm, w, k) in t if mm == m and w == who)
        xs = [k / 1024 for k in ks]; ys = [st.median(t[(m, who, k)]) for k in ks]
        n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        a = my - b * mx
        gbs = (8192 * 1024 * 2) / (b * 1e-6) / 1e9
        print('M=%3d %-6s us per K=1024 %.3f (%.0f GB/s of B)  intercept %.2f us  times %s' % (m, who, b, gbs, a, ' '.join('%.1f' % y for y in ys)))
PY
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__cluster_dim_x,lts__t_sectors_srcunit_tex_op_read.sum"
for who in gemm_wgmma nvjet; do
  echo "== 16x8192x8192 $who"
  timeout 60 ncu --kernel-name-base mangled --launch-skip 4 --launch-count 1 -k regex:$who --metrics $M \
    /tmp/bn/tessel bench gemm --m 16 --n 8192 --k 8192 --impl auto --iterations 12 --warmup 3 --verify none 2>&1 \
    | grep -E "^  [_n]|duration|dram|lts|grid|cluster|ERR" | cut -c1-120
done > "$R/ncu_m16.txt" 2>&1
cat "$R/ncu_m16.txt"
elapsed "done"
pack
