#!/usr/bin/env bash
# Session 37, probe f: v37f = the CI build of aa1ad3b with k13's ten
# translation units recompiled from the final code (the producer's first
# warp issues the first k-tile's loads before the CTA's barrier; the rest
# after it as the nested loops, KTileCursor::rest).  (1) issue 12's rows and
# the small k13 shapes, cb and v37f alternating, two rounds of three
# repeats; (2) gemm_test (all but the fp32 ladder; the JIT suites compile
# the tree's headers) and gemm_api_test on v37f; (3) compute-sanitizer
# memcheck, synccheck and racecheck on k13 through `auto` and two forced
# tunings (swapped with split K; 128 x 192 with three splits) at four shapes.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
mkdir -p /tmp/v37f && tar xJf .carry/v37f.txz -C /tmp/v37f
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
for round in 1 2; do
  for b in cb v37f; do
    f="$R/rows_${b}_r$round.csv"
    timeout 250 /tmp/$b/tessel bench gemm --suite bench/lab/s37_rows_suite.csv --impl auto,cublas --repeat 3 \
      --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round rc=$? $(ratio_line "$f")"
  done
  elapsed round$round; pack
done
timeout 330 /tmp/v37f/tests/cuda/gemm_test --gtest_filter='-Fp32Steps/*' > "$R/gemm_test_v37f.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_v37f.log"
timeout 100 /tmp/v37f/tests/cuda/gemm_api_test > "$R/gemm_api_test_v37f.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_api_test_v37f.log"; elapsed tests; pack
for tool in memcheck synccheck racecheck; do
  for shp in "257 129 192" "1000 1000 65" "128 256 1024" "512 512 512"; do
    for tuning in "" "--swap-ab on --tile-n 16 --splits 2" "--tile-n 192 --splits 3"; do
      set -- $shp
      echo "== $tool M=$1 N=$2 K=$3 $tuning" >> "$R/sanitizer_k13_v37f.log"
      # shellcheck disable=SC2086
      timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/v37f/tessel bench gemm --m $1 --n $2 --k $3 \
        --impl k13,auto $tuning --verify tier1 --order none >> "$R/sanitizer_k13_v37f.log" 2>&1
      echo "exit $?" >> "$R/sanitizer_k13_v37f.log"
    done
  done
  pack
done
grep -c "^exit 0" "$R/sanitizer_k13_v37f.log"; grep "^exit [^0]" "$R/sanitizer_k13_v37f.log" | sort | uniq -c
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$R/sanitizer_k13_v37f.log" | sort | uniq -c
elapsed sanitizer; pack
