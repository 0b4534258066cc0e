#!/usr/bin/env bash
# Session 40, probe b: bench/ladder.sh's two runs on the build of probe a
# (new = .carry/new.txz; plots and the table are made on the 2-core
# machine), then the suite with auto alone (--order blocks --min-ms 2000,
# two repeats, the heat on by default) as probe s39j.
source bench/lab/probe_lib.sh
gpu_line
carried new
B=/tmp/new/tessel
timeout 200 $B bench gemm --suite bench/ladder_suite.csv --impl all --repeat 2 --csv "$R/ladder_h100.csv" \
  > "$R/ladder_h100.txt" 2>&1; echo "ladder rc=$?"; tail -3 "$R/ladder_h100.txt"; elapsed ladder; pack
timeout 120 $B bench gemm --suite tests/data/bench_suite.csv --impl auto --repeat 2 --csv "$R/suite_auto_h100.csv" \
  > "$R/suite_auto_h100.txt" 2>&1; echo "suite rc=$?"; tail -2 "$R/suite_auto_h100.txt"; elapsed suite; pack
timeout 330 $B bench gemm --suite tests/data/bench_suite.csv --impl auto --order blocks --min-ms 2000 \
  --repeat 2 --csv "$R/suite_alone_s40b.csv" > "$R/suite_alone_s40b.txt" 2>&1; echo "suite alone rc=$?"
tail -2 "$R/suite_alone_s40b.txt"
medians "$R/suite_alone_s40b.csv" | grep -v cublas > "$R/suite_alone_medians.txt"
elapsed suite_alone; pack
