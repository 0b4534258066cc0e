#!/usr/bin/env bash
# Session-20 device run 2: warp-uniform wgmma descriptors in k13/k14 (the
# descriptors made from lane 0's thread index, and desc_add without the
# wrap masks): k13's main loop at 128 x 256 drops from 84 to 66
# instructions per k-tile and warp, the vector ones from ~45 to ~12.
# Prediction: the same cycles where the tensor cores are the limit; under the
# power cap fewer issued instructions may give +0.5..1.5 % (k13 issues 26.3 M
# instructions at 4096^3 against cuBLASLt's 16.9 M).  Baseline: probe_s20a's
# G = 8 rows (4096^3 0.989, 8192^3 1.014, 4096x14336x4096 0.978,
# 4096x6144x4096 0.986, 4096x4096x14336 0.996 of cuBLASLt).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test wgmma_atom_test tiled_mma_test > "$OUT/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for t in wgmma_atom_test tiled_mma_test; do timeout 60 $B/tests/cuda/$t > "$OUT/$t.log" 2>&1; echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/$t.log" | tr '\n' ' ')"; done
timeout 200 $B/tests/cuda/gemm_test --gtest_filter='*K13*:*K14*:Plan/*:*Wgmma*:*k12*:*k13*:*k14*' > "$OUT/gemm_test.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gemm_test.log" | tr '\n' ' ')"; grep -E "^\[  FAILED" "$OUT/gemm_test.log" | head
for shape in "4096 4096 4096" "8192 8192 8192" "4096 14336 4096" "4096 6144 4096" "4096 4096 14336" "8192 28672 8192" "1024 1024 1024" "8192 8192 256"; do
  set -- $shape
  $B/tessel bench gemm --m $1 --n $2 --k $3 --impl auto,cublas --repeat 3 --csv "$OUT/desc_${1}_${2}_${3}.csv" > /dev/null 2>&1
  python3 - "$OUT/desc_${1}_${2}_${3}.csv" <<'PY'
import csv,sys,statistics as st
rows=[r for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas']
print(rows[0]['m'],rows[0]['n'],rows[0]['k'],'ratio %.3f'%st.median(float(r['ratio']) for r in rows),'TFLOP/s %.0f'%st.median(float(r['tflops']) for r in rows),
      'clk %.0f W %.0f'%(st.median(float(r['sm_clock_mhz']) for r in rows),st.median(float(r['power_w']) for r in rows)), rows[0]['note'])
PY
done
echo "elapsed $(( $(date +%s) - t0 )) s"
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__inst_executed_op_uniform.sum"
timeout 60 ncu --kernel-name-base mangled --launch-skip 3 --launch-count 1 -k regex:'gemm_wgmma' --metrics $M $B/tessel bench gemm --m 4096 --n 4096 --k 4096 --impl k13 --iterations 6 --warmup 2 --verify none 2>&1 | grep -E "duration|inst" | cut -c1-110
echo "elapsed $(( $(date +%s) - t0 )) s"
