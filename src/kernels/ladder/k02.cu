// Launcher of ladder step k02 (include/tessel/kernels/gemm/k02_smem_fma.cuh):
// 256 threads per 128x128 tile of D, K-major shared tiles.
#include "src/kernels/gemm/dispatch.hpp"
#include "tessel/kernels/gemm/k02_smem_fma.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k02;

Status check_k02(const GemmArgs& a) { return check_tile_grid(a, k::kBM, k::kBN, "k02"); }

Status launch_k02(const GemmArgs& a, cudaStream_t stream) {
  return with_types(a, [&]<class T, MajorA MA, MajorB MB>() {
    k::gemm_smem_fma<T, MA, MB, k::SmemKMajor>
        <<<tile_grid(a, k::kBM, k::kBN).dim(), k::kThreads, 0, stream>>>(make_params<T>(a));
    return launch_status("k02");
  });
}

}  // namespace tessel::gemm_launch
