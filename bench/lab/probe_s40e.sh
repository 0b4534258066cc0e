#!/usr/bin/env bash
# Session 40, probe e: rule 6's group of 16 for the 128 x 256 tile (probe d)
# in the plan.  new = .carry/new.txz: probe a's build relinked with
# gemm.cu, k13.cu, k14.cu, k15.cu and bench_gemm.cu of the change.  Issue
# 12's rows with auto alone (2 s blocks, the heat, four repeats), as
# probe a's, and the api test (the plan's path).
source bench/lab/probe_lib.sh
gpu_line
carried new
timeout 60 /tmp/new/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$R/gemm_api_test.log"
timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wgmma --metrics dram__bytes_read.sum,sm__cycles_elapsed.avg \
  /tmp/new/tessel bench gemm --m 4096 --n 4096 --k 14336 --impl auto --iterations 4 --warmup 2 --verify none \
  > "$R/ncu_auto.txt" 2>&1
echo "auto (the plan's group) $(grep -E '^\s+(dram__bytes_read|sm__cycles_elapsed)' "$R/ncu_auto.txt" | awk '{print $1"="$(NF-1)$NF}' | paste -sd' ')"
for spec in "4096 4096 14336 2500" "4096 4096 4096 8000" "8192 8192 28672 400" "4096 6144 4096 5000" \
            "4096 14336 4096 2500" "8192 28672 8192 400"; do
  set -- $spec
  f="$R/alone_${1}x${2}x${3}.csv"
  timeout 60 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 --impl auto --order blocks --min-ms 2000 --repeat 4 \
    --iterations $4 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "rc=$? $(alone_line "$f")"
  pack
done
elapsed done; pack
