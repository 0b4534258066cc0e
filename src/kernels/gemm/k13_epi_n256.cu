// k13's fused-epilogue kernels with tile 128 x 256 (src/kernels/gemm/k13_launch.hpp,
// docs/epilogues.md): a translation unit of their own, so that the plain
// instances (k13_n256.cu) keep their code and nvcc compiles both in parallel.
#include "src/kernels/gemm/k13_tiles.hpp"

namespace tessel::gemm_launch::k13 {

template <>
Status launch_fused_tiles<256>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<256, true>(g, stream, false);
}

}  // namespace tessel::gemm_launch::k13
