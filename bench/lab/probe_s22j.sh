#!/usr/bin/env bash
# Session-22 device run 11: rule 10 on the layouts and output types the suite
# does not cover (docs/heuristics.md: "per-layout timings are not yet
# measured").  k13 (128 x 256, the plan before rule 10) against k15 at 4096^3
# and 2048^3, every layout, bf16 -> bf16 and bf16 -> fp32.  Prediction: k15
# ahead of k13 by 1-7 % in each (the epilogue it hides is the same work; an
# fp32 D doubles the epilogue's bytes, so k15's lead should grow there).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for n in 4096 2048; do
  for out in bf16 fp32; do
    timeout 100 $B/tessel bench gemm --m $n --n $n --k $n --layout all --out-dtype $out --impl k13,k15,cublas --repeat 3 --csv "$R/layouts_${n}_$out.csv" > /dev/null 2>&1
    echo "$n $out rc=$?"
    python3 - "$R/layouts_${n}_$out.csv" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[(r['layout'],r['impl'])].append(r)
for lay in sorted({k[0] for k in g}):
    line='  %-8s'%lay
    for impl in ('k13','k15'):
        rt=[float(r['ratio']) for r in g[(lay,impl)] if r['ratio']]
        line+='  %s %.3f'%(impl,st.median(rt)) if rt else '  %s -'%impl
    c=g[(lay,'cublas')]
    line+='  clk %s W %s'%(c[0]['sm_clock_mhz'][:4],c[0]['power_w'][:3]) if c else ''
    print(line)
PY
  done
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
