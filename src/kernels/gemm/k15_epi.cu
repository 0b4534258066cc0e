// k15's fused-epilogue kernels (src/kernels/gemm/k15_launch.hpp).
#include "src/kernels/gemm/k15_tiles.hpp"

namespace tessel::gemm_launch::k15 {

template <>
Status launch_tiles<true>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<true>(g, stream);
}

}  // namespace tessel::gemm_launch::k15
