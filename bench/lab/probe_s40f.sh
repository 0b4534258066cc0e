#!/usr/bin/env bash
# Session 40, probe f: rule 6's group of 16, checked exactly.  new =
# .carry/new.txz (probe e's build: the plan with the group of 16).
# gemm_test's Plan/* (auto over the sweep, through the library's plan) and
# the warpgroup test; k13 128 x 256 (the plan's group 16 for that width)
# verified tier 1 on all four layouts and three output types at shapes with
# more than 16 tile rows (partial groups, edge tiles); compute-sanitizer
# memcheck on one of them.
source bench/lab/probe_lib.sh
gpu_line
carried new
timeout 120 /tmp/new/tests/cuda/gemm_test --gtest_filter='Plan/*:GemmWarpgroupEpilogue.*' > "$R/gemm_test_plan.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$R/gemm_test_plan.log"
for out in bf16 fp16 fp32; do
  for shp in "4352 2304 200" "6200 1000 72" "2200 4100 130"; do
    set -- $shp
    timeout 60 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 --impl k13 --tile-n 256 --out-dtype $out --layout all \
      --verify tier1 --order none --csv "$R/tier1_${out}_${1}x${2}x${3}.csv" > "$R/tier1_${out}_${1}x${2}x${3}.log" 2>&1
    echo "$out $shp rc=$? $(python3 -c "import csv,sys,collections; c=collections.Counter((r['impl'],r['disposition']) for r in csv.DictReader(open(sys.argv[1]))); print(dict(c))" "$R/tier1_${out}_${1}x${2}x${3}.csv")"
  done
done
pack
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/new/tessel bench gemm --m 4352 --n 2304 --k 200 \
  --impl k13 --tile-n 256 --verify tier1 --order none > "$R/memcheck_g16.log" 2>&1
echo "memcheck rc=$?"; grep "ERROR SUMMARY" "$R/memcheck_g16.log"
elapsed done; pack
