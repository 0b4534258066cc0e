#!/usr/bin/env bash
# Session 35, probe d: why k13's fused instance costs ~2 % over the plain
# one at 8192 x 28672 x 8192 even with ReLU (a compare a value; probe c:
# ReLU +2.2-3.1 %, tanh-GELU +3.3-3.8 %).  ncu (its locked clock) of one
# verification launch each of the fused kernel and the plain one (the
# unfused row's GEMM), ReLU and GELU: if the durations match, the cost is
# energy at the power cap (the clock); if not, time exposed in the
# epilogue.  v1 = the CI build of b63e20f with probe a's fused objects.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/v1 && tar xJf .carry/v1.txz -C /tmp/v1
M=gpu__time_duration.sum,sm__inst_executed.sum,sm__cycles_active.avg,smsp__inst_executed_op_mufu.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,lts__t_sectors.sum
for e in bias_relu bias_gelu; do
  timeout 200 ncu -k regex:'wgmma_in_flight' --launch-count 2 --section WarpStateStats --metrics $M \
    /tmp/v1/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue $e --impl auto --order none > "$R/ncu_$e.txt" 2>&1
  echo "== $e"; grep -E "^  [a-zA-Z_v].*\(|duration|inst_executed|cycles_active|mufu|hmma|dram__|lts__t|Stall|stall|Warp Cycles" "$R/ncu_$e.txt" | cut -c1-150
  elapsed $e; pack
done
