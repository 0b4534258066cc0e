#!/usr/bin/env bash
# Session-27 device run (k), diagnostics for the next session.
# (1) M = 64's fixed cost (6.2 us against 5.0 at M = 16, both on 64-row
# swapped tiles): the same 64-wide tile at M = 33 and 48 writes fewer D
# columns (the transposed register epilogue skips columns past M) but reads
# the same A stages.  If the fixed cost falls with M, the epilogue is it;
# if not, A's stages are the suspect.  (2) ncu of our kernels at 1000^3 and
# 1024^3 (s27b's filter caught cuBLASLt's): k13 and k14 at 128 x 64, k15.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
B=/tmp/bn/tessel
timeout 150 $B bench gemm --m 33,48,64 --n 8192 --k 4096,8192,16384,32768 --impl auto,cublas --repeat 2 \
  --csv "$R/m33_64.csv" > "$R/m33_64.txt" 2>&1
python3 bench/lab/fit_k_scaling.py "$R/m33_64.csv"; elapsed "sweep"; pack
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,lts__t_requests.sum,sm__inst_executed.sum,launch__grid_size,launch__cluster_dim_x,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct"
for s in 1024 1000; do
  for spec in "k13 --tile-n 64" "k14 --tile-n 64" "k15"; do
    echo "== $s^3 $spec"
    # shellcheck disable=SC2086
    timeout 60 ncu --kernel-name-base mangled --launch-skip 4 --launch-count 1 -k regex:'gemm_kernels' --metrics $M \
      $B bench gemm --m $s --n $s --k $s --impl $spec --iterations 12 --warmup 3 --verify none 2>&1 \
      | grep -E "^  [_n]|duration|dram|lts|inst|grid|cluster|stalled|hmma" | cut -c1-120
  done
done > "$R/ncu_small_ours.txt" 2>&1
grep -E "^==|duration|lts__t_requests|hmma" "$R/ncu_small_ours.txt"
elapsed "done"
pack
