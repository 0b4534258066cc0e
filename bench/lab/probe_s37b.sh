#!/usr/bin/env bash
# Session 37, probe b: k13's unswapped 64 x 128 tile (rule 1b) with fewer
# stages.  It fills shared memory (8 stages of 24 KB: 24.6 MB in flight over
# 128 CTAs at 128 x 8192 x 8192); the swapped small-M tiles measured faster
# with their stages capped (16/32 wide: 4 stages +1.2-2.1 %; 64 x 64: 8
# stages ahead of 13), at ~9 MB in flight.  Probe a: at M = 128 k13's
# GB/s drops with fewer CTAs (N = 7680: 2.72 TB/s) where cuBLASLt's holds
# 2.84.  Bins: cb = the CI build of aa1ad3b (8 stages); s3..s6 = the same
# with k13_n128.cu recompiled, Config<128, false, 64>::kMaxStages = 3..6.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for s in 3 4 5 6; do mkdir -p /tmp/s$s && tar xJf .carry/s$s.txz -C /tmp/s$s; done
for round in 1 2; do
  for b in cb s3 s4 s5 s6; do
    f="$R/m64n128_${b}_r$round.csv"
    timeout 200 /tmp/$b/tessel bench gemm --suite bench/lab/s37_m64n128_suite.csv --impl k13,cublas --tile-m 64 \
      --tile-n 128 --splits 1 --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round rc=$? $(ratio_line "$f")"
  done
  elapsed round$round; pack
done
