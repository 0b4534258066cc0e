#!/usr/bin/env bash
# Session 39, probe a: k13's overlapped epilogue (128 x 256, 16-bit D, beta
# = 0, TMA stores): the tile's first two chunks stored right after its last
# wgmma, the last two packed into registers and stored during the next
# tile's first k-tile.  old = session 38's final build (.carry/old.txz);
# new = the same build with k13_n256.cu recompiled on the new headers.
# Probe c reran it with new = the warpgroup epilogue
# (stmatrix, one TMA box and one named barrier per consumer warpgroup).
# ncu cycles old/new (k13 128 x 256 at 4096^3, 8192^3), new's gemm_test
# (k13 suites) and gemm_api_test, the timed rows alone (2 s blocks) old
# then new.  (Run as `probe_s39a.sh 1`: a second stage with the sanitizer,
# never run, was dropped; probe j ran those checks on the final build.)
source bench/lab/probe_lib.sh
gpu_line
carried old new
export TESSEL_INCLUDE_DIR=$PWD/include TESSEL_CACHE_DIR=/tmp/jitcache
which nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
alone() {  # alone TAG M N K ITER: auto against cuBLASLt, 2 s blocks, two repeats, old then new
  local tag=$1; shift
  for b in old new; do
    f="$R/alone_${tag}_${b}_${1}x${2}x${3}.csv"
    timeout 100 /tmp/$b/tessel bench gemm --m $1 --n $2 --k $3 --impl auto --order blocks --min-ms 2000 --repeat 2 \
      --iterations $4 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$tag $b rc=$? $(alone_line "$f")"
  done
  pack
}
M="sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__pipe_tensor_cycles_active.avg,gpu__time_duration.sum,smsp__inst_executed.sum"
for b in old new; do
  for spec in "k13_4096 4096 4096 4096" "k13_8192 8192 8192 8192"; do
    set -- $spec; name=$1 m=$2 n=$3 k=$4
    timeout 90 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wgmma --metrics "$M" \
      /tmp/$b/tessel bench gemm --m $m --n $n --k $k --impl k13 --tile-n 256 --iterations 4 --warmup 2 --verify none \
      > "$R/ncu_${b}_$name.txt" 2>&1
    echo "$b $name rc=$? $(grep -E '^\s+(sm__cycles_elapsed.avg|sm__cycles_active.avg|sm__pipe_tensor|gpu__time)' "$R/ncu_${b}_$name.txt" | awk '{print $1"="$NF}' | paste -sd' ')"
  done
done
elapsed ncu; pack
timeout 200 /tmp/new/tests/cuda/gemm_test \
  --gtest_filter='K13Tuning/*:Plan/*:AllSteps/*k13*:GemmPingpong.*:GemmStreamK.*:GemmSplitK.*' > "$R/gemm_test_new.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |tests ran" "$R/gemm_test_new.log"
timeout 100 /tmp/new/tests/cuda/gemm_api_test > "$R/gemm_api_test_new.log" 2>&1
echo "gemm_api_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_api_test_new.log"; elapsed tests; pack
alone r1 4096 4096 4096 8000
alone r1 8192 8192 8192 1000
alone r1 4096 14336 4096 2500
elapsed rows
