#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of k13's swapped x 16
# and x 32 tiles, whose launch chooses the stages in flight
# (stages_in_flight, tessel/gemm_model.hpp: a ring walked over a run-time
# number of stages), through `tessel bench gemm --verify tier1 --order none`
# (verification launches only), where the choice differs: 7x896x1408 (14 CTAs
# of 64 rows: the deepest ring), 13x768x1968 and 30x2432x1624 (tens of CTAs),
# 16x8192x1024 (128 CTAs: the full grid's cap), each with 64- and 128-row tiles
# of width 16 and 32, unsplit and split three ways (the split's units share
# the ring), and 3x400x9368 split 17 ways (the reduction's passes of 16).
# Needs a GPU.
#   bash bench/sanitize_k13_depth.sh > sanitizer_k13_depth_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in memcheck racecheck synccheck; do
  for shape in "7 896 1408" "13 768 1968" "30 2432 1624" "16 8192 1024"; do
    set -- $shape
    for tiles in "--tile-m 64 --tile-n 16" "--tile-m 128 --tile-n 16" "--tile-m 64 --tile-n 32" \
      "--tile-m 128 --tile-n 32"; do
      for splits in 1 3; do
        echo "== $tool M=$1 N=$2 K=$3 $tiles --splits $splits"
        # shellcheck disable=SC2086
        timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" bench gemm --m "$1" --n "$2" --k "$3" \
          --impl k13 --swap-ab on $tiles --splits "$splits" --alpha 3 --verify tier1 --order none 2>&1 |
          grep -v "^NVIDIA\|^gpu,"
        echo "exit ${PIPESTATUS[0]}"
      done
    done
  done
  echo "== $tool M=3 N=400 K=9368 --tile-m 64 --tile-n 16 --splits 17"
  timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" bench gemm --m 3 --n 400 --k 9368 \
    --impl k13 --swap-ab on --tile-m 64 --tile-n 16 --splits 17 --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu,"
  echo "exit ${PIPESTATUS[0]}"
done
