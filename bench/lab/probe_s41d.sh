#!/usr/bin/env bash
# Session 41, probe d: M = 128 with N = 4096, where rule 3 splits k13's
# 64 x 128 grid in two (128 x 4096 x 8192: 0.90-0.94 in probes a and c,
# 0.910 in session 35), against the tilings that give 128 units unsplit:
# the swapped 64 x 64 tile on one warpgroup (swap forced; M = 128 is two
# 64-wide columns), and k14's 64 x 128 pairs; and the 64 x 128 tile
# unsplit (64 CTAs).  Interleaved with cuBLASLt (memory-bound: 1980 MHz),
# three repeats, one invocation per configuration, two rounds.
source bench/lab/probe_lib.sh
gpu_line
carried new
cfg() {  # cfg NAME ROUND M N K ARGS...
  local name=$1 round=$2 m=$3 n=$4 k=$5; shift 5
  local f="$R/${name}_r${round}_${m}x${n}x${k}.csv"
  timeout 60 /tmp/new/tessel bench gemm --m $m --n $n --k $k "$@" --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "$name r$round rc=$? $(ratio_line "$f") $(python3 -c "import csv,sys;print(sorted(set(r['note'] for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas')))" "$f")"
}
for shp in "128 4096 8192" "128 4096 4096" "128 4096 14336" "96 4096 8192" "128 2048 8192" "128 4096 2048"; do
  for round in 1 2; do
    cfg auto $round $shp --impl auto,cublas
    cfg swap64 $round $shp --impl k13,cublas --swap-ab on --tile-n 64 --tile-m 64 --splits 1
    cfg k14 $round $shp --impl k14,cublas --tile-m 64
    cfg n128s1 $round $shp --impl k13,cublas --tile-m 64 --tile-n 128 --splits 1 --swap-ab off
  done
  pack
done
elapsed done; pack
