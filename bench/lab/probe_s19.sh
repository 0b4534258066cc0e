#!/usr/bin/env bash
# Session-19 probe (one device call): rebuild, regression tests of the k11..k13
# launch refactor, then two measurements: (1) where 1000^3 loses (leading
# dimensions and ragged edges separated), (2) what cuBLASLt runs at small M
# (kernel names, grids, clusters, DRAM throughput) against k13.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test > "$OUT/build.log" 2>&1 || { grep -m20 -B2 -A8 "error" "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.sm,power.draw,power.limit --format=csv
timeout 200 $B/tests/cuda/gemm_test --gtest_filter='*k13*:Plan*:K13*:*k11*:*k12*:*auto*:*Auto*' > "$OUT/gemm_test.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gemm_test.log" | tr '\n' ' ')"
cat > /tmp/s1000.csv <<'CSV'
group,m,n,k
odd,1000,1000,1000
square,1024,1024,1024
kpad,1000,1000,1024
apad,1024,1024,1000
bpad,1024,1000,1024
mrag,1000,1024,1024
odd,1008,1008,1008
odd,1088,1088,1088
CSV
$B/tessel bench gemm --suite /tmp/s1000.csv --impl auto,cublas --repeat 3 --csv "$OUT/probe1000_auto.csv" 2>/dev/null
$B/tessel bench gemm --suite /tmp/s1000.csv --impl k13 --tile-n 128 --splits 1 --repeat 2 --csv "$OUT/probe1000_n128.csv" 2>/dev/null
python3 - "$OUT/probe1000_auto.csv" "$OUT/probe1000_n128.csv" <<'PY'
import csv,sys,statistics as st,collections
for f in sys.argv[1:]:
    g=collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['impl']!='cublas': g[(r['group'],r['m'],r['n'],r['k'],r['note'])].append(r)
    for k,v in g.items():
        print(f.split('/')[-1],k,'t_us %.1f cub %.1f ratio %.3f'%(1e3*st.median(float(x['median_ms']) for x in v),1e3*st.median(float(x['cublas_median_ms']) for x in v),st.median(float(x['ratio']) for x in v)))
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
for impl in cublas auto; do
  timeout 150 ncu --launch-skip 30 --launch-count 8 --section SpeedOfLight --section LaunchStats \
    $B/tessel bench gemm --m 16 --n 8192 --k 8192 --impl $impl --iterations 20 --warmup 5 > "$OUT/ncu_m16_$impl.txt" 2>&1
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Grid Size|Cluster Size|Block Size|Registers" "$OUT/ncu_m16_$impl.txt" | head -80
done
echo "elapsed $(( $(date +%s) - t0 )) s"
