#!/usr/bin/env bash
# Session 36, probe a: (1) session 35's probe m, not run then: the final
# build's (04dadaf, clean-clone CI build) k14 gemm_test suites, and `auto` at
# 82 x 8192 x 8192 (rule 13b's k14) tier 1 and timed; (2) where k13's fused
# instance spends its extra ~1.7 % of SM cycles with ReLU at
# 8192 x 28672 x 8192 (session 35, probe e): ncu's PC sampling
# (SourceCounters) of the fused kernel and the plain one, dumped per SASS
# instruction, so the extra stall samples can be split into main loop and
# epilogue.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
timeout 120 /tmp/cb/tests/cuda/gemm_test --gtest_filter='*k14*:K14Tuning/*' > "$R/gemm_test_k14.log" 2>&1
echo "gemm_test k14 rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$R/gemm_test_k14.log"
timeout 60 /tmp/cb/tessel bench gemm --m 82 --n 8192 --k 8192 --impl auto --verify tier1 --order none > "$R/tier1_82.log" 2>&1
grep -E "verify auto" "$R/tier1_82.log"
timeout 60 /tmp/cb/tessel bench gemm --m 82 --n 8192 --k 8192 --impl auto,cublas --repeat 3 --csv "$R/m82_auto.csv" > "$R/m82_auto.log" 2>&1
medians "$R/m82_auto.csv" | grep -v cublas
elapsed m; pack
for e in bias_relu bias_gelu; do
  timeout 240 ncu -k regex:'wgmma_in_flight' --launch-count 2 --section SourceCounters --section WarpStateStats \
    -o /tmp/src_$e /tmp/cb/tessel bench gemm --m 8192 --n 28672 --k 8192 --epilogue $e --impl auto --order none \
    > "$R/ncu_src_$e.txt" 2>&1
  echo "ncu $e rc=$?"; ls -la /tmp/src_$e.ncu-rep
  ncu -i /tmp/src_$e.ncu-rep --page source --csv --print-source sass > /tmp/sass_$e.csv 2> "$R/dump_$e.err"
  echo "dump rc=$? $(wc -c < /tmp/sass_$e.csv) bytes"; head -c 600 /tmp/sass_$e.csv; echo
  xz -T8 -c /tmp/sass_$e.csv > "$R/sass_$e.csv.xz"
  grep -E "^  [a-zA-Z_v].*\(|Duration|Warp Cycles|Stall" "$R/ncu_src_$e.txt" | cut -c1-150 | head -30
  elapsed $e; pack
done
[ -s /tmp/sass_bias_relu.csv ] || { ncu --help | grep -i -A3 -E "page|print-source" | head -40; }
