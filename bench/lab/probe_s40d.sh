#!/usr/bin/env bash
# Session 40, probe d: rule 6's raster group again, alone, with the heat,
# at the two capped shapes still at a tie: 4096 x 4096 x 14336 (alone
# 0.994, 0.5 % below cuBLASLt's clock at equal cycles) and 4096^3.  Session
# 39 (probe h) measured G = 16 at +0.3 % at 4096^3 (148 against 187 MB from
# DRAM; cuBLASLt 151) and called it noise; the heat makes the repeats
# steadier.  k13 128 x 256 with --raster-group 8 and 16, two rounds in
# opposite orders, two repeats each; ncu DRAM bytes of G = 8, 16 and
# cuBLASLt at 4096 x 4096 x 14336.  new = .carry/new.txz (probe a's build).
source bench/lab/probe_lib.sh
gpu_line
carried new
one() {  # one ROUND G M N K ITER
  local f="$R/g${2}_r${1}_${3}x${4}x${5}.csv"
  timeout 100 /tmp/new/tessel bench gemm --m $3 --n $4 --k $5 --impl k13 --tile-n 256 --raster-group $2 --order blocks \
    --min-ms 2000 --repeat 2 --iterations $6 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "G=$2 r$1 rc=$? $(alone_line "$f")"
}
for shp in "4096 4096 14336 2500" "4096 4096 4096 8000"; do
  one 1 8 $shp; one 1 16 $shp; one 2 16 $shp; one 2 8 $shp; pack
done
elapsed alone
for g in 8 16; do
  timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wgmma --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__cycles_elapsed.avg \
    /tmp/new/tessel bench gemm --m 4096 --n 4096 --k 14336 --impl k13 --tile-n 256 --raster-group $g --iterations 4 \
    --warmup 2 --verify none > "$R/ncu_g$g.txt" 2>&1
  echo "G=$g $(grep -E '^\s+(dram__bytes|lts__t_bytes|sm__cycles_elapsed)' "$R/ncu_g$g.txt" | awk '{print $1"="$(NF-1)$NF}' | paste -sd' ')"
done
timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:nvjet --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__cycles_elapsed.avg \
  /tmp/new/tessel bench gemm --m 4096 --n 4096 --k 14336 --impl cublas --iterations 4 --warmup 2 --verify none > "$R/ncu_cublas.txt" 2>&1
echo "cublas $(grep -E '^\s+(dram__bytes|lts__t_bytes|sm__cycles_elapsed)' "$R/ncu_cublas.txt" | awk '{print $1"="$(NF-1)$NF}' | paste -sd' ') $(grep -o 'nvjet[a-zA-Z0-9_]*' "$R/ncu_cublas.txt" | head -1)"
elapsed done; pack
