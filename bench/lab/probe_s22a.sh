#!/usr/bin/env bash
# Session-22 device run 1: what stop 21 left unrun, and the measurement that
# decides issue 13's next step.
#  1. GemmEpi (now with the beta = 0 AOT fused cases) and the JIT tests
#     with the fixed expectation.
#  2. compute-sanitizer racecheck of f08 at a small edge shape (515x260x77
#     timed out twice at 300 s; 300x200x40 takes the same edge paths).
#  3. The fused bias+GELU table at beta = 0, AOT instance and the run-time
#     compiled (specialized) one, 4096^3 and 8192x28672x8192.
#  4. ncu of plain / fused / specialized k13 at 4096^3: instructions and
#     stall reasons.  Prediction (docs/epilogues.md): the fused kernel's
#     extra time is instruction fetch (no_instruction stalls several times
#     the plain kernel's); the specialized one executes fewer epilogue
#     instructions and stalls less.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > "$R/gpu.txt"
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target gemm_test tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
export TESSEL_CACHE_DIR=/tmp/jitcache
timeout 200 $B/tests/cuda/gemm_test --gtest_filter='*GemmEpi*:GemmJitCache.*' > "$R/gpu_tests_epi_h100.log" 2>&1
echo "gemm_test GemmEpi rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gpu_tests_epi_h100.log" | tr '\n' ' ') $(( $(date +%s) - t0 )) s"; grep -E "^\[  FAILED" "$R/gpu_tests_epi_h100.log" | head -5
pack
summ() {
python3 - "$1" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[r['impl']].append(r)
for k,v in g.items():
    ms=[float(r['median_ms']) for r in v if r['median_ms']]
    rt=[float(r['ratio']) for r in v if r['ratio']]
    print(v[0]['m'],v[0]['n'],v[0]['k'],'%-16s'%k,v[0]['disposition'],'ms %.4f'%st.median(ms) if ms else '-', 'ratio %.3f'%st.median(rt) if rt else '-', 'clk',v[0]['sm_clock_mhz'][:6],'W',v[0]['power_w'][:5], v[0]['note'][:60])
PY
}
for jit in 0 always; do
  for shape in "4096 4096 4096" "8192 28672 8192"; do
    set -- $shape
    TESSEL_JIT=$jit timeout 100 $B/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$R/epi_b0_jit${jit}_$1x$2.csv" > /dev/null 2>&1
    echo "TESSEL_JIT=$jit"; summ "$R/epi_b0_jit${jit}_$1x$2.csv"
  done
done
pack
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
for jit in 0 always; do
  TESSEL_JIT=$jit timeout 100 ncu --launch-skip 1 --launch-count 3 -k regex:'wgmma_in_flight' --metrics "$M,smsp__issue_active.avg.per_cycle_active,smsp__inst_executed.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second" \
    $B/tessel bench gemm --m 4096 --n 4096 --k 4096 --epilogue bias_gelu --impl auto --repeat 1 --iterations 1 --warmup 1 --verify none > "$R/ncu_epi_jit$jit.txt" 2>&1
  echo "ncu jit=$jit rc=$?"
done
python3 - "$R"/ncu_epi_jit0.txt "$R"/ncu_epi_jitalways.txt <<'PY'
import sys,re
for f in sys.argv[1:]:
    print('==',f.split('/')[-1])
    name=None
    for line in open(f):
        if re.match(r'^  \S.*\(\d+, \d+, \d+\)x', line): name=line.strip()[:90]; print(' kernel', 'Config<256, true>' in line or 'true' in line, name[-60:])
        m=re.match(r'^\s+(\S+)\s+(\S+)\s+([\d.,]+)$', line)
        if m:
            k,u,v=m.groups(); v=float(v.replace(',',''))
            if 'stalled' in k and v < 0.05: continue
            print('   %-70s %s'%(k.replace('smsp__average_warps_issue_stalled_','st_').replace('_per_issue_active.ratio',''),v))
PY
pack
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 --kernel-name kns=thread_tile $B/tessel bench gemm --dtype fp32 --m 300 --n 200 --k 40 --impl f08 --verify tier1 --warmup 1 --iterations 1 > "$R/racecheck_f08_300x200x40.log" 2>&1
echo "racecheck f08 rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck_f08_300x200x40.log")"
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
