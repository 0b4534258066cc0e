#!/usr/bin/env bash
# Session 36, probe i: the clean-clone CI build of 4222312 (the bias loads
# before the main loop, the fused 128 x 256 consumers on the 32-bit
# scheduler): the epilogue suites and gemm_api_test, and issue 13's fused
# rows, three runs of three repeats against cuBLASLt's GELU_BIAS.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 200 /tmp/cb/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi.log"
timeout 60 /tmp/cb/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_api_test.log"; elapsed tests; pack
for run in 1 2 3; do
  for shp in "4096 4096 4096" "8192 28672 8192"; do
    set -- $shp
    f="$R/epi_${1}_${2}_${3}_run$run.csv"
    timeout 100 /tmp/cb/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    python3 bench/lab/fused_over_plain.py "$f"
  done
  pack
done
elapsed end; pack
