#!/usr/bin/env bash
# Session 35, probe c.  (1) Three CLIs alternating on issue 13's fused rows
# (bias + GELU at 4096^3 and 8192 x 28672 x 8192, bias + ReLU at the
# second): old = the CI build of b63e20f; v1 = + one FMA per value in the
# bias pass and the GELUs on x/2 (probe a); new = v1 + the bias slice loaded
# before the main loop and stored after it (BiasShare).  (2) The new
# gemm_test's epilogue suites (fused, run-time compiled, the bit-for-bit
# activation test).  (3) Issue 12's small M: k14's 64 x 128 tiles on
# clusters of two M-neighbours (B multicast; cuBLASLt's kernel at
# 128 x 8192 x 8192 is a 2-CTA cluster) against auto, over shapes with at
# most one wave of pairs and two beyond it.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for b in old v1 new; do mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; done
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 300 /tmp/new/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi.log"; elapsed tests; pack
for round in 1 2; do
  for cfg in "4096 4096 4096 bias_gelu" "8192 28672 8192 bias_gelu" "8192 28672 8192 bias_relu"; do
    set -- $cfg
    for b in old v1 new; do
      f="$R/epi_${1}_${2}_${3}_${4}_${b}_r${round}.csv"
      timeout 200 /tmp/$b/tessel bench gemm --m $1 --n $2 --k $3 --epilogue $4 --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
      echo "== $cfg $b r$round"; medians "$f" | grep -v unfused
    done
    pack
  done
  elapsed "round $round"
done
B=/tmp/new/tessel
for shp in "128 8192 8192" "128 8192 4096" "128 8192 16384" "128 4096 8192" "96 8192 8192" "80 8192 8192" \
           "128 6144 8192" "128 8192 2048" "256 4096 8192" "256 4096 4096" "192 4096 8192" "128 16384 8192"; do
  set -- $shp
  for impl in auto k14; do
    extra=(); [ $impl = k14 ] && extra=(--tile-m 64)
    f="$R/sm_${1}x${2}x${3}_${impl}.csv"
    timeout 100 $B bench gemm --m $1 --n $2 --k $3 --impl $impl,cublas "${extra[@]}" --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$shp $impl: $(medians "$f" | grep -v cublas) $(python3 -c "import csv,sys; r=[x for x in csv.DictReader(open('$f')) if x['impl']!='cublas']; print(r[0]['note'] if r else '')" 2>/dev/null)"
  done
done
elapsed small_m; pack
