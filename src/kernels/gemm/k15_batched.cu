// k15's batched kernel (include/tessel/kernels/gemm/k15_grouped.cuh): k13
// grouped's descriptors and launch (k13_grouped_tiles.hpp) with k15's tiles
// and kernel.  Whether it serves a call is decided in k13_grouped.cu.
#include "src/kernels/gemm/k13_grouped_tiles.hpp"
#include "src/kernels/gemm/k15_launch.hpp"
#include "tessel/gemm_plan.hpp"
#include "tessel/kernels/gemm/k15_grouped.cuh"

namespace tessel::gemm_launch::k15 {

namespace {

/// k15's pingpong kernel over a k13::GroupSet, as launch_grouped_with takes it.
template <int Stages>
struct BatchedFamily {
  template <class T, MajorA MA, MajorB MB>
  using Tiles = gemm_kernels::k15::Tiles<T, MA, MB, gemm_kernels::k15::BatchedConfig<Stages>>;
  template <class T, MajorA MA, MajorB MB>
  static constexpr auto kernel() {
    return &gemm_kernels::k15::gemm_pingpong_grouped<T, MA, MB, Stages>;
  }
  static constexpr int kThreads = gemm_kernels::k15::kThreads;
  static constexpr const char* kName = "k15 batched";
};

}  // namespace

Status launch_batched_tiles(const GemmArgs& g, cudaStream_t stream) {
  int sms = 0;
  if (Status s = tma::sm_count("k15 batched", sms); !s) return s;
  // Rule 11c (gemm_plan.hpp): the pipeline's depth.
  return batched_stages_for(g.m, g.n, g.k, sms) == 3 ? k13::launch_grouped_with<BatchedFamily<3>>(&g, 1, stream)
                                                     : k13::launch_grouped_with<BatchedFamily<4>>(&g, 1, stream);
}

}  // namespace tessel::gemm_launch::k15
