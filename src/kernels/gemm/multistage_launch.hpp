// Launch of a MultistageConfig (k07, k08): smem opt-in, grid by raster.
#pragma once

#include "src/kernels/gemm/mma_launch.hpp"
#include "tessel/kernels/gemm/k07_three_stages.cuh"

namespace tessel::gemm_launch {

template <class Cfg>
Status check_multistage(const GemmArgs& a, const char* step) {
  return check_tiles_linear(a, Cfg::kBM, Cfg::kBN, step);
}

template <class Cfg>
Status launch_multistage(const GemmArgs& a, cudaStream_t stream, const char* step) {
  return with_types(a, [&]<class T, MajorA MA, MajorB MB>() {
    auto* kernel = &gemm_kernels::gemm_multistage<T, MA, MB, Cfg>;
    constexpr int smem = Cfg::template smem_bytes<T, MA, MB>();
    if (Status s = allow_smem(kernel, smem, step); !s) return s;
    const dim3 grid = Cfg::raster::grid(ceil_div(a.m, index_t{Cfg::kBM}), ceil_div(a.n, index_t{Cfg::kBN}));
    kernel<<<grid, Cfg::kThreads, smem, stream>>>(make_params<T>(a));
    return launch_status(step);
  });
}

}  // namespace tessel::gemm_launch
