// k13's batched and grouped kernels with tile 128 x 128 (src/kernels/gemm/k13_grouped_launch.hpp).
#include "src/kernels/gemm/k13_grouped_tiles.hpp"

namespace tessel::gemm_launch::k13 {

template <>
Status launch_grouped_tiles<128>(const GemmArgs* problems, int count, cudaStream_t stream) {
  return launch_grouped_with<GroupedFamily<128>>(problems, count, stream);
}

}  // namespace tessel::gemm_launch::k13
