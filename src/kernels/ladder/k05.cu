// Launcher of ladder step k05 (include/tessel/kernels/gemm/k05_double_buffer.cuh).
#include "src/kernels/gemm/mma_launch.hpp"
#include "tessel/kernels/gemm/k05_double_buffer.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k05;

Status check_k05(const GemmArgs& a) { return check_tile_grid(a, k::kBM, k::kBN, "k05"); }

Status launch_k05(const GemmArgs& a, cudaStream_t stream) {
  return with_types(a, [&]<class T, MajorA MA, MajorB MB>() {
    auto* kernel = &k::gemm_double_buffer<T, MA, MB, gemm_kernels::RowBand>;
    constexpr int smem = k::kSmemBytes<T, MA, MB>;
    if (Status s = allow_smem(kernel, smem, "k05"); !s) return s;
    const dim3 grid = gemm_kernels::RowBand::grid(ceil_div(a.m, index_t{k::kBM}), ceil_div(a.n, index_t{k::kBN}));
    kernel<<<grid, k::kThreads, smem, stream>>>(make_params<T>(a));
    return launch_status("k05");
  });
}

}  // namespace tessel::gemm_launch
