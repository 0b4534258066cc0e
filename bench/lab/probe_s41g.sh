#!/usr/bin/env bash
# Session 41, probe g: rule 3b's A/B on whichever card comes (probe f ran
# on an H200, where the memory-bound side of the rule's model is ~1.4x
# faster): auto (unsplit by rule 3b) against the same tile with rule 3's
# two splits forced, interleaved with cuBLASLt, three repeats, two rounds.
source bench/lab/probe_lib.sh
gpu_line
carried new
for round in 1 2; do
  for shp in "128 4096 8192" "128 4096 4096" "128 4096 14336" "96 4096 8192" "128 3648 8192"; do
    set -- $shp
    for cfg in auto split2; do
      f="$R/${cfg}_r${round}_${1}x${2}x${3}.csv"
      if [ $cfg = auto ]; then a=(--impl auto,cublas); else a=(--impl k13,cublas --tile-m 64 --tile-n 128 --splits 2 --swap-ab off); fi
      timeout 60 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 "${a[@]}" --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
      echo "$cfg r$round rc=$? $(ratio_line "$f") $(python3 -c "import csv,sys;print(sorted(set(r['note'] for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas')))" "$f")"
    done
  done
  pack
done
elapsed done; pack
