#!/usr/bin/env bash
# Session-30 device run (b): compute-sanitizer on what sessions 29 and 30
# changed (bench/sanitize_s30.sh: k14 after its start/end change, k13 through
# the plan and its fused 128 x 256 instance, k15, the grouped kernel; three
# shapes, three tools).  s30a passed tier 1 (245 tests) on the same tree.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
TESSEL_BIN=/tmp/bn/tessel timeout 370 bash bench/sanitize_s30.sh > "$R/sanitizer_s30.log" 2>&1
grep -E "^==|^exit|ERROR SUMMARY" "$R/sanitizer_s30.log" | paste -s -d' ' | sed 's/ == /\n== /g' | awk '{print}' | head -70
elapsed done
pack
