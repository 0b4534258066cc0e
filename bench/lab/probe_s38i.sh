#!/usr/bin/env bash
# Session 38, probe i: k13 (128 x 256) alone at the largest shapes, where
# it ran 80-120 MHz below cuBLASLt in probe h's blocks (8192 x 28672 x 8192
# 0.959, 8192 x 8192 x 28672 0.970): raster groups 8 (the plan's), 16 and
# 32, each alone against cuBLASLt (--order blocks, four repeats), and ncu's
# DRAM bytes per GEMM for each group.  Prediction: a group of 16 tile rows
# makes each wave's operands about 68 MB instead of 85 and reads B from DRAM
# 4 times instead of 8; if DRAM energy is a few per cent of these GEMMs', the
# clock alone rises and the ratio with it (+1..3 %).  plan = probe h's build.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/plan && tar xJf .carry/plan.txz -C /tmp/plan
B=/tmp/plan/tessel
for g in 8 16 32; do
  timeout 120 ncu --launch-skip 1 --launch-count 1 -k regex:gemm_wgmma --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    $B bench gemm --m 8192 --n 28672 --k 8192 --impl k13 --raster-group $g --iterations 2 --warmup 1 --verify none > "$R/ncu_g$g.txt" 2>&1
  echo "G=$g $(grep -E '^\s+(dram__bytes_read|dram__bytes_write|gpu__time)' "$R/ncu_g$g.txt" | awk '{print $1"="$(NF)$(NF-1)}' | paste -sd' ')"
done
pack
for g in 8 16 32; do
  f="$R/big_g$g.csv"
  timeout 150 $B bench gemm --suite bench/lab/s38_big_suite.csv --impl k13 --raster-group $g --order blocks --repeat 4 \
    --csv "$f" > "${f%.csv}.log" 2>&1
  echo "G=$g rc=$?"; medians "$f" | grep -v cublas; elapsed "g$g"; pack
done
