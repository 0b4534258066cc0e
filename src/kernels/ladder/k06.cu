// Launcher of ladder step k06 (include/tessel/kernels/gemm/k06_grouped_raster.cuh).
#include "src/kernels/gemm/mma_launch.hpp"
#include "tessel/kernels/gemm/k06_grouped_raster.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k06;

Status check_k06(const GemmArgs& a) { return check_tiles_linear(a, k::kBM, k::kBN, "k06"); }

Status launch_k06(const GemmArgs& a, cudaStream_t stream) {
  return with_types(a, [&]<class T, MajorA MA, MajorB MB>() {
    auto* kernel = k::kernel<T, MA, MB>;
    constexpr int smem = k::kSmemBytes<T, MA, MB>;
    if (Status s = allow_smem(kernel, smem, "k06"); !s) return s;
    const dim3 grid =
        gemm_kernels::GroupedRaster<k::kGroup>::grid(ceil_div(a.m, index_t{k::kBM}), ceil_div(a.n, index_t{k::kBN}));
    kernel<<<grid, k::kThreads, smem, stream>>>(make_params<T>(a));
    return launch_status("k06");
  });
}

}  // namespace tessel::gemm_launch
