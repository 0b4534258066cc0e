#!/usr/bin/env bash
# Session 35, probe f: the bias slice's loads hidden behind the main loop
# (BiasShare: loaded into registers before the loop, stored to shared
# memory after it; bench/lab/s35_bias_share.diff, re-applied on v2) measured
# where the bench could not tell it apart: ncu at the locked clock, v2
# against v3 (= v2 with k13_epi_n256 and k15_epi rebuilt with it), fused
# ReLU and GELU at 8192 x 28672 x 8192; predicted -0.5 to -1 % of SM cycles
# (the ~1000-1500 cycles of two serial bias loads per tile, of ~134 k).
# Then v3's epilogue tests and v2/v3 alternating in the bench.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for b in v2 v3; do mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; done
M=gpu__time_duration.sum,sm__inst_executed.sum,sm__cycles_active.avg,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
for e in bias_relu bias_gelu; do
  for b in v2 v3; do
    timeout 200 ncu -k regex:'wgmma_in_flight' --launch-count 1 --metrics $M \
      /tmp/$b/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue $e --impl auto --order none > "$R/ncu_${e}_$b.txt" 2>&1
    echo "== ncu $e $b"; grep -E "duration|inst_executed|cycles_active|hmma" "$R/ncu_${e}_$b.txt" | cut -c1-120
  done
done
elapsed ncu; pack
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 300 /tmp/v3/tests/cuda/gemm_test --gtest_filter='GemmEpiMath.*:Paths/GemmEpi.*' > "$R/gemm_test_epi_v3.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_epi_v3.log"; elapsed tests; pack
for round in 1 2; do
  for cfg in "8192 28672 8192 bias_gelu" "4096 4096 4096 bias_gelu"; do
    set -- $cfg
    for b in v2 v3; do
      f="$R/epi_${1}_${2}_${3}_${4}_${b}_r${round}.csv"
      timeout 200 /tmp/$b/tessel bench gemm --m $1 --n $2 --k $3 --epilogue $4 --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
      echo "== $cfg $b r$round"; medians "$f" | grep -v unfused
    done
    pack
  done
done
elapsed bench
