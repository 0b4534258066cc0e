#!/usr/bin/env bash
# Session 37, probe c: v37 = the CI build of aa1ad3b with k13's ten
# translation units recompiled so that the producer's first warp initializes
# the barriers and issues the first kStages k-tiles' loads before the CTA's
# barrier (blocks::KTileCursor), instead of after it, setmaxnreg and the
# scheduler's first unit (~1500 SM cycles after entry in session 31's
# timeline).  (1) gemm_test on v37 (all but the fp32 ladder; the JIT suites
# compile the tree's headers, so they run the new kernel too) and
# gemm_api_test; (2) `auto` on k13's shapes, cb and v37 alternating, three
# rounds of three repeats.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
mkdir -p /tmp/v37 && tar xJf .carry/v37.txz -C /tmp/v37
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
for round in 1 2 3; do
  for b in cb v37; do
    f="$R/fixed_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --suite bench/lab/s37_fixed_cost_suite.csv --impl auto,cublas --repeat 3 \
      --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round rc=$? $(ratio_line "$f")"
  done
  elapsed round$round; pack
done
timeout 330 /tmp/v37/tests/cuda/gemm_test --gtest_filter='-Fp32Steps/*' > "$R/gemm_test_v37.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$R/gemm_test_v37.log"
timeout 100 /tmp/v37/tests/cuda/gemm_api_test > "$R/gemm_api_test_v37.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_api_test_v37.log"; elapsed tests; pack
