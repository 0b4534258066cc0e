#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck of the tensor-core ladder steps
# (k04..k12) through `tessel bench gemm --verify tier1`, at shapes that take
# every path: 257x129x192 (k11: TMA loads, D rows unaligned -> register
# epilogue), 128x256x64 (one full tile, TMA store), 1000x1000x65 (A rows
# unaligned -> padded copy of A for k09..k11), 1000x1000x64 (TMA loads and
# stores, partial tiles clipped by TMA).  Needs a GPU.
#   bash bench/sanitize_gemm.sh > sanitizer_gemm_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for tool in memcheck racecheck; do
  for shape in "257 129 192" "128 256 64" "1000 1000 65" "1000 1000 64"; do
    set -- $shape
    echo "== $tool M=$1 N=$2 K=$3"
    compute-sanitizer --tool "$tool" "$bin" bench gemm --m "$1" --n "$2" --k "$3" \
      --impl k04,k05,k06,k07,k08,k09,k10,k11,k12 --verify tier1 --warmup 1 --iterations 1 2>&1
  done
done
