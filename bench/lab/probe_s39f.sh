#!/usr/bin/env bash
# Session 39, probe f: the warpgroup epilogue with its stmatrix addresses
# made by one XOR each (new = .carry/new.txz): probe d's tile sweep for new,
# then probe a's stage 1 (ncu old/new, k13 tests, the rows alone).
source bench/lab/probe_lib.sh
carried new
M="sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__pipe_tensor_cycles_active.avg,gpu__time_duration.sum"
for mn in "1024 4096" "2048 4096" "8192 4096" "8192 8192"; do
  set -- $mn
  f="$R/ncu_new_${1}x${2}.txt"
  timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wgmma --metrics "$M" /tmp/new/tessel bench gemm --m $1 \
    --n $2 --k 4096 --impl k13 --tile-n 256 --iterations 4 --warmup 2 --verify none > "$f" 2>&1
  echo "new ${1}x${2} $(grep -E '^\s+(sm__cycles_elapsed.avg|sm__cycles_active.avg)' "$f" | awk '{print $1"="$NF}' | paste -sd' ')"
done
pack
bash bench/lab/probe_s39a.sh 1
