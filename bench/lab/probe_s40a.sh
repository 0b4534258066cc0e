#!/usr/bin/env bash
# Session 40, probe a: the committed k13 warpgroup epilogue (8f1634d's form,
# never run on a GPU in session 39) and the bench's heat.  new =
# .carry/new.txz (the CLI, gemm_test and gemm_api_test of session 40's first
# commit, built on the 2-core machine).
# (1) gemm_test's k13, plan, pingpong, split-K, swap and grouped suites and
#     the warpgroup test; gemm_api_test;
# (2) compute-sanitizer memcheck, synccheck and racecheck on k13 128 x 256
#     (the warpgroup form) at three shapes, as probe s39j;
# (3) the heat (--heat-ms) against none at 4096^3, blocks of 2 s, four
#     repeats each: does repeat 1 stop favouring what runs first?
# (4) issue 12's other rows alone with the heat (as probe s39k; 4096^3 is (3)'s heat 2000).
source bench/lab/probe_lib.sh
gpu_line
carried new
[ "${1:-}" = 2 ] || timeout 240 /tmp/new/tests/cuda/gemm_test \
  --gtest_filter='K13Tuning/*:K13Swap/*:Plan/*:GemmWarpgroupEpilogue.*:GemmPingpong.*:GemmSplitK.*:GemmSwapRows64.*:Grouped/*' \
  > "$R/gemm_test.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |^\[==========\]|FAILED  \]" "$R/gemm_test.log"
timeout 60 /tmp/new/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$R/gemm_api_test.log"; pack
elapsed tests
sanitize "$R/sanitizer_s40.log" /tmp/new/tessel "--impl k13 --tile-n 256" "4096 2048 64" "2304 2304 200" "1000 1000 65"
xz -f "$R/sanitizer_s40.log"; elapsed sanitizer; pack
for heat in 0 2000; do
  f="$R/heat${heat}_4096.csv"
  timeout 60 /tmp/new/tessel bench gemm --m 4096 --n 4096 --k 4096 --impl auto --order blocks --min-ms 2000 \
    --heat-ms $heat --repeat 4 --iterations 8000 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "heat $heat rc=$? $(alone_line "$f")"
done
pack
for spec in "4096 4096 14336 2500" "4096 6144 4096 5000" "4096 14336 4096 2500" \
            "8192 8192 28672 400" "8192 28672 8192 400" "128 8192 8192 20000"; do
  set -- $spec
  f="$R/alone_${1}x${2}x${3}.csv"
  timeout 60 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 --impl auto --order blocks --min-ms 2000 --repeat 4 \
    --iterations $4 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "rc=$? $(alone_line "$f")"
  pack
done
elapsed done
