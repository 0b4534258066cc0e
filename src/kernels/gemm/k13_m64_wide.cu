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

#if defined(TESSEL_LADDER_ONE_INSTANCE)
// A one-instance build (the SASS record's) instantiates the kernels' bf16 <A:k, B:n> only, whose B (the caller's A
// of a swapped problem) is N-major, which these widths cannot read: it compiles instead the form that `auto` runs
// for a caller's A:k, B:n (swapped: the kernel's A:m, B:k), so that the record guards that machine code.
namespace tessel::gemm_kernels::k13 {
#define TESSEL_K13_WIDE(W)                                                                                           \
  template __global__ void gemm_wgmma_in_flight<__nv_bfloat16, MajorA::m, MajorB::k, Config<W, false, 64>>(          \
      const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, \
      bool, bool, Config<W, false, 64>::ParamsOf<__nv_bfloat16>, SplitK, int);
TESSEL_K13_WIDE(48)
TESSEL_K13_WIDE(80)
TESSEL_K13_WIDE(96)
#undef TESSEL_K13_WIDE
}  // namespace tessel::gemm_kernels::k13
#endif
