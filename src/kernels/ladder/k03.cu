// Launcher of ladder step k03 (include/tessel/kernels/gemm/k03_smem_padded.cuh):
// k02's kernel with padded, bank-conflict-free shared tiles.
#include "src/kernels/gemm/dispatch.hpp"
#include "tessel/kernels/gemm/k03_smem_padded.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k03;

Status check_k03(const GemmArgs& a) { return check_tile_grid(a, k::kBM, k::kBN, "k03"); }

Status launch_k03(const GemmArgs& a, cudaStream_t stream) {
  return with_types(a, [&]<class T, MajorA MA, MajorB MB>() {
    gemm_kernels::k02::gemm_smem_fma<T, MA, MB, k::SmemPadded>
        <<<tile_grid(a, k::kBM, k::kBN).dim(), k::kThreads, 0, stream>>>(make_params<T>(a));
    return launch_status("k03");
  });
}

}  // namespace tessel::gemm_launch
