#!/usr/bin/env bash
# Session 34, probe b: what cuBLASLt runs for the strided batch 32 x 512^2 x 128
# (the batch issue 13 still misses at 0.96-0.97) and how it differs from k15's
# batched kernel: ncu (LaunchStats: grid, cluster, registers, shared memory;
# time, DRAM bytes, L2 sectors, instructions), at 512^2 and, for comparison
# with session 23's table, 2048^2.  Then the 512^2 batch timed: auto (k15),
# k13's batched kernel, cuBLASLt, 5 repeats.  Carried binaries (62a1119's
# kernels).
source bench/lab/probe_lib.sh
gpu_line
carried_bins
B=/tmp/cb/tessel
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__block_size,sm__cycles_active.avg,sm__cycles_elapsed.max
for mn in 512 2048; do
  timeout 120 ncu -k regex:'nvjet|gemm_pingpong|gemm_grouped|sm90|cutlass' --metrics $M $B bench gemm --batch 32 --m $mn --n $mn --k 128 \
    --impl auto,k13,cublas --order none > "$R/ncu_batched_${mn}.txt" 2>&1
  grep -E "^  [a-zA-Z_v].*\(|duration|dram__bytes|lts__t|inst_exec|issue_active|grid_size|cluster_dim|registers|shared_mem|block_size|cycles" "$R/ncu_batched_${mn}.txt" | cut -c1-150
done
elapsed ncu; pack
f="$R/batched_512.csv"
timeout 120 $B bench gemm --batch 32 --m 512 --n 512 --k 128 --impl auto,k13,cublas --repeat 5 --csv "$f" > "$R/batched_512.log" 2>&1
medians "$f"
elapsed bench; pack
