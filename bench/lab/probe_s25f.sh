#!/usr/bin/env bash
# Session-25 device run 5: compute-sanitizer racecheck and synccheck of f11
# (A:m,B:n) at bench/sanitize_fp32.sh's f11 shapes (memcheck ran in s25e).
source bench/lab/probe_lib.sh
[ -x /tmp/bn/tessel ] || build_cli tessel_cli
TOOLS="racecheck synccheck" IMPLS=f11 LAYOUT=A:m,B:n TESSEL_BIN=/tmp/bn/tessel timeout 400 bash bench/sanitize_fp32.sh > "$R/race_sync_f11.log" 2>&1
grep -E "==|ERROR SUMMARY|exit" "$R/race_sync_f11.log" | head -30
elapsed "done"
pack
