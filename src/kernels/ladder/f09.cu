// Launcher of fp32 ladder step f09 (include/tessel/kernels/gemm/f09_spread_copies.cuh):
// f08's kernel with the next k-tile's copies spread over the k-steps.
#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/kernels/gemm/f09_spread_copies.cuh"

namespace tessel::gemm_launch {

Status check_f09(const GemmArgs& a) {
  using Cfg = gemm_kernels::f09::Cfg;
  return check_tile_grid(a, Cfg::kBM, Cfg::kBN, "f09");
}

Status launch_f09(const GemmArgs& a, cudaStream_t stream) {
  namespace k = gemm_kernels::f09;
  using Cfg = gemm_kernels::f09::Cfg;
  return with_fp32_layouts(a, [&]<MajorA MA, MajorB MB>() {
    auto* kernel = k::kernel<MA, MB>;
    if (Status s = allow_smem(kernel, Cfg::kSmemBytes, "f09"); !s) return s;
    kernel<<<tile_grid(a, Cfg::kBM, Cfg::kBN).dim(), k::kThreads, Cfg::kSmemBytes, stream>>>(make_params<float>(a));
    return launch_status("f09");
  });
}

}  // namespace tessel::gemm_launch
