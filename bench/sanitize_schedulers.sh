#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of the schedulers and
# cluster barriers of k13, k14, k15 and the grouped kernel, through `tessel
# bench gemm --verify tier1 --order none` (verification launches only):
# - k14 (the cluster barrier's relaxed arrive and split wait at the start, no
#   cluster barrier at the end: the producer's tail waits for the peer's
#   releases; the 32-bit scheduler): --tile-m 64 (64 x 128) and 128 x 128;
# - k13 through the plan (the scheduler made per side; the TMA-store
#   epilogue's final wait for its reads only) and its fused 128 x 256
#   instance (the Wide scheduler in the consumers: --tile-n 256 --epilogue
#   bias_relu, exact on integers);
# - k15 (the scheduler's lean path at splits = 1) and the grouped kernel
#   (GroupScheduler unsigned: --group-m 100,M with --n N --k K).
# Shapes: 257x129x192 (partial tiles, D rows unaligned), 1000x1000x65 (A
# rows unaligned: the padded copy), 1024x1024x1024 (whole tiles; k13's plan
# runs 64 x 128 there).  The bench runs and verifies cuBLASLt beside each
# step; racecheck finds hazards inside cuBLASLt's own kernel at 1024^3
# (bench/sanitize_k13_m64.sh), so the summary lines are per launch.
# TOOLS and SHAPES (space-separated, shapes as M:N:K) narrow a run.
# Needs a GPU.
#   bash bench/sanitize_schedulers.sh > sanitizer_schedulers_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in ${TOOLS:-memcheck racecheck synccheck}; do
  for shape in ${SHAPES:-257:129:192 1000:1000:65 1024:1024:1024}; do
    set -- ${shape//:/ }
    for run in "k14 --tile-m 64" "k14 --tile-n 128" "k13" "k13 --tile-n 256 --epilogue bias_relu" "k15" \
      "auto --group-m 100,$1"; do
      echo "== $tool M=$1 N=$2 K=$3 --impl $run"
      # shellcheck disable=SC2086
      case $run in *group-m*) dims=(--n "$2" --k "$3") ;; *) dims=(--m "$1" --n "$2" --k "$3") ;; esac
      timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" bench gemm "${dims[@]}" \
        --impl $run --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu,"
      echo "exit ${PIPESTATUS[0]}"
    done
  done
done
