// k13's kernels with tile 128 x 128, and the unswapped one-warpgroup 64 x 128 (src/kernels/gemm/k13_launch.hpp).
#include "src/kernels/gemm/k13_tiles.hpp"

namespace tessel::gemm_launch::k13 {

template <>
Status launch_tiles<128>(const GemmArgs& g, cudaStream_t stream, bool transposed) {
  return launch_tiles_of<128>(g, stream, transposed);
}

Status launch_tiles_m64_n128(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<128, false, 64>(g, stream, false);
}

}  // namespace tessel::gemm_launch::k13
