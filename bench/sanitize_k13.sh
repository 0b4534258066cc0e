#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of k13 (and of what
# `auto` chooses) through `tessel bench gemm --verify tier1`, at shapes that
# take every path: 257x129x192 (partial tiles, D rows unaligned -> register
# epilogue), 1000x1000x65 (A rows unaligned -> padded copy), 128x256x1024
# (one full tile, TMA store), each with the plan's tuning, with tile 192 and
# 3 splits of K (split K's partials and counters), with tile 128, and with
# A and B swapped (tile 16 with 2 splits, tile 64: D written transposed).
# Needs a GPU.
#   bash bench/sanitize_k13.sh > sanitizer_k13_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in memcheck racecheck synccheck; do
  for shape in "257 129 192" "1000 1000 65" "128 256 1024"; do
    set -- $shape
    for tuning in "" "--tile-n 192 --splits 3" "--tile-n 128" "--swap-ab on --tile-n 16 --splits 2" \
      "--swap-ab on --tile-n 64"; do
      echo "== $tool M=$1 N=$2 K=$3 $tuning"
      # shellcheck disable=SC2086
      compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" bench gemm --m "$1" --n "$2" --k "$3" \
        --impl k13,auto $tuning --verify tier1 --warmup 1 --iterations 1 2>&1 | grep -v "^NVIDIA\|^gpu,"
      echo "exit ${PIPESTATUS[0]}"
    done
  done
done
