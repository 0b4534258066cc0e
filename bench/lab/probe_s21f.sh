#!/usr/bin/env bash
# Session-21 device run 6: f10 (TMA loads, 128x256).  Prediction
# (docs/ladder.md): issue rate 0.79 -> 0.85-0.88, 0.95-1.00 of cuBLAS.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc -DTESSEL_BUILD_PYTHON=ON > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 240 $B/tests/cuda/gemm_test --gtest_filter='*GemmF32*' > "$R/gemm_test_f32.log" 2>&1
echo "gemm_test GemmF32 rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_test_f32.log" | tr '\n' ' ')"; grep -E "^\[  FAILED|Failure|mismatch" "$R/gemm_test_f32.log" | head
echo "elapsed $(( $(date +%s) - t0 )) s"
timeout 200 $B/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f08,f10,cublas --repeat 2 --flush read --csv "$R/fp32_f10_h100.csv" > "$R/fp32_f10.log" 2>&1
echo "bench rc=$?"; grep -iE "error|unsupported" "$R/fp32_f10.log" | head -3
python3 - "$R/fp32_f10_h100.csv" <<'PY'
import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r['impl'],r['repeat'],r['m'],r['disposition'],'ms',r['median_ms'][:7],'TF',r['tflops'][:5],'ratio',r['ratio'][:5],'clk',r['sm_clock_mhz'][:6],'W',r['power_w'][:5])
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
timeout 90 ncu --launch-skip 1 --launch-count 1 -k regex:tma_loads --metrics "$M,smsp__issue_active.avg.per_cycle_active,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum" \
    $B/tessel bench gemm --dtype fp32 --m 4096 --n 4096 --k 4096 --impl f10 --iterations 3 --warmup 1 --verify none > "$R/ncu_stall_f10.txt" 2>&1
grep -E "smsp__|l1tex" "$R/ncu_stall_f10.txt" | awk '$NF+0 >= 0.005' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | head -20
echo "elapsed $(( $(date +%s) - t0 )) s"
TESSEL_BIN=$B/tessel IMPLS=f10 timeout 200 bash bench/sanitize_fp32.sh > "$R/sanitizer_fp32_f10_h100.log" 2>&1
grep -E "^==|ERROR SUMMARY|RACECHECK SUMMARY|exit" "$R/sanitizer_fp32_f10_h100.log" | paste - - - | head -20
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
