#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck of the best fp32 steps
# (f08, f09, f10, f11, f12) through `tessel bench gemm --dtype fp32 --verify tier1`, at
# shapes that take every path: 256x128x64 (one full tile of f08/f09, two
# of f10; every k-tile inside: f09's spread copies), 515x260x77 (partial tiles and a partial last
# k-tile: the edge copies, the element-wise epilogue), 1024x1024x1024 (memcheck
# only; racecheck takes minutes per launch there).  Only the fp32 kernels
# are instrumented (--kernel-name kns=thread_tile, tma_loads, stream_k or transpose); verified,
# not timed (--order none).  LAYOUT picks the layout (default A:k,B:n; f10's
# best is A:m,B:n), IMPLS the steps.  Needs a GPU.
#   bash bench/sanitize_fp32.sh > sanitizer_fp32_<gpu>.log
#   IMPLS=f10 LAYOUT=A:m,B:n bash bench/sanitize_fp32.sh > sanitizer_fp32_f10_mn_<gpu>.log
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${TESSEL_BIN:-build/sm90a/tessel}
for impl in ${IMPLS:-f10 f09 f08}; do
  kernel=thread_tile
  shapes=("256 128 64" "515 260 77" "1024 1024 1024")
  [ "$impl" = f10 ] && kernel=tma_loads
  # f11: one whole tile (no sharing), then shapes whose tiles are shared along
  # K on 132 SMs: 10 tiles of 132 k-tiles with edges in M, N and K, and 4
  # tiles of 264 k-tiles (33 CTAs on each tile: 32 contributions per owner).
  [ "$impl" = f11 ] && kernel=stream_k && shapes=("256 128 64" "515 260 2100" "256 512 4224" "1024 1024 1024")
  # f12: its operand transposes (f11's kernel, which runs on the copies, is
  # f11's run above), on f11's shapes: edges in every dimension of A and B.
  [ "$impl" = f12 ] && kernel=transpose && shapes=("256 128 64" "515 260 2100" "256 512 4224" "1024 1024 1024")
  for tool in ${TOOLS:-memcheck racecheck synccheck}; do
    for shape in "${shapes[@]}"; do
      set -- $shape
      [ "$tool" != memcheck ] && [ "$1" = 1024 ] && continue
      echo "== $impl $tool M=$1 N=$2 K=$3 ${LAYOUT:-A:k,B:n}"
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 --kernel-name "kns=$kernel" "$bin" bench gemm \
        --dtype fp32 --m "$1" --n "$2" --k "$3" --impl "$impl" --layout "${LAYOUT:-A:k,B:n}" --verify tier1 --order none 2>&1 |
        grep -v "^NVIDIA\|^gpu,"
      echo "exit ${PIPESTATUS[0]}"
    done
  done
done
