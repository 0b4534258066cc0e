// Launcher of fp32 ladder step f01 (include/tessel/kernels/gemm/f01_naive.cuh):
// 16x16 threads per block, one thread per element of D.
#include "src/kernels/gemm/dispatch.hpp"
#include "tessel/kernels/gemm/f01_naive.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::f01;

Status check_f01(const GemmArgs& a) { return check_tile_grid(a, k::kBlockY, k::kBlockX, "f01"); }

Status launch_f01(const GemmArgs& a, cudaStream_t stream) {
  return with_fp32_layouts(a, [&]<MajorA MA, MajorB MB>() {
    const dim3 block(k::kBlockX, k::kBlockY);
    k::kernel<MA, MB><<<tile_grid(a, k::kBlockY, k::kBlockX).dim(), block, 0, stream>>>(make_params<float>(a));
    return launch_status("f01");
  });
}

}  // namespace tessel::gemm_launch
