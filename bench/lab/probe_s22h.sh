#!/usr/bin/env bash
# Session-22 device run 8: k15 with a warp-uniform warpgroup index (its
# pipeline state and wgmma descriptors were in vector registers, moved by
# R2UR per wgmma: 58 R2UR in the kernel, 18 now; the main loop is the
# uniform datapath's, as k13's).  Prediction: k15's executed instructions
# at 4096^3 fall from 36 M towards k13's 22 M; less energy per flop, so
# k15's loss on the long shapes (8192x28672x8192: 0.83) shrinks and its
# fused epilogue costs less than the +4.6 % of run 5.  Also: racecheck of
# k13 at 2048^2 x 128 with 128-wide tiles (two tiles per CTA: never
# racechecked) beside k15's, to tell a tool limit from a k15 bug.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target gemm_test tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 100 $B/tests/cuda/gemm_test --gtest_filter='*k15*:GemmPingpong.*' > "$R/gpu_tests_k15_uniform_h100.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gpu_tests_k15_uniform_h100.log" | tr '\n' ' ') $(( $(date +%s) - t0 )) s"; grep -E "^\[  FAILED" "$R/gpu_tests_k15_uniform_h100.log" | head
pack
timeout 100 ncu --launch-skip 1 --launch-count 1 -k regex:'pingpong' --metrics smsp__inst_executed.sum,gpu__time_duration.sum \
    $B/tessel bench gemm --m 4096 --n 4096 --k 4096 --impl k15 --repeat 1 --iterations 1 --warmup 1 --verify none > "$R/ncu_k15_uniform.txt" 2>&1
grep -E "^\s+(gpu__|smsp__)" "$R/ncu_k15_uniform.txt"
for args in "--impl k13 --tile-n 128" "--impl k15"; do
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 --kernel-name regex:'wgmma_in_flight|pingpong' $B/tessel bench gemm --m 2048 --n 2048 --k 128 $args --verify tier1 --warmup 1 --iterations 1 > "$R/racecheck_$(echo $args | tr -d ' -').log" 2>&1
  echo "racecheck $args rc=$? $(grep -E 'SUMMARY|Internal' "$R/racecheck_$(echo $args | tr -d ' -').log" | head -2 | tr '\n' ' ')"
done
pack
timeout 200 $B/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,k15,cublas --repeat 3 --csv "$R/suite_k15u_h100.csv" > "$R/suite_k15u_h100.log" 2>&1
echo "suite rc=$? $(( $(date +%s) - t0 )) s"
python3 - "$R/suite_k15u_h100.csv" <<'PY'
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
    v=g.get(s+('auto',),[])
    if v: line+='  [%s] clk %s W %s'%(v[0]['note'][:22], v[0]['sm_clock_mhz'][:4], v[0]['power_w'][:3])
    print(line)
PY
pack
for shape in "4096 4096 4096" "8192 28672 8192"; do
  set -- $shape
  timeout 60 $B/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl k15,cublas --repeat 3 --csv "$R/epi_k15u_$1x$2x$3.csv" > /dev/null 2>&1
  python3 - "$R/epi_k15u_$1x$2x$3.csv" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[r['impl']].append(r)
for k,v in g.items():
    ms=[float(r['median_ms']) for r in v if r['median_ms']]; rt=[float(r['ratio']) for r in v if r['ratio']]
    print(v[0]['m'],v[0]['n'],v[0]['k'],'%-12s'%k,'ms %.4f'%st.median(ms),'ratio %.3f'%st.median(rt) if rt else '', v[0]['sm_clock_mhz'][:4], v[0]['power_w'][:3])
PY
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
