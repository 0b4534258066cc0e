#!/usr/bin/env bash
# Session 35, probe e: fuse_bias with each value's row and column as the
# thread's plus a constant (the fields of the packed coordinate cost an
# add, shift and mask per pair; SASS of k13_epi_n256's column path: 366 ->
# 176 instructions, 64 -> 32 LDS.64).  v1 = probe a's build, v2 = + this.
# (1) v2's epilogue tests.  (2) ncu at its locked clock: instructions and
# time of the fused kernel (ReLU, GELU) against the plain one at
# 8192 x 28672 x 8192; predicted 596.0 M -> ~586 M instructions for ReLU.
# (3) v1 and v2 alternating on issue 13's rows, two rounds.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for b in v1 v2; do mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; done
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 300 /tmp/v2/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi.log"; elapsed tests; pack
M=gpu__time_duration.sum,sm__inst_executed.sum,sm__cycles_active.avg,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
for e in bias_relu bias_gelu; do
  timeout 200 ncu -k regex:'wgmma_in_flight' --launch-count 2 --metrics $M \
    /tmp/v2/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue $e --impl auto --order none > "$R/ncu_$e.txt" 2>&1
  echo "== ncu $e"; grep -E "^  [a-zA-Z_v].*\(|duration|inst_executed|cycles_active|hmma" "$R/ncu_$e.txt" | cut -c1-120
done
elapsed ncu; pack
for round in 1 2; do
  for cfg in "4096 4096 4096 bias_gelu" "8192 28672 8192 bias_gelu" "8192 28672 8192 bias_relu"; do
    set -- $cfg
    for b in v1 v2; do
      f="$R/epi_${1}_${2}_${3}_${4}_${b}_r${round}.csv"
      timeout 200 /tmp/$b/tessel bench gemm --m $1 --n $2 --k $3 --epilogue $4 --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
      echo "== $cfg $b r$round"; medians "$f" | grep -v unfused
    done
    pack
  done
  elapsed "round $round"
done
