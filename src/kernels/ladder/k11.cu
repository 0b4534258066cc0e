// Launcher of ladder step k11 (include/tessel/kernels/gemm/k11_tma_store_epilogue.cuh):
// TMA maps for A, B and D, then one persistent CTA per SM.  An A or B whose
// rows TMA cannot describe is first copied into a temporary with padded rows
// (tma_warp_specialized_launch.hpp); a D it cannot describe is written by the
// register epilogue.
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "tessel/kernels/gemm/k11_tma_store_epilogue.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k11;

namespace {
/// k11's epilogue per output type, as tma::d_store_map takes it.
template <class T>
struct EpilogueOf {
  template <class U>
  using Epi = k::Epilogue<T, U>;
};
}  // namespace

Status check_k11(const GemmArgs& a) { return tma::check(a, "k11"); }

Status launch_k11(const GemmArgs& a, cudaStream_t stream) {
  return tma::launch(a, stream, "k11", [stream](const GemmArgs& g) {
    return with_types(g, [&]<class T, MajorA MA, MajorB MB>() {
      CUtensorMap map_a, map_b;
      if (Status s = tma::operand_maps<T, MA, MB>(g, map_a, map_b, "k11"); !s) return s;
      // D through TMA stores when its rows allow it; otherwise (or if the map
      // cannot be encoded) the register epilogue writes it.
      CUtensorMap map_d{};
      const bool tma_store = tma::d_store_map<EpilogueOf<T>::template Epi>(g, map_d, "k11");
      auto* kernel = &k::gemm_tma_store_epilogue<T, MA, MB>;
      constexpr int smem = k::kSmemBytes<T, MA, MB>;
      if (Status s = allow_smem(kernel, smem, "k11"); !s) return s;
      dim3 grid;
      if (Status s = tma::persistent_grid(g, "k11", grid); !s) return s;
      kernel<<<grid, k::kThreads, smem, stream>>>(map_a, map_b, map_d, tma_store, make_params<T>(g));
      return launch_status("k11");
    });
  });
}

}  // namespace tessel::gemm_launch
