#!/usr/bin/env bash
# Session 41, probe f: rule 3b (rule 1b's 64 x 128 tile at M <= 128 not
# split from 3/7 of the SMs on) checked and timed.  new = .carry/new.txz
# (this session's build of the rule, the lab prefetch reverted).
# 1. auto verified tier 1 at the shapes the rule changes (and two it keeps),
#    all four layouts, three output types;
# 2. gemm_test's Plan/* (auto over the sweep) and k13's split-K suite;
# 3. auto against cuBLASLt, interleaved (memory-bound: 1980 MHz), three
#    repeats, two rounds;
# 4. compute-sanitizer memcheck on auto at 128 x 4096 x 8192;
# 5. issue 12's two tie rows alone (2 s blocks, the heat, four repeats).
source bench/lab/probe_lib.sh
gpu_line
carried new
for out in bf16 fp16 fp32; do
  f="$R/tier1_${out}.csv"
  timeout 120 /tmp/new/tessel bench gemm --m 96,128 --n 3648,4096 --k 4096,8192 --impl auto --out-dtype $out --layout all \
    --verify tier1 --order none --csv "$f" > "${f%.csv}.log" 2>&1
  echo "tier1 $out rc=$? $(python3 -c "import csv,sys,collections; rows=list(csv.DictReader(open(sys.argv[1]))); print(dict(collections.Counter(r['disposition'] for r in rows)), sorted(set(r['note'] for r in rows)))" "$f")"
done
pack
timeout 200 /tmp/new/tests/cuda/gemm_test --gtest_filter='Plan/*:GemmSplitK.*:K13Tuning/*' > "$R/gemm_test.log" 2>&1
echo "gemm_test rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests? .*skipped|SKIPPED \]" "$R/gemm_test.log" | sort | uniq -c | head
pack
for round in 1 2; do
  for shp in "128 4096 8192" "128 4096 4096" "128 4096 14336" "96 4096 8192" "128 3648 8192" "128 3072 8192" "256 2048 8192"; do
    set -- $shp
    f="$R/auto_r${round}_${1}x${2}x${3}.csv"
    timeout 60 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "r$round rc=$? $(ratio_line "$f") $(python3 -c "import csv,sys;print(sorted(set(r['note'] for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas')))" "$f")"
  done
  pack
done
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/new/tessel bench gemm --m 128 --n 4096 --k 8192 \
  --impl auto --verify tier1 --order none > "$R/memcheck_r3b.log" 2>&1
echo "memcheck rc=$?"; grep "ERROR SUMMARY" "$R/memcheck_r3b.log"
pack
for shp in "128 8192 8192 20000" "4096 4096 14336 2500"; do
  set -- $shp
  f="$R/alone_${1}x${2}x${3}.csv"
  timeout 100 /tmp/new/tessel bench gemm --m $1 --n $2 --k $3 --impl auto --order blocks --min-ms 2000 --repeat 4 \
    --iterations $4 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "alone rc=$? $(alone_line "$f")"
  pack
done
elapsed done; pack
