#!/usr/bin/env bash
# Session-22 device run 3: k15 with the turn barrier (run 2 failed at 4096^3: stage parity aliasing, see k15_pingpong.cuh).
# Predictions (k15_pingpong.cuh): plain 4096^3 within +-3 % of k13; fused
# bias+GELU within 2 % of k15's plain GEMM.  Tier 1 on the sweep.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target gemm_test tessel_cli > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 150 $B/tests/cuda/gemm_test --gtest_filter='*k15*:GemmPingpong.*' > "$R/gpu_tests_k15_h100.log" 2>&1
echo "gemm_test k15 rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gpu_tests_k15_h100.log" | tr '\n' ' ') $(( $(date +%s) - t0 )) s"; grep -E "^\[  FAILED|cases run" "$R/gpu_tests_k15_h100.log" | head -12
pack
summ() {
python3 - "$1" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[r['impl']].append(r)
for k,v in g.items():
    ms=[float(r['median_ms']) for r in v if r['median_ms']]
    rt=[float(r['ratio']) for r in v if r['ratio']]
    print(v[0]['m'],v[0]['n'],v[0]['k'],'%-14s'%k,v[0]['disposition'],'ms %.4f'%st.median(ms) if ms else '-', 'ratio %.3f'%st.median(rt) if rt else '-', 'clk',v[0]['sm_clock_mhz'][:6],'W',v[0]['power_w'][:5], v[0]['note'][:50])
PY
}
for shape in "4096 4096 4096" "8192 8192 8192" "8192 28672 8192" "4096 14336 4096" "2048 2048 2048" "3072 3072 3072" "6144 6144 6144"; do
  set -- $shape
  timeout 60 $B/tessel bench gemm --m $1 --n $2 --k $3 --impl auto,k15,cublas --repeat 3 --csv "$R/plain_$1x$2x$3.csv" > /dev/null 2>&1; summ "$R/plain_$1x$2x$3.csv"
done
pack
for shape in "4096 4096 4096" "8192 28672 8192"; do
  set -- $shape
  timeout 100 $B/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,k15,cublas --repeat 3 --csv "$R/epi_$1x$2x$3.csv" > /dev/null 2>&1; summ "$R/epi_$1x$2x$3.csv"
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
