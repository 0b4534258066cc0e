#!/usr/bin/env bash
# Session-22 device run 4: k15 (pingpong) on the whole suite beside auto
# (k13/k14) and cuBLASLt, and ncu at fixed clocks of k13 vs k15 at
# 8192x28672x8192 (k15 0.81 of cuBLAS there in run 3, 0.99..1.02 elsewhere)
# and 4096^3.  Question: is k15's loss at 8192x28672x8192 the power cap
# (then under ncu's locked clock k15 should not be slower) or memory (DRAM
# bytes: each CTA's second warpgroup runs half a tile behind the first, so
# the rows of A of one wave are read at two k offsets, about +20 % DRAM
# bytes by the model in docs/ladder.md, k15)?
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 240 $B/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,k15,cublas --repeat 3 --csv "$R/suite_k15_h100.csv" > "$R/suite_k15_h100.log" 2>&1
echo "suite rc=$? $(( $(date +%s) - t0 )) s"
python3 - "$R/suite_k15_h100.csv" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[(int(r['m']),int(r['n']),int(r['k']),r['impl'])].append(r)
shapes=sorted({k[:3] for k in g}, key=lambda s:(s[0]*s[1]*s[2]))
for s in shapes:
    line='%6d %6d %6d'%s
    for impl in ('auto','k15'):
        v=g.get(s+(impl,),[])
        rt=[float(r['ratio']) for r in v if r['ratio']]
        line+='  %s %.3f'%(impl, st.median(rt)) if rt else '  %s %s'%(impl, v[0]['disposition'] if v else '-')
    v=g.get(s+('cublas',),[])
    if v: line+='  clk %s W %s'%(v[0]['sm_clock_mhz'][:4], v[0]['power_w'][:3])
    print(line)
PY
pack
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum"
for shape in "8192 28672 8192" "4096 4096 4096"; do
  set -- $shape
  for impl in k13 k15; do
    timeout 120 ncu --launch-skip 1 --launch-count 1 -k regex:'wgmma_in_flight|pingpong' --metrics "$M" \
      $B/tessel bench gemm --m $1 --n $2 --k $3 --impl $impl --repeat 1 --iterations 1 --warmup 1 --verify none > "$R/ncu_${impl}_$1x$2.txt" 2>&1
    echo "== $impl $1x$2x$3"; grep -E "^\s+(gpu__|dram__|lts__|sm__|smsp__)" "$R/ncu_${impl}_$1x$2.txt"
  done
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
