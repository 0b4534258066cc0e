#!/usr/bin/env bash
# Session 35, probe h: where k13's fused instance spends its extra ~1.8 %
# of SM cycles with ReLU at 8192 x 28672 x 8192 (probe e: 7.406 M against
# 7.278 M at ncu's locked clock; its extra instructions issue in ~0.3 % of
# them).  ncu's stall reasons (warps stalled per issued instruction, by
# reason) for the fused kernel and the plain one, the CI build of 80d5668.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
S=smsp__average_warps_issue_stalled
M=gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_issued.sum
for r in barrier long_scoreboard short_scoreboard no_instruction wait math_pipe_throttle mio_throttle lg_throttle membar dispatch_stall sleeping branch_resolving drain imc_miss misc not_selected selected tex_throttle; do
  M=$M,${S}_${r}_per_issue_active.ratio
done
timeout 200 ncu -k regex:'wgmma_in_flight' --launch-count 2 --metrics $M \
  /tmp/cb/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue bias_relu --impl auto --order none > "$R/ncu_stalls_relu.txt" 2>&1
grep -E "^  [a-zA-Z_v].*\(|duration|cycles_active|inst_issued|stalled" "$R/ncu_stalls_relu.txt" | cut -c1-130
pack
