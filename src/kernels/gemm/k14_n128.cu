// k14's kernels with tile 128 x 128, and with the one-warpgroup 64 x 128 (src/kernels/gemm/k14_launch.hpp).
#include "src/kernels/gemm/k14_tiles.hpp"

namespace tessel::gemm_launch::k14 {

template <>
Status launch_tiles<128>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<128>(g, stream);
}

Status launch_tiles_m64_n128(const GemmArgs& g, cudaStream_t stream) { return launch_tiles_of<128, 64>(g, stream); }

}  // namespace tessel::gemm_launch::k14
