#!/usr/bin/env bash
# Session 36, probe e: the clean-clone CI build of ed3492a (binaries carried,
# bench/lab/pack_bins.sh): (1) the whole gemm_test and gemm_api_test;
# (2) issue 13's fused rows, three runs of three repeats against cuBLASLt's
# GELU_BIAS; (3) compute-sanitizer on k13's fused instance, whose bias
# slice is now written after the unit's main loop: memcheck, synccheck and
# racecheck at shapes with one unit a CTA and with several (racecheck:
# the slice's writes against the previous unit's reads).
source bench/lab/probe_lib.sh
gpu_line
carried_bins
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 420 /tmp/cb/tests/cuda/gemm_test > "$R/gemm_test.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$R/gemm_test.log"
timeout 100 /tmp/cb/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_api_test.log"; elapsed tests; pack
for run in 1 2 3; do
  for shp in "4096 4096 4096" "8192 28672 8192"; do
    set -- $shp
    f="$R/epi_${1}_${2}_${3}_run$run.csv"
    timeout 200 /tmp/cb/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    python3 bench/lab/fused_over_plain.py "$f"
  done
  pack
done
elapsed epi
for tool in memcheck synccheck racecheck; do
  for shp in "257 300 192" "1000 1000 65" "2048 4096 64"; do
    set -- $shp
    echo "== k13 fused $tool $shp" >> "$R/sanitizer_k13_fused.log"
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=wgmma_in_flight /tmp/cb/tessel bench gemm \
      --m $1 --n $2 --k $3 --impl k13 --epilogue bias_relu --verify tier1 --order none >> "$R/sanitizer_k13_fused.log" 2>&1
    echo "k13 fused $tool $shp exit $?"
  done
  pack
done
grep -E "verify k13|ERROR SUMMARY|RACECHECK SUMMARY" "$R/sanitizer_k13_fused.log" | sort | uniq -c
elapsed sanitizer; pack
