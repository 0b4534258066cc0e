#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of the small-M kernel
# (kernels/gemm/small_m_stream.cuh) through `tessel bench gemm --impl small_m
# --verify tier1 --order none` (verification launches only): rows of whole
# chunks (ldmatrix) and not (16-bit loads; N or K odd), each row count
# instance (M 1, 13, 24, 64), unsplit and split, fp32 output with C, and a
# last row whose covering chunk ends past B (N odd, K odd).  Only the
# small-M kernels are instrumented (--kernel-name kns=gemm_small_m): the
# cuBLASLt reference's own kernels report shared-memory hazards of their own
# under racecheck (nvjet split-K kernels, H200, CUDA 13.0).  Needs a GPU.
#   bash bench/sanitize_small_m.sh > sanitizer_small_m_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in memcheck racecheck synccheck; do
  for shape in "1 1024 1000" "13 777 1001" "24 2048 640" "64 136 4096" "7 129 650"; do
    set -- $shape
    for splits in 1 3; do
      for extra in "" "--out-dtype fp32 --alpha 2 --beta -1"; do
        echo "== $tool M=$1 N=$2 K=$3 --splits $splits $extra"
        # shellcheck disable=SC2086
        timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 --kernel-name kns=gemm_small_m "$bin" bench gemm --m "$1" --n "$2" --k "$3" \
          --impl small_m --splits "$splits" $extra --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu,"
        echo "exit ${PIPESTATUS[0]}"
      done
    done
  done
done
