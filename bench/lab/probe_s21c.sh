#!/usr/bin/env bash
# Session-21 device run 3: why f08 issues on 79 % of the cycles (cuBLAS's
# fp32 kernel 88 %) with 2 % fewer instructions: the stall reasons of f07,
# f08 and cuBLAS at 4096^3, and f08's stall samples per SASS instruction;
# compute-sanitizer on f08 (run 2's filter was ill-formed).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
if [ ! -x $B/tessel ]; then
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
  cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
fi
cmake --build $B -j16 --target tessel_cli > "$R/build2.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build2.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
for impl in f07 f08 cublas; do
  case $impl in f07) k=two_ctas;; f08) k=thread_tile;; cublas) k=xmma;; esac
  timeout 90 ncu --launch-skip 1 --launch-count 1 -k regex:$k --metrics "$M,smsp__issue_active.avg.per_cycle_active,smsp__inst_executed.sum" \
    $B/tessel bench gemm --dtype fp32 --m 4096 --n 4096 --k 4096 --impl $impl --iterations 3 --warmup 1 --verify none > "$R/ncu_stall_$impl.txt" 2>&1
done
python3 - "$R" <<'PY'
import re,sys,os
R=sys.argv[1]; tab={}
for impl in ['f07','f08','cublas']:
    for line in open(os.path.join(R,f'ncu_stall_{impl}.txt')):
        m=re.match(r'\s+(smsp__\S+)\s+\S*\s+([\d.,]+)\s*$',line)
        if m: tab.setdefault(m.group(1),{})[impl]=float(m.group(2).replace(',',''))
for k,v in sorted(tab.items(), key=lambda kv:-max(kv[1].values())):
    if max(v.values())<0.005: continue
    n=k.replace('smsp__average_warps_issue_stalled_','').replace('_per_issue_active.ratio','')
    print('%-45s'%n[:45], '  '.join('%s %.3f'%(i,v.get(i,float('nan'))) for i in ['f07','f08','cublas']))
PY
timeout 150 ncu --launch-skip 1 --launch-count 1 -k regex:thread_tile --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
  $B/tessel bench gemm --dtype fp32 --m 4096 --n 4096 --k 4096 --impl f08 --iterations 3 --warmup 1 --verify none > "$R/ncu_source_f08.csv" 2>"$R/ncu_source_f08.err"
echo "source page rc=$? $(wc -c < "$R/ncu_source_f08.csv") bytes"
echo "elapsed $(( $(date +%s) - t0 )) s"
for shape in "256 128 16" "515 260 77" "1024 1024 1024"; do
  set -- $shape
  for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool $tool --kernel-name kns=thread_tile $B/tessel bench gemm --dtype fp32 --impl f08 --m $1 --n $2 --k $3 --iterations 1 --warmup 0 --repeat 1 --verify tier1 > "$R/san_$tool.$1x$2x$3.log" 2>&1
    echo "$tool $shape rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/san_$tool.$1x$2x$3.log" | head -1)"
  done
done
cat "$R"/san_*.log > "$R/sanitizer_f08.log"; rm -f "$R"/san_*.log
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
