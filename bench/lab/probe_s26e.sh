#!/usr/bin/env bash
# Session-26 device run: the whole fp32 ladder f01..f11 against cuBLASLt on
# both A layouts (bench/fp32_ladder.sh, 2 repeats) for docs/ladder.md's
# table; compute-sanitizer of f11 on A:k, B:n (rule 9 gives it A:k now).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
TESSEL_BIN=/tmp/bn/tessel timeout 420 bash bench/fp32_ladder.sh "$R/fp32_ladder_h100.csv" > "$R/fp32_ladder.log" 2>&1; echo "ladder rc=$?"
medians "$R/fp32_ladder_h100.csv"
pack
IMPLS=f11 LAYOUT=A:k,B:n TESSEL_BIN=/tmp/bn/tessel timeout 100 bash bench/sanitize_fp32.sh > "$R/sanitizer_f11_kn.log" 2>&1
grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY|exit" "$R/sanitizer_f11_kn.log" | head -40
elapsed "done"
pack
