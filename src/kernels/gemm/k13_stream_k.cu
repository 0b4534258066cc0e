// k13's stream-K instance: tile 128 x 256 with the waves' remainder shared
// along K by every SM (gk::Config<256, false, true>; blocks::StreamKScheduler,
// docs/ladder.md "k13 stream-K").  Its own translation unit: the plain
// widths' compile times stay as they were.
#include "src/kernels/gemm/k13_tiles.hpp"

namespace tessel::gemm_launch::k13 {

Status launch_stream_k_tiles(const GemmArgs& g, cudaStream_t stream) {
  return launch_tiles_of<256, false, true>(g, stream, false);
}

}  // namespace tessel::gemm_launch::k13
