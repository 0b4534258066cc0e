#!/usr/bin/env bash
# Session 38, probe n: rule 10b for the fused epilogue too (probe m: bias +
# GELU at 4096^3 alone, k15 fused 0.949, k13 fused 0.994).  plan2 = probe
# h's build relinked with the change (gemm.cu recompiled): gemm_api_test,
# gemm_test's plan and epilogue suites, and auto with bias + GELU at 4096^3
# alone (2 s blocks, two repeats) and interleaved (two repeats).
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/plan2 && tar xJf .carry/plan2.txz -C /tmp/plan2
B=/tmp/plan2/tessel
timeout 120 /tmp/plan2/tests/cuda/gemm_api_test > "$R/gemm_api_test_plan2.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |PingpongStays" "$R/gemm_api_test_plan2.log"
timeout 200 /tmp/plan2/tests/cuda/gemm_test --gtest_filter='Plan/*:GemmPingpong*:Paths/GemmEpi.*:GemmEpiMath.*' \
  > "$R/gemm_test_plan2.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_plan2.log"; pack
for order in "blocks --iterations 8000" "interleaved"; do
  set -- $order
  f="$R/epi_auto_$1.csv"
  timeout 200 $B bench gemm --m 4096 --n 4096 --k 4096 --impl auto --epilogue bias_gelu --order $order --repeat 2 \
    --csv "$f" > "${f%.csv}.log" 2>&1
  echo "$1 rc=$?"
  python3 - "$f" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl'] == 'cublas': continue
    print('  %-13s r%s ratio %.3f %.4f ms ours %4.0f MHz cublas %4.0f MHz %s' % (r['impl'], r['repeat'], float(r['ratio']),
          float(r['median_ms']), float(r['sm_clock_mhz']), float(r['cublas_sm_clock_mhz']), r['note'][:60]))
PY
  pack
done
elapsed done
