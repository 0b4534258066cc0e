#!/usr/bin/env bash
# Session 39, probe h: rule 6's raster group alone (2 s blocks), on the
# warpgroup epilogue (new = .carry/new.txz).  Rule 6 kept G = 8 on
# interleaved runs (session 20), where ours and cuBLASLt share one clock;
# alone, G = 16's fewer DRAM bytes (148 against 187 MB at 4096^3) may buy
# clock.  k13 128 x 256 with --raster-group 8 and 16 against cuBLASLt, two
# rounds in opposite orders, two repeats each; ncu DRAM bytes at 4096^3.
source bench/lab/probe_lib.sh
gpu_line
carried new
one() {  # one ROUND G M N K ITER
  local f="$R/g${2}_r${1}_${3}x${4}x${5}.csv"
  timeout 100 /tmp/new/tessel bench gemm --m $3 --n $4 --k $5 --impl k13 --tile-n 256 --raster-group $2 --order blocks \
    --min-ms 2000 --repeat 2 --iterations $6 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "G=$2 r$1 rc=$? $(alone_line "$f")"
}
for g in 8 16; do
  timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wgmma --metrics dram__bytes_read.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg \
    /tmp/new/tessel bench gemm --m 4096 --n 4096 --k 4096 --impl k13 --tile-n 256 --raster-group $g --iterations 4 \
    --warmup 2 --verify none > "$R/ncu_g$g.txt" 2>&1
  echo "G=$g $(grep -E '^\s+(dram__bytes_read.sum|sm__cycles_elapsed.avg)' "$R/ncu_g$g.txt" | awk '{print $1"="$(NF-1)$NF}' | paste -sd' ')"
done
for shp in "4096 4096 4096 8000" "8192 8192 8192 1000" "4096 14336 4096 2500" "8192 28672 8192 400"; do
  one 1 8 $shp; one 1 16 $shp; one 2 16 $shp; one 2 8 $shp; pack
done
elapsed done
