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
carried new
timeout 120 /tmp/new/tests/cuda/gemm_test --gtest_filter='GemmWarpgroupEpilogue.*:GemmPingpong.*' > "$R/gemm_test_wg.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED  \]" "$R/gemm_test_wg.log"; pack
sanitize "$R/sanitizer_s39.log" /tmp/new/tessel "--impl k13 --tile-n 256" "4096 2048 64" "2304 2304 200" "1000 1000 65"
elapsed sanitizer
timeout 330 /tmp/new/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto --order blocks --min-ms 2000 \
  --repeat 2 --csv "$R/suite_alone_s39j.csv" > "$R/suite_alone_s39j.txt" 2>&1; echo "suite rc=$?"
tail -2 "$R/suite_alone_s39j.txt"
medians "$R/suite_alone_s39j.csv" | grep -v cublas | tee "$R/suite_alone_medians.txt"
elapsed suite; pack
