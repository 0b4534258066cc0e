// The body of k15's launchers (k15.cu: plain, instances.cu: fused): the maps of
// A, B and D, the persistent grid, and the launch.
#pragma once

#include "src/kernels/gemm/instances.hpp"
#include "src/kernels/gemm/k13_tiles.hpp"
#include "tessel/kernels/gemm/k15_pingpong.cuh"

namespace tessel::gemm_launch::k15 {

namespace gk = gemm_kernels::k15;

template <bool Fused>
Status launch_tiles_of(const GemmArgs& g, cudaStream_t stream) {
  using Cfg = gk::Config<Fused>;
  return with_types(g, [&]<class T, MajorA MA, MajorB MB>() {
    using X = gk::Tiles<T, MA, MB, Cfg>;
    CUtensorMap map_a, map_b;
    if (Status s = tma::operand_maps<T, MA, MB, X>(g, map_a, map_b, "k15"); !s) return s;
    CUtensorMap map_d{};
    bool tma_store = tma::d_store_map<X::template Epilogue>(g, map_d, "k15");
    const void* kernel = reinterpret_cast<const void*>(&gk::gemm_pingpong<T, MA, MB, Cfg>);
    if (Status s = allow_smem(kernel, X::kSmemBytes, "k15"); !s) return s;
    // One CTA per SM, or one per tile where there are fewer (a CTA with one
    // tile leaves its second consumer warpgroup idle).
    const index_t tiles = ceil_div(g.m, index_t{gk::kBM}) * ceil_div(g.n, index_t{gk::kBN});
    dim3 grid;
    if (Status s = tma::persistent_grid(g, "k15", grid, tiles); !s) return s;
    auto params = k13::params_of<Cfg, T>(g);  // Params<T>, or FusedParams<T> with g's epilogue
    int group = g.tuning.raster_group < 1 ? 8 : g.tuning.raster_group;
    void* args[] = {&map_a, &map_b, &map_d, &tma_store, &params, &group};
    (void)cudaLaunchKernel(kernel, grid, dim3(gk::kThreads), args, static_cast<std::size_t>(X::kSmemBytes), stream);
    return launch_status("k15");
  });
}

}  // namespace tessel::gemm_launch::k15
