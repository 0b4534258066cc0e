#!/usr/bin/env bash
# Session 39, probe d: is k13's non-tensor time per tile or per CTA?  ncu
# (one launch, locked clock) at K = 4096 with 1, 1.94, 3.88, 7.76 and 15.5
# tiles of 128 x 256 per CTA (M x N = 1024 x 4096 ... 8192 x 8192), new k13
# (probe c's warpgroup epilogue), old k13 and cuBLASLt.  Per SM: active minus
# tensor-pipe cycles = a + b x (tiles per CTA).
source bench/lab/probe_lib.sh
gpu_line
carried old new
M="sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__pipe_tensor_cycles_active.avg,gpu__time_duration.sum"
for mn in "1024 4096" "2048 4096" "4096 4096" "8192 4096" "8192 8192"; do
  set -- $mn
  for spec in "new gemm_wgmma --impl k13 --tile-n 256" "old gemm_wgmma --impl k13 --tile-n 256" "new nvjet --impl cublas"; do
    set -- $mn $spec; m=$1 n=$2 b=$3 re=$4; shift 4
    f="$R/ncu_${b}_${re}_${m}x${n}.txt"
    timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:$re --metrics "$M" /tmp/$b/tessel bench gemm --m $m --n $n \
      --k 4096 "$@" --iterations 4 --warmup 2 --verify none > "$f" 2>&1
    echo "$b $re ${m}x${n} $(grep -E '^\s+(sm__cycles_elapsed.avg|sm__cycles_active.avg|sm__pipe_tensor)' "$f" | awk '{print $1"="$NF}' | paste -sd' ')"
  done
  pack
done
elapsed done
