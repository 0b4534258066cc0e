#!/usr/bin/env bash
# Session-22 device run 7: k15's turn on mbarriers (racecheck failed with an
# internal error on the named-barrier form at 2048^2 x 128): GPU tests, the
# sanitizer script (plain and bias+ReLU), and ncu of k15 plain vs fused
# (bias + tanh GELU) at 4096^3 at locked clocks.  Prediction: at the locked
# clock the fused kernel costs <= 1 % over the plain one (its epilogue hides
# behind the other warpgroup's wgmmas); the +4.6 % of run 5 is then the
# power cap (more instructions per tile at the same 700 W).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target gemm_test tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 100 $B/tests/cuda/gemm_test --gtest_filter='*k15*:GemmPingpong.*' > "$R/gpu_tests_k15_turn_h100.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gpu_tests_k15_turn_h100.log" | tr '\n' ' ') $(( $(date +%s) - t0 )) s"; grep -E "^\[  FAILED" "$R/gpu_tests_k15_turn_h100.log" | head
pack
TESSEL_BIN=$B/tessel timeout 330 bash bench/sanitize_k15.sh > "$R/sanitizer_k15_h100.log" 2>&1
echo "sanitizer rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^== |^exit|SUMMARY" "$R/sanitizer_k15_h100.log" | paste - - - | head -20
pack
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
timeout 100 ncu --launch-skip 1 --launch-count 3 -k regex:'pingpong' --metrics "$M,smsp__inst_executed.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second" \
    $B/tessel bench gemm --m 4096 --n 4096 --k 4096 --epilogue bias_gelu --impl k15 --repeat 1 --iterations 1 --warmup 1 --verify none > "$R/ncu_k15_epi.txt" 2>&1
echo "ncu rc=$?"
python3 - "$R"/ncu_k15_epi.txt <<'PY'
import sys,re
for f in sys.argv[1:]:
    for line in open(f):
        if re.match(r'^  \S.*\(\d+, \d+, \d+\)x', line): print(' kernel', 'ConfigILb1' in line or 'Config<1>' in line or 'Config<true>' in line, line.strip()[-70:])
        m=re.match(r'^\s+(\S+)\s+(\S+)\s+([\d.,]+)$', line)
        if m:
            k,u,v=m.groups(); v=float(v.replace(',',''))
            if 'stalled' in k and v < 0.1: continue
            print('   %-60s %s'%(k.replace('smsp__average_warps_issue_stalled_','st_').replace('_per_issue_active.ratio',''),v))
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
