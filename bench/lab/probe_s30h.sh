#!/usr/bin/env bash
# Session-30 device run (h): rule 13 widened to calls with C (s30f: k14
# 64 x 128 at 1000^3 with beta = 1 0.862 against the plan's k13 0.779), and
# the sanitizer on the epilogue's new C path (a chunk's loads gathered, the
# tile asked into L2 before the main loop).
# Predicted: where B's rows straddle, auto (now k14) 5-10 % ahead of the
# k13 plan with beta = 1 as without; 4096^3 with C as in s30f (0.89, fp16 in
# / fp32 out A:m 0.95-0.98: s30e and s30f differed by 3.5 %).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 120 /tmp/bn/tests/cuda/gemm_test --gtest_filter='Plan/*:K14Tuning/*m64*:GemmClusterMulticast*' \
  > "$R/gpu_tests.log" 2>&1; echo "tests rc=$?"; grep -E "^\[  PASSED|^\[  FAILED|tests ran" "$R/gpu_tests.log" | head
elapsed tests; pack
for tool in memcheck racecheck synccheck; do
  for s in "257 129 192" "1000 1000 65"; do
    set -- $s
    for run in "k13" "k14 --tile-m 64" "k13 --tile-n 256"; do
      echo "== $tool M=$1 N=$2 K=$3 beta 1 --impl $run"
      # shellcheck disable=SC2086
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/bn/tessel bench gemm --m $1 --n $2 --k $3 --beta 1 \
        --impl $run --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu,"
      echo "exit ${PIPESTATUS[0]}"
    done
  done
done > "$R/sanitizer_beta.log" 2>&1
grep -E "^==|^exit|SUMMARY" "$R/sanitizer_beta.log" | paste -s -d' ' | sed 's/ == /\n== /g'
elapsed sanitizer; pack
b() { local name=$1; shift; timeout 60 /tmp/bn/tessel bench gemm "$@" --repeat 3 --csv "$R/$name.csv" > "$R/$name.txt" 2>&1; echo "== $name"; medians "$R/$name.csv" | grep -v cublas; }
for s in "1000 1000 1000" "1000 1000 4000" "520 1000 1000" "1024 1000 1024"; do
  set -- $s
  b "beta1_$1_$2_$3" --m $1 --n $2 --k $3 --beta 1 --impl auto,k13,cublas
done
b beta1_4096_f16f32 --m 4096 --n 4096 --k 4096 --beta 1 --dtype fp16 --out-dtype fp32 --layout A:m,B:n --impl auto,cublas
b beta1_4096 --m 4096 --n 4096 --k 4096 --beta 1 --impl auto,cublas
elapsed done
pack
