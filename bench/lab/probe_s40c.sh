#!/usr/bin/env bash
# Session 40, probe c: the ladder (bench/ladder_suite.csv, every step) with
# each step alone (--order blocks --min-ms 1000, the heat on), two repeats,
# on probe a's build (new = .carry/new.txz).  Probe b's interleaved ladder
# ran out of its 200 s at 4096^3: k01's 30 ms launches set the pace of
# a loop that needs 1200 of k13's.
source bench/lab/probe_lib.sh
gpu_line
carried new
timeout 400 /tmp/new/tessel bench gemm --suite bench/ladder_suite.csv --impl all --order blocks --min-ms 1000 --repeat 2 \
  --csv "$R/ladder_h100.csv" > "$R/ladder_h100.txt" 2>&1; echo "ladder rc=$?"; tail -2 "$R/ladder_h100.txt"
medians "$R/ladder_h100.csv" > "$R/ladder_medians.txt"; elapsed ladder; pack
