#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of k15's batched kernel
# (k15_grouped.cuh) through `tessel bench gemm --batch B --impl k15 --verify
# tier1 --order none` (verification launches only), at three strided
# batches that take its paths: 3 x 257x129x192 (partial tiles, D by the
# epilogue's row stores), 4 x 1000x1000x65 (A's rows not whole 128-byte
# lines, partial tiles, row stores), 32 x 512x512x128 (512 units on 132 CTAs:
# both warpgroups of every CTA, the turns, D as one tall TMA map).  Only
# k15's kernels are instrumented.  Needs a GPU.
#   bash bench/sanitize_k15_batched.sh > sanitizer_k15_batched_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in memcheck racecheck synccheck; do
  for shape in "3 257 129 192" "4 1000 1000 65" "32 512 512 128"; do
    set -- $shape
    echo "== $tool batch $1 M=$2 N=$3 K=$4"
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 --kernel-name kns=pingpong_grouped "$bin" bench gemm \
      --batch "$1" --m "$2" --n "$3" --k "$4" --impl k15 --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu,"
    echo "exit ${PIPESTATUS[0]}"
  done
done
