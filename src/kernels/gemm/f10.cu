// Launcher of fp32 ladder step f10 (include/tessel/kernels/gemm/f10_tma_loads.cuh):
// TMA loads of A and B, a 128 x 256 tile, one CTA per SM.  f10's kernel
// takes B:n with A:k or A:m whose rows TMA can describe and whose C and D
// tiles have offsets that fit in int (k10::make_out, narrow_offsets: the
// epilogue computes them in 32 bits); every other problem runs f08's kernel
// (the same results, f08's speed), so that f10, like every step, serves any
// M, N, K >= 1 and all four layouts.
#include "src/kernels/gemm/f10_launch.hpp"

namespace tessel::gemm_launch {

bool f10_kernel_applies(const GemmArgs& a) { return f10_maps::kernel_applies(a); }

Status check_f10(const GemmArgs& a) {
  f10_maps::k10::Out out;
  if (!f10_maps::kernel_runs(a, out)) return check_f08(a);
  return check_tile_grid(a, f10_maps::k10::kBM, f10_maps::k10::kBN, "f10");
}

Status launch_f10(const GemmArgs& a, cudaStream_t stream) {
  namespace k10 = f10_maps::k10;
  k10::Out out;
  if (!f10_maps::kernel_runs(a, out)) return launch_f08(a, stream);
  CUtensorMap map_a, map_b;
  if (Status s = f10_maps::make_maps(a, map_a, map_b, "f10"); !s) return s;
  const auto run = [&]<MajorA MA>() {
    auto* kernel = &k10::gemm_tma_loads<MA>;
    if (Status s = allow_smem(kernel, k10::kSmemBytes, "f10"); !s) return s;
    kernel<<<tile_grid(a, k10::kBM, k10::kBN).dim(), k10::kThreads, k10::kSmemBytes, stream>>>(
        map_a, map_b, make_params<float>(a), out);
    return launch_status("f10");
  };
  return a.layout.a == MajorA::k ? run.template operator()<MajorA::k>() : run.template operator()<MajorA::m>();
}

}  // namespace tessel::gemm_launch
