#!/usr/bin/env bash
# Session-27 device run (b): (1) rule 12 without its alignment clause?  k15
# against the plan's k13 128 x 128 on one-wave grids of 128 x 128 tiles whose
# A rows are whole lines (bench/lab/one_wave_s27_suite.csv), two layouts, two
# repeats.  Predicted from s27a's two shapes: k15 +2..4 % on every row.
# (2) ncu at 1024^3 and 1000^3: k13 and k14 at 128 x 64 (k14 now shares A),
# k15, and cuBLASLt's kernel: duration, L2 and DRAM bytes, stall reasons, to
# see what the cluster's coupling costs (k14 -7 % against k13 at 1024^3 in s27a).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
S=bench/lab/one_wave_s27_suite.csv
for rep in 1 2; do
  timeout 150 /tmp/bn/tessel bench gemm --suite $S --impl auto,k15,cublas --layout "A:k,B:n;A:m,B:k" --repeat 1 \
    --csv "$R/wave_$rep.csv" > "$R/wave_$rep.txt" 2>&1
  elapsed "rep $rep"; pack
done
cat "$R/wave_1.csv" > "$R/wave.csv"; tail -n +2 "$R/wave_2.csv" >> "$R/wave.csv"; medians "$R/wave.csv"
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,lts__t_requests.sum,sm__inst_executed.sum,launch__grid_size,launch__cluster_dim_x,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_sleeping_per_warp_active.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
for s in 1024 1000; do
  for spec in "k13 --tile-n 64" "k14 --tile-n 64" "k15" "cublas"; do
    echo "== $s^3 $spec"
    timeout 60 ncu --kernel-name-base mangled --launch-skip 4 --launch-count 1 -k regex:'gemm_kernels|nvjet' --metrics $M \
      /tmp/bn/tessel bench gemm --m $s --n $s --k $s --impl $spec --iterations 12 --warmup 3 --verify none 2>&1 \
      | grep -E "^  [_n]|duration|dram|lts|inst|grid|cluster|stalled|hmma" | cut -c1-120
  done
done > "$R/ncu_small.txt" 2>&1
cat "$R/ncu_small.txt"
elapsed "done"
pack
