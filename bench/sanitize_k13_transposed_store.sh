#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of the swapped tiles' D^T
# staged as D's rows and TMA-stored at beta = 0 (TmaStoreEpilogueTransposed), on
# each swapped width and row count the plan can choose (64 x 16, 64 x 64, 128 x
# 16, 128 x 64) and with split K (the last unit's epilogue), through `tessel
# bench gemm --verify tier1 --order none` (verification launches only), bf16 and
# fp32 D (one and two chunks per tile).  Shapes: 17x300x192 (partial tiles, one
# row of D), 64x1000x65 (D's rows of 1000: partial boxes), 40x8192x256 (several
# tiles per CTA at 128 x 64: the buffers reused).
# Needs a GPU.
#   bash bench/sanitize_k13_transposed_store.sh > sanitizer_k13_transposed_store_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in ${TOOLS:-memcheck racecheck synccheck}; do
  for shape in ${SHAPES:-17:300:192 64:1000:65 40:8192:256}; do
    set -- ${shape//:/ }
    for run in "--tile-m 64 --tile-n 16" "--tile-m 64 --tile-n 64" "--tile-n 16 --splits 2" \
      "--tile-n 64 --out-dtype fp32"; do
      echo "== $tool M=$1 N=$2 K=$3 --impl k13 --swap-ab on $run"
      # shellcheck disable=SC2086
      timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" bench gemm --m "$1" --n "$2" --k "$3" \
        --impl k13 --swap-ab on $run --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu,"
      echo "exit ${PIPESTATUS[0]}"
    done
  done
done
