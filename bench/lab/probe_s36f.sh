#!/usr/bin/env bash
# Session 36, probe f: racecheck of k13's fused instance where CTAs run more
# than one unit (the bias slice is written after each unit's main loop, so
# the hazard to rule out is a write against the previous unit's reads);
# probe e's 2048 x 4096 x 64 stopped in the tool ("failed to handle a
# hardware exception", as racecheck has on k15 since session 22).  Smaller
# grids of 144 and 160 units on 132 SMs, fused and plain; the CI build of
# ed3492a.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for shp in "1536 1536 64" "1280 2048 64" "1536 1536 256"; do
  for e in bias_relu none; do
    set -- $shp
    echo "== racecheck $e $shp" >> "$R/racecheck_k13.log"
    timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 --kernel-name kns=wgmma_in_flight /tmp/cb/tessel bench gemm \
      --m $1 --n $2 --k $3 --impl k13 --epilogue $e --verify tier1 --order none >> "$R/racecheck_k13.log" 2>&1
    echo "racecheck $e $shp exit $?"
  done
  pack
done
grep -E "^==|verify k13[: ]|RACECHECK SUMMARY|Internal" "$R/racecheck_k13.log"
elapsed end; pack
