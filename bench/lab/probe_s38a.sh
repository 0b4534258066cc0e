#!/usr/bin/env bash
# Session 38, probe a: where k15's cycles go at 4096^3 at ncu's locked clock,
# against k13 (128 x 256) and cuBLASLt's kernel; and k13 64 x 128 against
# cuBLASLt at 128 x 8192 x 8192.  cb = the clean-clone CI build of 8918bdc.
# One launch each, the sections below plus the tensor-path op counters.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
ncu --query-metrics > "$R/query_metrics.txt" 2>&1
grep -i -E "gmma|pipe_tensor|tensor_op" "$R/query_metrics.txt" | head -40
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats --print-details all"
T=$(grep -o -E "^sm__pipe_[a-z_]*(gmma|tensor)[a-z_]*" "$R/query_metrics.txt" | sort -u | sed 's/$/.avg.pct_of_peak_sustained_active/' | paste -sd, -)
M="sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,smsp__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum${T:+,$T}"
echo "metrics: $M"
run() {  # name regex args...
  local name=$1 re=$2; shift 2
  timeout 120 ncu --launch-skip 2 --launch-count 1 -k regex:"$re" $S --metrics "$M" \
    /tmp/cb/tessel bench gemm "$@" --iterations 4 --warmup 2 --verify none > "$R/ncu_$name.txt" 2>&1
  echo "$name rc=$?"; grep -E "gpu__time_duration|sm__ops_path|pipe_.*(gmma|tensor)|Duration  " "$R/ncu_$name.txt" | head -8
  elapsed "$name"; pack
}
run k15_4096 gemm_pingpong --m 4096 --n 4096 --k 4096 --impl k15
run cublas_4096 nvjet --m 4096 --n 4096 --k 4096 --impl k15
run k13_4096 gemm_wgmma --m 4096 --n 4096 --k 4096 --impl k13 --tile-n 256
run k13_128 gemm_wgmma --m 128 --n 8192 --k 8192 --impl auto
run cublas_128 nvjet --m 128 --n 8192 --k 8192 --impl auto
