#!/usr/bin/env bash
# Session 39, probe k: issue 12's rows (as probe s38l) with auto each alone
# against cuBLASLt with ~2 s blocks, four repeats (cuBLASLt first in odd
# repeats, last in even ones), on the final build (new = .carry/new.txz,
# probe j's).
source bench/lab/probe_lib.sh
gpu_line
carried new
for spec in "4096 4096 4096 8000" "4096 4096 14336 2500" "4096 6144 4096 5000" "4096 14336 4096 2500" \
            "8192 8192 28672 400" "8192 28672 8192 400" "128 8192 8192 20000"; do
  set -- $spec
  f="$R/alone_${1}x${2}x${3}.csv"
  timeout 60 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 --impl auto --order blocks --min-ms 2000 --repeat 4 \
    --iterations $4 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "rc=$? $(alone_line "$f")"
  pack
done
elapsed done
