#!/usr/bin/env bash
# Session 37, probe i: k15 with the same start as k13's (the first k-tile's
# loads before the CTA's barrier).  cb = the clean-clone CI build of 6fc6388
# (k13 changed, k15 not); v37k = cb with k15.cu and k15_epi.cu recompiled.
# (1) compute-sanitizer on k15 at three shapes; (2) gemm_test's k15 suites;
# (3) `auto` on k15's suite shapes, cb and v37k alternating, two rounds.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
mkdir -p /tmp/v37k && tar xJf .carry/v37k.txz -C /tmp/v37k
log="$R/sanitizer_k15_v37k.log"
for tool in synccheck memcheck racecheck; do
  for shp in "257 300 192" "1000 1000 65" "512 512 512"; do
    set -- $shp
    echo "== $tool M=$1 N=$2 K=$3" >> "$log"
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/v37k/tessel bench gemm --m $1 --n $2 --k $3 \
      --impl k15 --verify tier1 --order none >> "$log" 2>&1
    echo "exit $?" >> "$log"
  done
done
grep -c "^exit 0" "$log"; grep "^exit [^0]" "$log" | sort | uniq -c; elapsed sanitizer; pack
timeout 200 /tmp/v37k/tests/cuda/gemm_test --gtest_filter='AllSteps/*k15*:GemmPingpong*:Plan/*:Paths/GemmEpi.*:GemmEpiMath.*' \
  > "$R/gemm_test_v37k.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_v37k.log"; elapsed tests; pack
for round in 1 2; do
  for b in cb v37k; do
    f="$R/k15_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --suite bench/lab/s37_k15_suite.csv --impl auto,cublas --repeat 3 \
      --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round rc=$?"; medians "$f" | grep -v cublas
  done
  elapsed round$round; pack
done
