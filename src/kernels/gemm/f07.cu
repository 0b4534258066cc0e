// Launcher of fp32 ladder step f07 (include/tessel/kernels/gemm/f07_two_ctas_per_sm.cuh):
// f06's tiles under 128 registers, two CTAs per SM, four cp.async stages of 16 k.
#include "src/kernels/gemm/fp32_launch.hpp"
#include "tessel/kernels/gemm/f07_two_ctas_per_sm.cuh"

namespace tessel::gemm_launch {

// The same grid as f04..f06 (one CTA per 128x128 tile, x along N), so the same limits.
static_assert(gemm_kernels::f07::kBM == gemm_kernels::f04::kBM && gemm_kernels::f07::kBN == gemm_kernels::f04::kBN);

Status check_f07(const GemmArgs& a) { return check_fp32_pipelined(a, "f07"); }

Status launch_f07(const GemmArgs& a, cudaStream_t stream) {
  namespace k = gemm_kernels::f07;
  return with_fp32_layouts(a, [&]<MajorA MA, MajorB MB>() {
    auto* kernel = &k::gemm_two_ctas<MA, MB>;
    // 66 KB of stages: above the 48 KB that needs no opt-in.
    if (Status s = allow_smem(kernel, k::kSmemBytes, "f07"); !s) return s;
    kernel<<<tile_grid(a, k::kBM, k::kBN).dim(), k::kThreads, k::kSmemBytes, stream>>>(make_params<float>(a));
    return launch_status("f07");
  });
}

}  // namespace tessel::gemm_launch
