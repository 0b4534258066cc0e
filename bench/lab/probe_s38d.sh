#!/usr/bin/env bash
# Session 38, probe d: TmaStoreEpilogue's common path (beta = 0, TMA stores)
# as one straight run of machine code.  old = the clean-clone CI build of
# 8918bdc; new = the same tree with the changed tma_store_epilogue.cuh,
# every dependent object rebuilt (make in that build directory).
# (1) ncu cycles at 4096^3 (k13 128 x 256, k15) and 128 x 8192 x 8192, old
# and new, and new k13's source counters; (2) timed rows, old and new
# alternating; (3) gemm_test (all but the fp32 ladder) and gemm_api_test on
# new; (4) compute-sanitizer on k13 and k15; (5) a second round of rows.
# Two calls: `probe_s38d.sh 1` runs (1)-(3), `probe_s38d.sh 2` runs (4)-(5).
stage=${1:-1}
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for b in old new; do mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; done
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
rows() {
  for b in old new; do
    f="$R/rows_${b}_r$1.csv"
    timeout 200 /tmp/$b/tessel bench gemm --suite bench/lab/s38_rows_suite.csv --impl auto,cublas --repeat 2 \
      --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$1 rc=$? $(ratio_line "$f")"
  done
  elapsed "rows r$1"; pack
}
if [ "$stage" = 1 ]; then
M="sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__pipe_tensor_cycles_active.avg,gpu__time_duration.sum,smsp__inst_executed.sum"
for b in old new; do
  for spec in "k13_4096 gemm_wgmma 4096 4096 4096 --impl k13 --tile-n 256" "k15_4096 gemm_pingpong 4096 4096 4096 --impl k15" \
              "k13_128 gemm_wgmma 128 8192 8192 --impl auto" "k13_28672 gemm_wgmma 8192 28672 8192 --impl auto"; do
    set -- $spec; name=$1 re=$2 m=$3 n=$4 k=$5; shift 5
    timeout 90 ncu --launch-skip 2 --launch-count 1 -k regex:"$re" --metrics "$M" \
      /tmp/$b/tessel bench gemm --m $m --n $n --k $k "$@" --iterations 4 --warmup 2 --verify none > "$R/ncu_${b}_$name.txt" 2>&1
    echo "$b $name rc=$? $(grep -E '^\s+(sm__cycles_elapsed.avg|sm__cycles_active.avg|gpu__time)' "$R/ncu_${b}_$name.txt" | awk '{print $1"="$NF}' | paste -sd' ')"
  done
done
timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wgmma --section SourceCounters --page source --print-source sass --csv \
  /tmp/new/tessel bench gemm --m 4096 --n 4096 --k 4096 --impl k13 --tile-n 256 --iterations 4 --warmup 2 --verify none > "$R/src_new_k13.csv" 2>&1
xz -T4 "$R/src_new_k13.csv"
elapsed ncu; pack
rows 1
timeout 300 /tmp/new/tests/cuda/gemm_test --gtest_filter='-Fp32Steps/*' > "$R/gemm_test_new.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |tests ran" "$R/gemm_test_new.log"
timeout 100 /tmp/new/tests/cuda/gemm_api_test > "$R/gemm_api_test_new.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_api_test_new.log"; elapsed tests; pack
exit 0
fi
# Stage 1's gemm_test run stopped at its 300 s limit inside Batched/* (293
# tests passed, none failed): the suites after it.
timeout 200 /tmp/new/tests/cuda/gemm_test --gtest_filter='Batched/*:Grouped/*' > "$R/gemm_test_new_rest.log" 2>&1
echo "gemm_test rest rc=$?"; grep -E "^\[  (PASSED|FAILED) |tests ran" "$R/gemm_test_new_rest.log"; pack
log="$R/sanitizer_s38_new.log"
for tool in memcheck synccheck racecheck; do
  for shp in "257 129 192" "1000 1000 65" "512 512 512"; do
    for impl in "k13,auto" "k15" "k13 --beta 1"; do
      set -- $shp
      echo "== $tool M=$1 N=$2 K=$3 $impl" >> "$log"
      # shellcheck disable=SC2086
      timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 \
        --impl $impl --verify tier1 --order none >> "$log" 2>&1
      echo "exit $?" >> "$log"
    done
  done
  pack
done
grep -c "^exit 0" "$log"; grep "^exit [^0]" "$log" | sort | uniq -c
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$log" | sort | uniq -c
elapsed sanitizer; pack
rows 2
