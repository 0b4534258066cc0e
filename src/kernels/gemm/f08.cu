// Launcher of fp32 ladder step f08 (include/tessel/kernels/gemm/f08_thread_tile_16x8.cuh):
// 16x8 accumulators per thread on a 128 x 256 tile, one CTA per SM.
#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/kernels/gemm/f08_thread_tile_16x8.cuh"

namespace tessel::gemm_launch {

Status check_f08(const GemmArgs& a) {
  using Cfg = gemm_kernels::f08::Tile;
  return check_tile_grid(a, Cfg::kBM, Cfg::kBN, "f08");
}

Status launch_f08(const GemmArgs& a, cudaStream_t stream) {
  namespace k = gemm_kernels::f08;
  using Cfg = gemm_kernels::f08::Tile;
  return with_fp32_layouts(a, [&]<MajorA MA, MajorB MB>() {
    auto* kernel = &k::gemm_thread_tile_16x8<MA, MB, Cfg>;
    // 49 KB of stages: above the 48 KB that needs no opt-in.
    if (Status s = allow_smem(kernel, Cfg::kSmemBytes, "f08"); !s) return s;
    kernel<<<tile_grid(a, Cfg::kBM, Cfg::kBN).dim(), k::kThreads, Cfg::kSmemBytes, stream>>>(make_params<float>(a));
    return launch_status("f08");
  });
}

}  // namespace tessel::gemm_launch
