#!/usr/bin/env bash
# Session 41, probe e: where does rule 3's split of k13's 64 x 128 tile
# (rule 1b) stop paying?  Probe d: at M = 96 and 128 with N = 4096 (64
# tiles, half the SMs) the unsplit grid beat rule 3's two splits by 3-12 %;
# at 128 x 2048 x 8192 (32 tiles) four splits beat one.  Here the plan
# (auto) against the same tile forced unsplit, interleaved with cuBLASLt,
# three repeats, two rounds: 40, 48 and 64 tiles at M = 128; 64-66 tiles at
# M = 192, 256, 512 and 1024 (where the tile is less bound by B's stream).
source bench/lab/probe_lib.sh
gpu_line
carried new
cfg() {  # cfg NAME ROUND M N K ARGS...
  local name=$1 round=$2 m=$3 n=$4 k=$5; shift 5
  local f="$R/${name}_r${round}_${m}x${n}x${k}.csv"
  timeout 60 /tmp/new/tessel bench gemm --m $m --n $n --k $k "$@" --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "$name r$round rc=$? $(ratio_line "$f") $(python3 -c "import csv,sys;print(sorted(set(r['note'] for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas')))" "$f")"
}
for shp in "128 2560 8192" "128 3072 8192" "128 4096 8192" "192 2816 8192" "256 2048 8192" "256 2048 4096" \
           "512 1024 8192" "1024 512 8192"; do
  for round in 1 2; do
    cfg auto $round $shp --impl auto,cublas
    cfg n128s1 $round $shp --impl k13,cublas --tile-m 64 --tile-n 128 --splits 1 --swap-ab off
  done
  pack
done
elapsed done; pack
