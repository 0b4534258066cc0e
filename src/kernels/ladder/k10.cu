// Launcher of ladder step k10 (include/tessel/kernels/gemm/k10_persistent_warpgroup.cuh):
// TMA maps for A and B, then one persistent CTA per SM.  An A or B whose
// rows TMA cannot describe is first copied into a temporary with padded rows
// (tma_warp_specialized_launch.hpp).
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "tessel/kernels/gemm/k10_persistent_warpgroup.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k10;

Status check_k10(const GemmArgs& a) { return tma::check(a, "k10"); }

Status launch_k10(const GemmArgs& a, cudaStream_t stream) {
  return tma::launch(a, stream, "k10", [stream](const GemmArgs& g) {
    return with_types(g, [&]<class T, MajorA MA, MajorB MB>() {
      CUtensorMap map_a, map_b;
      if (Status s = tma::operand_maps<T, MA, MB>(g, map_a, map_b, "k10"); !s) return s;
      auto* kernel = &k::gemm_persistent_warpgroup<T, MA, MB>;
      constexpr int smem = k::kSmemBytes<T, MA, MB>;
      if (Status s = allow_smem(kernel, smem, "k10"); !s) return s;
      dim3 grid;
      if (Status s = tma::persistent_grid(g, "k10", grid); !s) return s;
      kernel<<<grid, k::kThreads, smem, stream>>>(map_a, map_b, make_params<T>(g));
      return launch_status("k10");
    });
  });
}

}  // namespace tessel::gemm_launch
