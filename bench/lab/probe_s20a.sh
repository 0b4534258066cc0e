#!/usr/bin/env bash
# Session-20 device run 1: k13's raster group as a run-time knob (rule 6).
# Prediction (docs/heuristics.md, rule 6): at 128 x 256 tiles on 132 SMs the
# group of 8 tile rows makes each wave read ~12 tile rows of A and all 16 tile
# columns of B at 4096^3 (DRAM 187 MB a GEMM); 16 rows x ~8 columns reads a
# third less per wave (model: ~130 MB).  If the large shapes are power-capped,
# fewer DRAM bytes should give +1..3 %.  Sweep G in {8, 12, 16, 24} against
# cuBLASLt in the same run; ncu's DRAM bytes at 4096^3 for G = 8 and 16.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test > "$OUT/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 150 $B/tests/cuda/gemm_test --gtest_filter='*K13*:Plan/*' > "$OUT/gemm_test.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gemm_test.log" | tr '\n' ' ')"; grep -E "^\[  FAILED" "$OUT/gemm_test.log" | head
for shape in "4096 4096 4096" "8192 8192 8192" "4096 14336 4096" "4096 6144 4096" "4096 4096 14336"; do
  set -- $shape
  for g in 8 12 16 24; do
    $B/tessel bench gemm --m $1 --n $2 --k $3 --impl k13,cublas --raster-group $g --repeat 3 --csv "$OUT/raster_${1}_${2}_${3}_g$g.csv" > /dev/null 2>&1
    python3 - "$OUT/raster_${1}_${2}_${3}_g$g.csv" $g <<'PY'
import csv,sys,statistics as st
rows=[r for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas']
print(rows[0]['m'],rows[0]['n'],rows[0]['k'],'G',sys.argv[2],'ratio %.3f'%st.median(float(r['ratio']) for r in rows),
      'clk %.0f W %.0f'%(st.median(float(r['sm_clock_mhz']) for r in rows),st.median(float(r['power_w']) for r in rows)), rows[0]['note'])
PY
  done
  echo "elapsed $(( $(date +%s) - t0 )) s"
done
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__cycles_elapsed.avg.per_second"
for g in 8 16; do
  timeout 60 ncu --kernel-name-base mangled --launch-skip 3 --launch-count 1 -k regex:'gemm_wgmma' --metrics $M $B/tessel bench gemm --m 4096 --n 4096 --k 4096 --impl k13 --raster-group $g --iterations 6 --warmup 2 --verify none 2>&1 | grep -E "duration|dram|lts|cycles" | sed "s/^/G=$g /" | cut -c1-110
done
echo "elapsed $(( $(date +%s) - t0 )) s"
