// Launcher of ladder step k01 (include/tessel/kernels/gemm/k01_naive.cuh):
// 16x16 threads per block, one thread per element of D.
#include "src/kernels/gemm/dispatch.hpp"
#include "tessel/kernels/gemm/k01_naive.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k01;

Status check_k01(const GemmArgs& a) { return check_tile_grid(a, k::kBlockY, k::kBlockX, "k01"); }

Status launch_k01(const GemmArgs& a, cudaStream_t stream) {
  return with_types(a, [&]<class T, MajorA MA, MajorB MB>() {
    const dim3 block(k::kBlockX, k::kBlockY);
    k::gemm_naive<T, MA, MB><<<tile_grid(a, k::kBlockY, k::kBlockX).dim(), block, 0, stream>>>(make_params<T>(a));
    return launch_status("k01");
  });
}

}  // namespace tessel::gemm_launch
