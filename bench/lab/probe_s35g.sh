#!/usr/bin/env bash
# Session 35, probe g: the clean-clone CI build of 80d5668 (binaries carried,
# bench/lab/pack_bins.sh): (1) the epilogue suites of gemm_test (the fused
# instances are the only kernels whose code changed: the plain kernels'
# SASS is identical) and gemm_api_test; (2) issue 13's fused rows, three
# runs of three repeats against cuBLASLt's GELU_BIAS; (3) compute-sanitizer
# on k15 (bench/sanitize_k15.sh: plain and fused bias + ReLU at three
# shapes, memcheck, racecheck, synccheck) and on k13's fused instance
# (memcheck and synccheck, two shapes).
source bench/lab/probe_lib.sh
gpu_line
carried_bins
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 300 /tmp/cb/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi.log"
timeout 100 /tmp/cb/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_api_test.log"; elapsed tests; pack
for run in 1 2 3; do
  for shp in "4096 4096 4096" "8192 28672 8192"; do
    set -- $shp
    f="$R/epi_${1}_${2}_${3}_run$run.csv"
    timeout 200 /tmp/cb/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "== $shp run $run"; medians "$f" | grep -v unfused
  done
  pack
done
elapsed epi
TESSEL_BIN=/tmp/cb/tessel timeout 400 bash bench/sanitize_k15.sh > "$R/sanitizer_k15.log" 2>&1
echo "sanitize_k15 rc=$?: $(grep -c '^exit 0' "$R/sanitizer_k15.log") of $(grep -c '^exit' "$R/sanitizer_k15.log") exit 0"
grep -E "^==|^exit|ERROR SUMMARY" "$R/sanitizer_k15.log" | paste - - - | grep -v "exit 0" | head
pack
for tool in memcheck synccheck; do
  for shp in "257 300 192" "1000 1000 65"; do
    set -- $shp
    echo "== k13 fused $tool $shp" >> "$R/sanitizer_k13_fused.log"
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=wgmma_in_flight /tmp/cb/tessel bench gemm \
      --m $1 --n $2 --k $3 --impl k13 --epilogue bias_relu --verify tier1 --order none >> "$R/sanitizer_k13_fused.log" 2>&1
    echo "k13 fused $tool $shp exit $?"
  done
done
elapsed sanitizer; pack
