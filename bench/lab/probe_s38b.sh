#!/usr/bin/env bash
# Session 38, probe b: per-tile overhead of k13 (128 x 256), k15 and
# cuBLASLt against K at M = N = 4096 (ncu, one launch each, locked clock):
# SM active cycles minus tensor-pipe cycles, split into a part per tile and
# a part per k-tile by fitting over K.  cb = the clean-clone CI build of 8918bdc.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
M="sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_cycles_active.avg,gpu__time_duration.sum,smsp__inst_executed.sum"
for k in 1024 2048 4096 8192; do
  for spec in "k13 gemm_wgmma --tile-n 256" "k15 gemm_pingpong" "cublas nvjet"; do
    set -- $spec; name=$1 re=$2; shift 2
    impl=$name; [ $impl = cublas ] && impl=k15
    timeout 90 ncu --launch-skip 2 --launch-count 1 -k regex:"$re" --metrics "$M" \
      /tmp/cb/tessel bench gemm --m 4096 --n 4096 --k $k --impl $impl "$@" --iterations 4 --warmup 2 --verify none \
      > "$R/ncu_${name}_k$k.txt" 2>&1
    echo "$name K=$k rc=$? $(grep -E '^\s+(sm__cycles_elapsed.avg|sm__cycles_active.avg|sm__pipe_tensor_cycles_active.avg |gpu__time)' "$R/ncu_${name}_k$k.txt" | awk '{print $1"="$NF}' | paste -sd' ')"
  done
  pack
done
elapsed done
