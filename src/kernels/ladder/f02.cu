// Launcher of fp32 ladder step f02 (include/tessel/kernels/gemm/f02_smem_fma.cuh):
// k02's kernel on fp32, K-major shared tiles; 256 threads per 128x128 tile of D.
#include "src/kernels/gemm/dispatch.hpp"
#include "tessel/kernels/gemm/f02_smem_fma.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::f02;

Status check_f02(const GemmArgs& a) { return check_tile_grid(a, k::kBM, k::kBN, "f02"); }

Status launch_f02(const GemmArgs& a, cudaStream_t stream) {
  return with_fp32_layouts(a, [&]<MajorA MA, MajorB MB>() {
    k::kernel<MA, MB><<<tile_grid(a, k::kBM, k::kBN).dim(), k::kThreads, 0, stream>>>(make_params<float>(a));
    return launch_status("f02");
  });
}

}  // namespace tessel::gemm_launch
