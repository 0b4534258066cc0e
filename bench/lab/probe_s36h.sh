#!/usr/bin/env bash
# Session 36, probe h: v36h = the CI build of ed3492a with k13_epi_n256.cu
# recompiled so that the fused 128 x 256 consumers use the 32-bit split-K
# scheduler (blocks::SplitKScheduler<..., false>) instead of the wide form
# with 64-bit divisions (two subroutine calls a unit; session 29 had left a
# spill in the 32-bit form, which ptxas no longer needs: 168 registers, no
# spills).  Probe b's PC sampling put the fused instance's per-unit code
# ahead of the main loop at ~4.0 k samples against the plain kernel's ~1.4 k.
# (1) the epilogue suites on v36h; (2) bias + GELU at 8192 x 28672 x 8192,
# the CI build (cb) and v36h alternating, three rounds.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
mkdir -p /tmp/v36h && tar xJf .carry/v36h.txz -C /tmp/v36h
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 300 /tmp/v36h/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi.log"; elapsed tests; pack
for round in 1 2 3; do
  for b in cb v36h; do
    f="$R/epi_8192_28672_8192_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round: $(python3 bench/lab/fused_over_plain.py "$f")"
  done
  elapsed round$round; pack
done
