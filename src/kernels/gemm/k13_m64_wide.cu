// k13's swapped one-warpgroup tiles 64 x 48, 64 x 80 and 64 x 96 (src/kernels/gemm/k13_launch.hpp): 64 rows of N by
// that much of M, A read K-major.
#include "src/kernels/gemm/k13_tiles.hpp"

namespace tessel::gemm_launch::k13 {

template <>
Status launch_tiles_m64<48>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<48, false, 64>(g, stream, true);
}

template <>
Status launch_tiles_m64<80>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<80, false, 64>(g, stream, true);
}

template <>
Status launch_tiles_m64<96>(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<96, false, 64>(g, stream, true);
}

}  // namespace tessel::gemm_launch::k13
