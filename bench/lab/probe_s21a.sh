#!/usr/bin/env bash
# Session-21 device run 1: the tests written after the last device run
# (GemmEpi after k13_fuses, batched/grouped, tessel.gemm_batched/_grouped
# through pytest), then ncu of f07 against cuBLASLt's fp32 GEMM at 4096^3
# (issue 15: what holds f07 at 0.88) and of k13 against cuBLASLt on the
# batched K = 128 shape (issue 13: 0.60 at 32 x 2048^2 x 128).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc -DTESSEL_BUILD_PYTHON=ON > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test gemm_api_test _tessel > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 200 $B/tests/cuda/gemm_test --gtest_filter='*GemmEpi*:*atch*:*roup*' > "$R/gemm_test_epi_batched.log" 2>&1
echo "gemm_test epi/batched/grouped rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_test_epi_batched.log" | tr '\n' ' ')"; grep -E "^\[  FAILED" "$R/gemm_test_epi_batched.log" | head
timeout 60 $B/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1
echo "gemm_api_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_api_test.log" | tr '\n' ' ')"
mkdir -p /tmp/pkg/tessel && cp python/tessel/*.py /tmp/pkg/tessel/ && cp $B/python/_tessel*.so /tmp/pkg/tessel/
PYTHONPATH=/tmp/pkg timeout 200 python3 -m pytest -q -p no:cacheprovider python/tests/test_gemm.py > "$R/pytest_gemm.log" 2>&1
echo "pytest test_gemm rc=$? $(tail -1 "$R/pytest_gemm.log")"; grep -E "^FAILED|^E  " "$R/pytest_gemm.log" | head -12
echo "elapsed $(( $(date +%s) - t0 )) s"
S="--section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy --section InstructionStats --section SchedulerStats"
for impl in f07 cublas; do
  timeout 90 ncu --launch-skip 2 --launch-count 1 -k regex:'two_ctas|gemm|nvjet|sgemm|xmma' $S \
    $B/tessel bench gemm --dtype fp32 --m 4096 --n 4096 --k 4096 --impl $impl --iterations 4 --warmup 2 --verify none > "$R/ncu_fp32_$impl.txt" 2>&1
  echo "== $impl"; grep -E "^  [a-zA-Z_].*\(|Duration|SM Frequency|Executed Ipc A|Issue Slots Busy|Registers Per|Block Size|Grid Size|Achieved Occ|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|One or More|Executed Instructions  " "$R/ncu_fp32_$impl.txt" | head -30
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size
for impl in k13 cublas; do
  timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:'gemm|nvjet|xmma' --metrics $M \
    $B/tessel bench gemm --batch 32 --m 2048 --n 2048 --k 128 --impl $impl --tile-n 128 --iterations 4 --warmup 2 --verify none 2>&1 | grep -E "^  [a-zA-Z_].*\(|duration|dram|throughput|grid|block" | cut -c1-120 | sed "s/^/$impl /"
done
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
