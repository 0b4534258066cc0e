#!/usr/bin/env bash
# Session 35, probe i: for the next session, k14's 64 x 128 pairs (B
# multicast, the same tiles and clusters as cuBLASLt's kernel) against k13's
# 64 x 128 tiles and cuBLASLt under ncu at 128 x 8192 x 8192 and
# 80 x 8192 x 8192 (probe c: k14 behind at 128, ahead at 80 in the bench):
# time, DRAM bytes, L2 sectors, SM cycles active.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors.sum,sm__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__cluster_dim_x
for m in 128 80; do
  timeout 120 ncu -k regex:'nvjet|wgmma_in_flight|multicast' --metrics $M /tmp/cb/tessel bench gemm --m $m --n 8192 --k 8192 \
    --impl k13,k14,cublas --tile-m 64 --order none > "$R/ncu_m${m}.txt" 2>&1
  echo "== M=$m"; grep -E "^  [a-zA-Z_v].*\(|duration|dram__|lts__t|cycles_active|grid_size|cluster_dim" "$R/ncu_m${m}.txt" | cut -c1-110
done
pack
