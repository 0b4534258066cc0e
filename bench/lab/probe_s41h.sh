#!/usr/bin/env bash
# Session 41, probe h: probe f's build on an H100 (probes f and g ran on an
# H200): rule 3b's A/B (auto, unsplit, against two splits forced) at the
# five shapes of probe g, one round; then issue 12's two tie rows alone
# (2 s blocks, the heat, four repeats).
source bench/lab/probe_lib.sh
gpu_line
carried new
for shp in "128 4096 8192" "128 4096 4096" "128 4096 14336" "96 4096 8192" "128 3648 8192"; do
  set -- $shp
  for cfg in auto split2; do
    f="$R/${cfg}_${1}x${2}x${3}.csv"
    if [ $cfg = auto ]; then a=(--impl auto,cublas); else a=(--impl k13,cublas --tile-m 64 --tile-n 128 --splits 2 --swap-ab off); fi
    timeout 60 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 "${a[@]}" --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$cfg rc=$? $(ratio_line "$f") $(python3 -c "import csv,sys;print(sorted(set(r['note'] for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas')))" "$f")"
  done
done
pack
for shp in "128 8192 8192 20000" "4096 4096 14336 2500"; do
  set -- $shp
  f="$R/alone_${1}x${2}x${3}.csv"
  timeout 100 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 --impl auto --order blocks --min-ms 2000 --repeat 4 \
    --iterations $4 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "alone rc=$? $(alone_line "$f")"
  pack
done
elapsed done; pack
