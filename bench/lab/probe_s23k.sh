#!/usr/bin/env bash
# Session-23 device run 11: at 8192 x 28672 x 8192 k15 measured 0.999 of
# cuBLASLt with raster groups of 4 tile rows and 0.813 with the plan's 8
# (s23/k15_raster_groups_h100.csv).  Why: ncu (free clock) DRAM bytes, L2
# sectors and hit rate, clock and power for k15 at groups 4 and 8 and k13
# at 8; then k13 and k15 at groups 4 and 8 interleaved with cuBLASLt.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; pack; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second
for c in "k15 4" "k15 8" "k13 8" "k13 4"; do
  set -- $c
  timeout 100 ncu --clock-control none --kernel-name regex:"gemm_" --metrics $M \
    $B/tessel bench gemm --m 8192 --n 28672 --k 8192 --impl $1 --raster-group $2 --order none > "$R/ncu_$1_g$2.txt" 2>&1
  echo "== $1 group $2: $(grep -E 'gpu__time|dram__bytes|lts__t_sectors.sum|hit_rate|per_second' "$R/ncu_$1_g$2.txt" | awk '{print $1, $(NF)}' | tr '\n' ' ')"
done
for g in 4 8; do
  timeout 120 $B/tessel bench gemm --m 8192 --n 28672 --k 8192 --impl k13,k15,cublas --raster-group $g --repeat 3 --csv "$R/llm28672_g$g.csv" > /dev/null 2>&1
  python3 - "$R/llm28672_g$g.csv" "group $g" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl']!='cublas': g[r['impl']].append(r)
print(sys.argv[2], '  '.join('%s %.3f' % (i, st.median(float(r['ratio']) for r in rs)) for i,rs in g.items()), ' clk', rs[0]['sm_clock_mhz'][:4], 'W', rs[0]['power_w'][:3])
PY
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
