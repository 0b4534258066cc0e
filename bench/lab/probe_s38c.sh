#!/usr/bin/env bash
# Session 38, probe c: where k13's (128 x 256) and k15's warps stall at
# 4096^3 (ncu source counters, one launch, per SASS instruction); and the
# shared-memory store conflicts of the epilogue.  cb = CI build of 8918bdc.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for spec in "k13 gemm_wgmma --tile-n 256" "k15 gemm_pingpong"; do
  set -- $spec; name=$1 re=$2; shift 2
  timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:"$re" --section SourceCounters --section WarpStateStats \
    --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_st.sum \
    --page source --print-source sass --csv \
    /tmp/cb/tessel bench gemm --m 4096 --n 4096 --k 4096 --impl $name "$@" --iterations 4 --warmup 2 --verify none \
    > "$R/src_$name.csv" 2>&1
  echo "$name rc=$?"; wc -c "$R/src_$name.csv"
  timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:"$re" --section WarpStateStats --print-details all \
    --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_st.sum,regex:smsp__pcsamp_warps_issue_stalled_.*\
    /tmp/cb/tessel bench gemm --m 4096 --n 4096 --k 4096 --impl $name "$@" --iterations 4 --warmup 2 --verify none \
    > "$R/stalls_$name.txt" 2>&1
  echo "$name stalls rc=$?"
  pack
done
elapsed done
