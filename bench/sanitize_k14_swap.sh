#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of k14 (2-CTA clusters, B
# multicast; with the plan's width and with 128 x 64) and k13 with A and B
# swapped (tile 16, 2 splits), through `tessel bench gemm --verify tier1`, at
# the three shapes of bench/sanitize_k13.sh: 257x129x192 (partial tiles, odd
# tile rows: k14's second tile of a cluster outside D; D rows unaligned ->
# staged row stores), 1000x1000x65 (A rows unaligned -> padded copy),
# 128x256x1024 (whole tiles, TMA store).  Needs a GPU.
#   bash bench/sanitize_k14_swap.sh > sanitizer_k14_swap_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in memcheck racecheck synccheck; do
  for shape in "257 129 192" "1000 1000 65" "128 256 1024"; do
    set -- $shape
    for run in "k14" "k14 --tile-n 64" "k13 --swap-ab on --tile-n 16 --splits 2"; do
      echo "== $tool M=$1 N=$2 K=$3 --impl $run"
      # shellcheck disable=SC2086
      compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" bench gemm --m "$1" --n "$2" --k "$3" \
        --impl $run --verify tier1 --warmup 1 --iterations 1 2>&1 | grep -v "^NVIDIA\|^gpu,"
      echo "exit ${PIPESTATUS[0]}"
    done
  done
done
