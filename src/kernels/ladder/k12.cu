// Launcher of ladder step k12 (include/tessel/kernels/gemm/k12_wgmma.cuh): the
// same maps, padded copies and epilogue choice as k11 (its launcher), the
// wgmma kernel.
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "tessel/kernels/gemm/k12_wgmma.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k12;
namespace k11 = gemm_kernels::k11;

namespace {
/// k12's epilogue per output type, as tma::d_store_map takes it.
template <class T, MajorA MA, MajorB MB>
struct EpilogueOf {
  template <class U>
  using Epi = k::Epilogue<T, MA, MB, U>;
};
}  // namespace

Status check_k12(const GemmArgs& a) { return tma::check(a, "k12"); }

Status launch_k12(const GemmArgs& a, cudaStream_t stream) {
  return tma::launch(a, stream, "k12", [stream](const GemmArgs& g) {
    return with_types(g, [&]<class T, MajorA MA, MajorB MB>() {
      CUtensorMap map_a, map_b;
      if (Status s = tma::operand_maps<T, MA, MB>(g, map_a, map_b, "k12"); !s) return s;
      // D through TMA stores when its rows allow it; otherwise (or if the map
      // cannot be encoded) the register epilogue writes it.
      CUtensorMap map_d{};
      const bool tma_store = tma::d_store_map<EpilogueOf<T, MA, MB>::template Epi>(g, map_d, "k12");
      auto* kernel = &k::gemm_wgmma<T, MA, MB>;
      constexpr int smem = k11::kSmemBytes<T, MA, MB>;
      if (Status s = allow_smem(kernel, smem, "k12"); !s) return s;
      dim3 grid;
      if (Status s = tma::persistent_grid(g, "k12", grid); !s) return s;
      kernel<<<grid, k::kThreads, smem, stream>>>(map_a, map_b, map_d, tma_store, make_params<T>(g));
      return launch_status("k12");
    });
  });
}

}  // namespace tessel::gemm_launch
