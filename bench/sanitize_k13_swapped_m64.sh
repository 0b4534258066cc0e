#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of k13's swapped
# one-warpgroup tile of 64 rows of N (--tile-m 64; 16 wide unsplit, 64 wide with
# two splits) and k14 at 128 x 64, whose clusters now share A between
# N-neighbours, through `tessel bench gemm --verify tier1 --order none`
# (verification launches only), at 257x129x192 (partial tiles; k14's odd
# tile-column count leaves a cluster's second tile outside D), 1000x1000x65 (A
# rows unaligned -> padded copy) and 40x8192x320 (the plan's rule 4b shape: 128
# tiles of 64 rows). Needs a GPU.
#   bash bench/sanitize_k13_swapped_m64.sh > sanitizer_k13_swapped_m64_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in memcheck racecheck synccheck; do
  for shape in "257 129 192" "1000 1000 65" "40 8192 320"; do
    set -- $shape
    for run in "k13 --swap-ab on --tile-n 16 --splits 1 --tile-m 64" "k13 --swap-ab on --tile-n 64 --splits 2 --tile-m 64" \
      "k14 --tile-n 64"; do
      echo "== $tool M=$1 N=$2 K=$3 --impl $run"
      # shellcheck disable=SC2086
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" bench gemm --m "$1" --n "$2" --k "$3" \
        --impl $run --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu,"
      echo "exit ${PIPESTATUS[0]}"
    done
  done
done
