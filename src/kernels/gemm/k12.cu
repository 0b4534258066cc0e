// Launcher of ladder step k12 (include/tessel/kernels/gemm/k12_wgmma.cuh): the
// same maps, padded copies and epilogue choice as k11 (its launcher), the
// wgmma kernel.
#include "src/kernels/gemm/tma_warp_specialized_launch.hpp"
#include "tessel/kernels/gemm/k12_wgmma.cuh"

namespace tessel::gemm_launch {

namespace k = gemm_kernels::k12;
namespace k11 = gemm_kernels::k11;

Status check_k12(const GemmArgs& a) { return tma::check(a, "k12"); }

Status launch_k12(const GemmArgs& a, cudaStream_t stream) {
  return tma::launch(a, stream, "k12", [stream](const GemmArgs& g) {
    return with_types(g, [&]<class T, MajorA MA, MajorB MB>() {
      CUtensorMap map_a, map_b;
      if (Status s = tma::operand_maps<T, MA, MB>(g, map_a, map_b, "k12"); !s) return s;
      // D through TMA stores when its rows allow it; otherwise (or if the map
      // cannot be encoded) the register epilogue writes it.
      CUtensorMap map_d{};
      bool tma_store = false;
      if (tma::tma_ready(g.d, g.ldd, size_bytes(g.cd_type))) {
        const auto map_d_of = [&]<class U>() {
          using Tma = typename k::Epilogue<T, MA, MB, U>::Tma;
          // D's rows must fill whole 16-byte granules, or TMA would write into
          // its row padding (docs/hardware.md §10.2): else the register epilogue writes D.
          return tma::map_of<Tma>(map_d, static_cast<const U*>(g.d), {g.m, g.n}, {g.ldd, index_t{1}}, "D", "k12",
                                  TmaUse::store);
        };
        const Status sd = g.cd_type == DType::bf16  ? map_d_of.template operator()<__nv_bfloat16>()
                          : g.cd_type == DType::f16 ? map_d_of.template operator()<__half>()
                                                    : map_d_of.template operator()<float>();
        tma_store = sd.is_ok();
      }
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
