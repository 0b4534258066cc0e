#!/usr/bin/env bash
# Session-23 device run 4: ncu (free clock) of the two weak rows against
# cuBLASLt's kernels: 16 x 8192 x 8192 (k13 swapped 128x16, 2 splits) and
# 1000^3 (k13 128x128, k15): duration, DRAM bytes and throughput, L2
# sectors and requests, L2 hit rate, the grid cuBLASLt chose.  What limits
# DRAM efficiency at small M (2.55 TB/s against cuBLASLt's 2.8), and what
# costs 1000^3 its 2 us over cuBLASLt.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; pack; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,lts__t_requests.sum,lts__t_sector_hit_rate.pct,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
run() { # name, bench args
  local name=$1; shift
  timeout 120 ncu --clock-control none --kernel-name regex:"gemm_|nvjet|sm90_xmma|cutlass" --metrics $M \
    $B/tessel bench gemm "$@" --order none > "$R/ncu_$name.txt" 2>&1
  echo "== $name rc=$?"
  grep -E "^  [a-z_]|^  void|^  nvjet|^  sm90|gpu__time|dram__|lts__|inst_exec|issue_active|cycles_elapsed|warps_active|l1tex" "$R/ncu_$name.txt" | grep -v "pad_copy\|flush" | sed 's/  */ /g' | cut -c1-140
}
run m16 --m 16 --n 8192 --k 8192 --impl auto,cublas
run m16_bk --m 16 --n 8192 --k 8192 --layout A:k,B:k --impl auto,cublas
run sq1000 --m 1000 --n 1000 --k 1000 --impl auto,k15,cublas
run sq1024 --m 1024 --n 1024 --k 1024 --impl auto,cublas
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
