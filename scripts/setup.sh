#!/usr/bin/env bash
# The first command of the README: install what is needed, build, and run the
# main job.  Without a GPU the main job is the layout calculator demo; with a
# GPU it also runs the GPU tests and the GEMM benchmark against cuBLAS.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
preset=$(bash scripts/preset.sh)
# The ladder's teaching steps in every layout where a GPU runs them, one
# instance each elsewhere (scripts/ladder.sh).
cmake --preset "$preset" -DTESSEL_LADDER_INSTANCES="$(bash scripts/ladder.sh)" >/dev/null
cmake --build --preset "$preset" --parallel "$(bash scripts/jobs.sh)"  # scripts/jobs.sh: cores, memory
bin="build/$preset/tessel"
echo
echo "== tessel layout calculator demo =="
for e in 'logical_divide((6,20):(20,1),<2,4>)' 'zipped_divide((6,20):(20,1),<2,4>)' \
         'composition((6,2):(8,2),(4,3):(3,1))' 'complement(4:2,24)' \
         'tile_to_shape(Sw<3,3,3>o((8,(8,8)):(8,(1,64))),(128,64))' 'composition((4,2):(2,1),(4,3):(12,2))'; do
  printf "\$ tessel layout '%s'\n" "$e"
  "$bin" layout "$e" || true
done
echo "\$ tessel layout --format ascii 'Sw<3,0,3>o((8,8):(8,1))'   # an 8x8 XOR swizzle"
"$bin" layout --format ascii 'Sw<3,0,3>o((8,8):(8,1))'
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x "build/$preset/tests/cuda/layout_gpu_test" ]; then
  echo
  echo "== GPU: tests, the copy benchmark, then the GEMM benchmark =="
  for t in layout_gpu_test arch_sm80_test arch_sm90_golden_test arch_sm90_tensor_map_test arch_sm90_wgmma_test \
           arch_sm90_tma_test arch_sm90_sync_test tiled_mma_test wgmma_atom_test copy_kernels_test gemm_test; do
    [ -x "build/$preset/tests/cuda/$t" ] && "build/$preset/tests/cuda/$t" --gtest_brief=1
  done
  "$bin" bench copy --sizes 256,1024
  # The main job: the suite with the plan's choice per shape (`auto`) against
  # cuBLASLt in the same run (verified, then timed).
  "$bin" bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas
fi
