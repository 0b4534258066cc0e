#!/usr/bin/env bash
# Session-21 device run 2: f08 (16x8 thread tile on 256x128, one CTA per SM,
# cuBLAS's own fp32 kernel shape as ncu showed in run 1).  Prediction before
# the run: FFMA about 91-93 % of the main loop's instructions (f07 86 %),
# 2 warps per scheduler like cuBLAS; 50-55 TFLOP/s at 4096^3 and 8192^3
# (0.97-1.07 of cuBLAS), 2048^3 lower (128 tiles on 132 SMs, one wave).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc -DTESSEL_BUILD_PYTHON=ON > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
grep -A2 "gemm_thread_tile_16x8" "$R/build.log" | grep -E "registers|spill" | sort | uniq -c | head
timeout 240 $B/tests/cuda/gemm_test --gtest_filter='*GemmF32*' > "$R/gemm_test_f32.log" 2>&1
echo "gemm_test GemmF32 rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_test_f32.log" | tr '\n' ' ')"; grep -E "^\[  FAILED" "$R/gemm_test_f32.log" | head
echo "elapsed $(( $(date +%s) - t0 )) s"
timeout 200 $B/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f07,f08,cublas --repeat 2 --flush read --csv "$R/fp32_f08_h100.csv" > "$R/fp32_f08.log" 2>&1
echo "bench rc=$?"
python3 - "$R/fp32_f08_h100.csv" <<'PY'
import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r['impl'],r['repeat'],r['m'],r['disposition'],'ms',r['median_ms'][:7],'TF',r['tflops'][:5],'ratio',r['ratio'][:5],'clk',r['sm_clock_mhz'][:6],'W',r['power_w'][:5])
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
S="--section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --section InstructionStats --section SchedulerStats"
timeout 90 ncu --launch-skip 1 --launch-count 1 -k regex:'thread_tile' $S \
  $B/tessel bench gemm --dtype fp32 --m 4096 --n 4096 --k 4096 --impl f08 --iterations 3 --warmup 1 --verify none > "$R/ncu_fp32_f08.txt" 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|SM Frequency|Executed Ipc A|Issue Slots Busy|Registers Per|Achieved Occ|No Eligible|Eligible Warps|Warp Cycles Per Issued|Executed Instructions  " "$R/ncu_fp32_f08.txt" | head -20
for shape in "256 128 16" "515 260 77" "1024 1024 1024"; do
  set -- $shape
  for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool $tool --kernel-name regex:thread_tile $B/tessel bench gemm --dtype fp32 --impl f08 --m $1 --n $2 --k $3 --iterations 1 --warmup 0 --repeat 1 --verify tier1 > "$R/sanitizer_f08_${tool}_$1x$2x$3.log" 2>&1
    echo "$tool $shape rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/sanitizer_f08_${tool}_$1x$2x$3.log" | head -1)"
  done
done
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
