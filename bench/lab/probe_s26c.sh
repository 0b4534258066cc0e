#!/usr/bin/env bash
# Session-26 device run, part 2 (after probe_s26b.sh, same warm machine and
# /tmp/bn): f10, f11, auto and cuBLASLt fp32 on the fp32 ladder suite and on
# rule 9's suite of partial waves, both A layouts; compute-sanitizer of f11
# (memcheck, racecheck, synccheck) on A:m, B:n.
source bench/lab/probe_lib.sh
gpu_line
[ -x /tmp/bn/tessel ] || build_cli tessel_cli
timeout 150 /tmp/bn/tessel bench gemm --suite bench/fp32_ladder_suite.csv --dtype fp32 --impl f10,f11,auto,cublas \
  --layout "A:m,B:n;A:k,B:n" --repeat 3 --flush read --csv "$R/fp32_ladder_s26.csv" > "$R/fp32_ladder_s26.txt" 2>&1; echo "bench rc=$?"
medians "$R/fp32_ladder_s26.csv"
pack
timeout 200 /tmp/bn/tessel bench gemm --suite bench/lab/fp32_rule9_s25_suite.csv --dtype fp32 --impl auto,f11,cublas \
  --layout "A:k,B:n;A:m,B:n" --repeat 2 --flush read --csv "$R/rule9_s26.csv" > "$R/rule9_s26.txt" 2>&1; echo "bench rc=$?"
medians "$R/rule9_s26.csv"
pack
IMPLS=f11 LAYOUT=A:m,B:n TESSEL_BIN=/tmp/bn/tessel timeout 150 bash bench/sanitize_fp32.sh > "$R/sanitizer_f11.log" 2>&1
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|exit" "$R/sanitizer_f11.log" | head -40
elapsed "done"
pack
