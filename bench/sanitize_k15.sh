#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of k15 (pingpong)
# through `tessel bench gemm --verify tier1`, plain and with the fused
# epilogue (bias + ReLU, exact on integers as tier 1 needs: the fused instance, the unfused pair and the
# plain kernel), at shapes that take every path: 257x129x192 (partial tiles,
# D rows unaligned -> staged row stores), 1000x1000x65 (A rows unaligned ->
# padded copy of A), 2048x2048x128 (256 tiles on 132 SMs: both consumer
# warpgroups of most CTAs work, the turn barrier hands the main loop over).
# Only k15's kernels are instrumented (--kernel-name kns=pingpong), and only
# the verification launches run (--order none: the timed loop's thousands of
# launches made the tools run out of memory, "Internal Sanitizer Error ...
# Unable to allocate").  Needs a GPU.
#   bash bench/sanitize_k15.sh > sanitizer_k15_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in memcheck racecheck synccheck; do
  for shape in "257 129 192" "1000 1000 65" "2048 2048 128"; do
    set -- $shape
    for epi in none bias_relu; do
      echo "== $tool M=$1 N=$2 K=$3 epilogue $epi"
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 --kernel-name kns=pingpong "$bin" bench gemm \
        --m "$1" --n "$2" --k "$3" --impl k15 --epilogue "$epi" --verify tier1 --order none 2>&1 |
        grep -v "^NVIDIA\|^gpu,"
      echo "exit ${PIPESTATUS[0]}"
    done
  done
done
