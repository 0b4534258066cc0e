#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of k13's unswapped
# one-warpgroup 64 x 128 tile (--tile-m 64 --swap-ab off; unsplit, and split in
# two) and k14 on the same tile (clusters of M-neighbours sharing B), through
# `tessel bench gemm --verify tier1 --order none` (verification launches only),
# at 257x129x192 (partial tiles), 1000x1000x65 (A rows unaligned -> padded copy)
# and 1024x1024x1024 (rule 1b's own shape: 128 tiles).
# At 1024^3 racecheck reports 512 hazards inside cuBLASLt's
# nvjet_sm90_tst_128x64_64x8_1x2 kernel (the bench runs and verifies cuBLASLt
# beside the step) and none in tessel's.  Checking tessel's kernels alone
# (--kernel-name kns=gemm_) made the sanitizer fail with an internal error on a
# hardware exception in every 1024^3 run: not used.
# TOOLS and SHAPES (space-separated, shapes as M:N:K) narrow a run.
# Needs a GPU.
#   bash bench/sanitize_k13_m64.sh > sanitizer_k13_m64_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in ${TOOLS:-memcheck racecheck synccheck}; do
  for shape in ${SHAPES:-257:129:192 1000:1000:65 1024:1024:1024}; do
    set -- ${shape//:/ }
    for run in "k13 --swap-ab off --tile-m 64 --splits 1" "k13 --swap-ab off --tile-m 64 --splits 2" \
      "k14 --tile-m 64"; do
      echo "== $tool M=$1 N=$2 K=$3 --impl $run"
      # shellcheck disable=SC2086
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" bench gemm --m "$1" --n "$2" --k "$3" \
        --impl $run --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu,"
      echo "exit ${PIPESTATUS[0]}"
    done
  done
done
