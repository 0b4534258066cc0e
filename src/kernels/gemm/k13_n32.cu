// k13's kernels with tile 128 x 32, and the swapped one-warpgroup 64 x 32 (src/kernels/gemm/k13_launch.hpp).
#include "src/kernels/gemm/k13_tiles.hpp"

namespace tessel::gemm_launch::k13 {

template <>
Status launch_tiles<32>(const GemmArgs& g, cudaStream_t stream, bool transposed) {
  return launch_tiles_of<32>(g, stream, transposed);
}

template <>
Status launch_tiles_m64<32>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<32, false, 64>(g, stream, true);
}

}  // namespace tessel::gemm_launch::k13
