// Launcher of ladder step k04 (include/tessel/kernels/gemm/k04_mma_sync.cuh).
#include "src/kernels/gemm/mma_launch.hpp"
#include "tessel/kernels/gemm/k04_mma_sync.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k04;

Status check_k04(const GemmArgs& a) { return check_tile_grid(a, k::kBM, k::kBN, "k04"); }

Status launch_k04(const GemmArgs& a, cudaStream_t stream) {
  return with_types(a, [&]<class T, MajorA MA, MajorB MB>() {
    const dim3 grid(static_cast<unsigned>(ceil_div(a.n, index_t{k::kBN})),
                    static_cast<unsigned>(ceil_div(a.m, index_t{k::kBM})));
    k::gemm_mma_sync<T, MA, MB><<<grid, k::kThreads, 0, stream>>>(make_params<T>(a));
    return launch_status("k04");
  });
}

}  // namespace tessel::gemm_launch
