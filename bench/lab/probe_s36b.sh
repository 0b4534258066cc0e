#!/usr/bin/env bash
# Session 36, probe b: k13's fused instance with its bias loads issued before
# the unit's main loop and converted and stored after it (BiasShare; lab
# build v36a = the CI build of 04dadaf with the four fused objects
# recompiled).  Probe a's PC sampling had the consumers' wait for those
# loads (at the conversion, before the first wgmma) as 27 % of the fused
# ReLU instance's extra warp samples.  (1) the epilogue suites on v36a;
# (2) ncu PC sampling of v36a's fused ReLU kernel (compare probe a);
# (3) bias + GELU at 8192 x 28672 x 8192, the base build (bins) and v36a
# alternating, three rounds.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
mkdir -p /tmp/v36a && tar xJf .carry/v36a.txz -C /tmp/v36a
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 300 /tmp/v36a/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi.log"; elapsed tests; pack
timeout 200 ncu -k regex:'wgmma_in_flight' --launch-count 1 --section SourceCounters --section WarpStateStats \
  -o /tmp/src_v36a /tmp/v36a/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue bias_relu --impl auto --order none \
  > "$R/ncu_src_v36a.txt" 2>&1
echo "ncu rc=$?"
ncu -i /tmp/src_v36a.ncu-rep --page source --csv --print-source sass > /tmp/sass_v36a.csv 2> "$R/dump_v36a.err"
xz -T8 -c /tmp/sass_v36a.csv > "$R/sass_v36a_relu.csv.xz"; elapsed ncu; pack
for round in 1 2 3; do
  for b in cb v36a; do
    f="$R/epi_8192_28672_8192_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round: $(python3 bench/lab/fused_over_plain.py "$f")"
  done
  elapsed round$round; pack
done
