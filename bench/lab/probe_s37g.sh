#!/usr/bin/env bash
# Session 37, probe g: v37g = the final code (as v37f, probe f, with the
# CTA's barrier one __syncthreads for every thread: v37f's producer warp
# reached it at its own bar.sync, which synccheck reported as divergent
# threads at a barrier; the other warps now hold a cursor without units).
# (1) synccheck, memcheck, racecheck on k13; (2) gemm_test's k13 suites
# (the JIT suites compile the tree's headers) and gemm_api_test; (3) issue
# 12's rows and the small k13 shapes, cb and v37g, one round of three repeats.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
mkdir -p /tmp/v37g && tar xJf .carry/v37g.txz -C /tmp/v37g
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
log="$R/sanitizer_k13_v37g.log"
for tool in synccheck memcheck racecheck; do
  for shp in "257 129 192" "1000 1000 65" "128 256 1024" "512 512 512"; do
    for tuning in "" "--swap-ab on --tile-n 16 --splits 2" "--tile-n 192 --splits 3"; do
      set -- $shp
      echo "== $tool M=$1 N=$2 K=$3 $tuning" >> "$log"
      # shellcheck disable=SC2086
      timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/v37g/tessel bench gemm --m $1 --n $2 --k $3 \
        --impl k13,auto $tuning --verify tier1 --order none >> "$log" 2>&1
      echo "exit $?" >> "$log"
    done
  done
  pack
done
grep -c "^exit 0" "$log"; grep "^exit [^0]" "$log" | sort | uniq -c
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$log" | sort | uniq -c; elapsed sanitizer
timeout 300 /tmp/v37g/tests/cuda/gemm_test \
  --gtest_filter='K13*:Plan/*:GemmSwap*:GemmSplitK*:GemmStreamK*:Paths/GemmEpi.*:GemmEpiMath.*:Jit/GemmEpiJit.*:GemmJitCache.*:AllSteps/*k13*' \
  > "$R/gemm_test_v37g.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_v37g.log"
timeout 100 /tmp/v37g/tests/cuda/gemm_api_test > "$R/gemm_api_test_v37g.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_api_test_v37g.log"; elapsed tests; pack
for b in cb v37g; do
  f="$R/rows_${b}.csv"
  timeout 250 /tmp/$b/tessel bench gemm --suite bench/lab/s37_rows_suite.csv --impl auto,cublas --repeat 3 \
    --csv "$f" > "${f%.csv}.log" 2>&1
  echo "$b rc=$? $(ratio_line "$f")"
done
elapsed rows; pack
