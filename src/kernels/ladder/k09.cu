// Launcher of ladder step k09 (include/tessel/kernels/gemm/k09_tma_mbarriers.cuh):
// TMA maps for A and B, then one CTA per tile.  An A or B whose rows TMA
// cannot describe is first copied into a temporary with padded rows
// (tma_warp_specialized_launch.hpp).
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "tessel/kernels/gemm/k09_tma_mbarriers.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k09;

Status check_k09(const GemmArgs& a) { return tma::check(a, "k09"); }

Status launch_k09(const GemmArgs& a, cudaStream_t stream) {
  return tma::launch(a, stream, "k09", [stream](const GemmArgs& g) {
    return with_types(g, [&]<class T, MajorA MA, MajorB MB>() {
      CUtensorMap map_a, map_b;
      if (Status s = tma::operand_maps<T, MA, MB>(g, map_a, map_b, "k09"); !s) return s;
      auto* kernel = &k::gemm_tma_mbarriers<T, MA, MB>;
      constexpr int smem = k::kSmemBytes<T, MA, MB>;
      if (Status s = allow_smem(kernel, smem, "k09"); !s) return s;
      // One CTA per tile; the kernel maps blockIdx.x to its tile by the grouped raster.
      const index_t tiles = ceil_div(g.m, index_t{k::kBM}) * ceil_div(g.n, index_t{k::kBN});
      kernel<<<dim3(static_cast<unsigned>(tiles)), k::kThreads, smem, stream>>>(map_a, map_b, make_params<T>(g));
      return launch_status("k09");
    });
  });
}

}  // namespace tessel::gemm_launch
