#!/usr/bin/env bash
# Session 39, probe j: the warpgroup epilogue's checks and the suite alone.
# new = .carry/new.txz (the lab build with k13_n256.cu and gemm_test.cu of
# this session).  (1) gemm_test's GemmWarpgroupEpilogue and GemmPingpong;
# (2) compute-sanitizer memcheck, synccheck and racecheck on k13 128 x 256
# (bf16 D, beta 0: the warpgroup form) at three shapes with several tiles
# per CTA, one-k-tile units included; (3) the suite with auto alone
# (--order blocks --min-ms 2000, two repeats), as probe s38o.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/new && tar xJf .carry/new.txz -C /tmp/new
timeout 120 /tmp/new/tests/cuda/gemm_test --gtest_filter='GemmWarpgroupEpilogue.*:GemmPingpong.*' > "$R/gemm_test_wg.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED  \]" "$R/gemm_test_wg.log"; pack
log="$R/sanitizer_s39.log"
for tool in memcheck synccheck racecheck; do
  for shp in "4096 2048 64" "2304 2304 200" "1000 1000 65"; do
    set -- $shp
    echo "== $tool M=$1 N=$2 K=$3" >> "$log"
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 \
      --impl k13 --tile-n 256 --verify tier1 --order none >> "$log" 2>&1
    echo "exit $?" >> "$log"
  done
  pack
done
grep -c "^exit 0" "$log"; grep "^exit [^0]" "$log" | sort | uniq -c
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$log" | sort | uniq -c
elapsed sanitizer
timeout 330 /tmp/new/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto --order blocks --min-ms 2000 \
  --repeat 2 --csv "$R/suite_alone_s39j.csv" > "$R/suite_alone_s39j.txt" 2>&1; echo "suite rc=$?"
tail -2 "$R/suite_alone_s39j.txt"
medians "$R/suite_alone_s39j.csv" | grep -v cublas | tee "$R/suite_alone_medians.txt"
elapsed suite; pack
