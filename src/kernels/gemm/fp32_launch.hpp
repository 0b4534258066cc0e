// What the launchers of the pipelined fp32 steps (f04..f06) share: one
// kernel (f04::gemm_pipelined) configured per step, one CTA of 256 threads
// per 128x128 tile of D, dynamic shared memory (opted in above 48 KB).
#pragma once

#include "src/kernels/gemm/dispatch.hpp"
#include "src/kernels/gemm/mma_launch.hpp"
#include "tessel/kernels/gemm/f04_double_buffer.cuh"

namespace tessel::gemm_launch {

inline Status check_fp32_pipelined(const GemmArgs& a, const char* step) {
  return check_tile_grid(a, gemm_kernels::f04::kBM, gemm_kernels::f04::kBN, step);
}

template <class Cfg>
Status launch_fp32_pipelined(const GemmArgs& a, cudaStream_t stream, const char* step) {
  namespace k = gemm_kernels::f04;
  return with_fp32_layouts(a, [&]<MajorA MA, MajorB MB>() {
    auto* kernel = &k::gemm_pipelined<Cfg, MA, MB>;
    constexpr int smem = k::smem_bytes<Cfg>();
    if constexpr (smem > 48 * 1024) {
      if (Status s = allow_smem(kernel, smem, step); !s) return s;
    }
    kernel<<<tile_grid(a, k::kBM, k::kBN).dim(), k::kThreads, smem, stream>>>(make_params<float>(a));
    return launch_status(step);
  });
}

}  // namespace tessel::gemm_launch
