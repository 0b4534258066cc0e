#!/usr/bin/env bash
# Session-23 device run 2: compute-sanitizer on k15's batched kernel
# (bench/sanitize_k15_batched.sh), then ncu at batch 32 x 2048^2 x 128 of
# k15 batched against cuBLASLt's kernel at the free clock: duration, DRAM
# bytes and throughput, issue activity (where the last 4.5 % goes).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; pack; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
TESSEL_BIN=$B/tessel timeout 330 bash bench/sanitize_k15_batched.sh > "$R/sanitizer_k15_batched.log" 2>&1
echo "sanitizer rc=$?; $(grep -c '^exit 0' "$R/sanitizer_k15_batched.log") of 9 exit 0"
grep "^==\|^exit\|ERROR SUMMARY\|RACECHECK SUMMARY\|Internal" "$R/sanitizer_k15_batched.log" | head -40
echo "elapsed $(( $(date +%s) - t0 )) s"
timeout 150 ncu --clock-control none --kernel-name regex:"pingpong_grouped|nvjet|gemm_grouped" \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second \
  $B/tessel bench gemm --batch 32 --m 2048 --n 2048 --k 128 --impl k15,k13,cublas --order none > "$R/ncu_batched_2048.txt" 2>&1
echo "ncu rc=$?"
grep -E "pingpong_grouped|nvjet|gemm_grouped|gpu__time|dram__|lts__t|inst_exec|issue_active|cycles_elapsed" "$R/ncu_batched_2048.txt" | cut -c1-150 | head -40
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
