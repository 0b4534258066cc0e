#!/usr/bin/env bash
# Session 36, probe d: probe c again with v36d, where the chunk index of the
# fused epilogue is a compile-time constant (a fold over the chunks): in
# v36c nvcc left the chunk loop rolled in k13, each value's chunk test a
# predicate, and the fused GEMM ran +10 % over the plain one.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for b in v36a v36d; do mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; done
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 300 /tmp/v36d/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi.log"; elapsed tests; pack
timeout 200 ncu -k regex:'wgmma_in_flight' --launch-count 1 --section SourceCounters --section WarpStateStats \
  -o /tmp/src_v36d /tmp/v36d/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue bias_gelu --impl auto --order none \
  > "$R/ncu_src_v36d.txt" 2>&1
echo "ncu rc=$?"
ncu -i /tmp/src_v36d.ncu-rep --page source --csv --print-source sass > /tmp/sass_v36d.csv 2> "$R/dump_v36d.err"
xz -T8 -c /tmp/sass_v36d.csv > "$R/sass_v36d_gelu.csv.xz"; elapsed ncu; pack
for round in 1 2 3; do
  for b in cb v36a v36d; do
    f="$R/epi_8192_28672_8192_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round: $(python3 bench/lab/fused_over_plain.py "$f")"
  done
  elapsed round$round; pack
done
for round in 1 2; do
  for b in cb v36d; do
    f="$R/epi_4096_4096_4096_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --m 4096 --n 4096 --k 4096 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round: $(python3 bench/lab/fused_over_plain.py "$f")"
  done
done
elapsed end; pack
