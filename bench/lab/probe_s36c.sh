#!/usr/bin/env bash
# Session 36, probe c: v36c = v36a (bias loads before the main loop) with
# the run-time fused epilogue's math done a 64-column chunk at a time, just
# ahead of each chunk's staging (TmaStoreEpilogue::apply_chunk), so that it
# overlaps the wait for the TMA store of two chunks earlier (probe b's PC
# sampling: the fused ReLU instance's later chunk barriers held ~1000 more
# samples than the plain kernel's).  (1) the epilogue suites on v36c;
# (2) ncu PC sampling of v36c's fused GELU kernel; (3) bias + GELU at
# 8192 x 28672 x 8192: base (cb), v36a, v36c alternating, three rounds;
# 4096^3 (k15): cb and v36c, two rounds.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for b in v36a v36c; do mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; done
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 300 /tmp/v36c/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi.log"; elapsed tests; pack
timeout 200 ncu -k regex:'wgmma_in_flight' --launch-count 1 --section SourceCounters --section WarpStateStats \
  -o /tmp/src_v36c /tmp/v36c/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue bias_gelu --impl auto --order none \
  > "$R/ncu_src_v36c.txt" 2>&1
echo "ncu rc=$?"
ncu -i /tmp/src_v36c.ncu-rep --page source --csv --print-source sass > /tmp/sass_v36c.csv 2> "$R/dump_v36c.err"
xz -T8 -c /tmp/sass_v36c.csv > "$R/sass_v36c_gelu.csv.xz"; elapsed ncu; pack
for round in 1 2 3; do
  for b in cb v36a v36c; do
    f="$R/epi_8192_28672_8192_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round: $(python3 bench/lab/fused_over_plain.py "$f")"
  done
  elapsed round$round; pack
done
for round in 1 2; do
  for b in cb v36c; do
    f="$R/epi_4096_4096_4096_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --m 4096 --n 4096 --k 4096 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round: $(python3 bench/lab/fused_over_plain.py "$f")"
  done
done
elapsed end; pack
