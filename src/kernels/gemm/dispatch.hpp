// What every launcher of the ladder shares: the dispatch from run-time
// arguments (input type x layout) to one of 8 kernel instantiations, and the
// CUDA grid limits of a tiled launch.
//
//   Status launch_kNN(const GemmArgs& a, cudaStream_t s) {
//     return with_types(a, [&]<class T, MajorA MA, MajorB MB>() {
//       const TileGrid g = tile_grid(a, BM, BN);
//       kernel<T, MA, MB><<<g.dim(), threads, 0, s>>>(make_params<T>(a));
//       return launch_status("kNN");
//     });
//   }
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

#include "src/kernels/gemm/launch.hpp"
#include "src/kernels/gemm/params.hpp"

namespace tessel::gemm_launch {

#if defined(TESSEL_LADDER_ONE_INSTANCE) && !defined(TESSEL_GEMM_ONE_INSTANCE)
// A teaching step of the ladder built with TESSEL_LADDER_INSTANCES=one, or
// any step built with TESSEL_GEMM_INSTANCES=one: one
// instantiation, bf16 with A:k, B:n (fp32 steps: A:m, B:n), and a status for
// every other call (gemm_check refuses those first: this is the launchers'
// guard against running the wrong instance).  scripts/test.sh builds so where no GPU is present, where
// the kernels are compile checks and SASS checks only; docs/design.md
// ("The teaching ladder's instance set").  The functions live in an unnamed
// namespace: the other translation units' with_types are another function.
namespace {
inline Status ladder_instance_missing(bool fp32) {
  return Status::failure(Status::unsupported, "this build holds the step for " + one_instance_rule(fp32));
}
template <class F>
Status with_types(const GemmArgs& a, F&& f) {
  if (!is_one_instance_call(false, a.ab_type, a.layout)) return ladder_instance_missing(false);
  return f.template operator()<__nv_bfloat16, MajorA::k, MajorB::n>();
}
template <class F>
Status with_fp32_layouts(const GemmArgs& a, F&& f) {
  if (!is_one_instance_call(true, a.ab_type, a.layout)) return ladder_instance_missing(true);
  return f.template operator()<MajorA::m, MajorB::n>();
}
/// with_types for a swapped problem (k13's D^T = B^T A^T): the instance the
/// one call this build serves (bf16, A:k, B:n) runs swapped, A:m, B:k, so
/// that such a build runs it and the SASS record guards the code that runs.
template <class F>
Status with_swapped_types(const GemmArgs& a, F&& f) {
  if (a.ab_type != DType::bf16 || a.layout.a != MajorA::m || a.layout.b != MajorB::k)
    return ladder_instance_missing(false);
  return f.template operator()<__nv_bfloat16, MajorA::m, MajorB::k>();
}
}  // namespace
#else
/// Calls `f.template operator()<T, MA, MB>()` with T the input element type
/// (__nv_bfloat16 for bf16, __half for fp16) and MA, MB the layout of `a`, as
/// compile-time arguments, and returns its Status.  Only called after the
/// common checks (gemm.cu), which reject every other input type.
template <class F>
Status with_types(const GemmArgs& a, F&& f) {
#if defined(TESSEL_GEMM_ONE_INSTANCE)
  // Compile checks for other targets (tests/cuda: sm_80) instantiate one
  // kernel per step, bf16 with A K-major and B N-major: both the plain and
  // the transposing ldmatrix paths, at an eighth of the compile time.
  (void)a;
  return f.template operator()<__nv_bfloat16, MajorA::k, MajorB::n>();
#else
  const auto by_layout = [&]<class T>() -> Status {
    const bool ak = a.layout.a == MajorA::k, bn = a.layout.b == MajorB::n;
    if (ak && bn) return f.template operator()<T, MajorA::k, MajorB::n>();
    if (ak) return f.template operator()<T, MajorA::k, MajorB::k>();
    if (bn) return f.template operator()<T, MajorA::m, MajorB::n>();
    return f.template operator()<T, MajorA::m, MajorB::k>();
  };
  switch (a.ab_type) {
    case DType::bf16:
      return by_layout.template operator()<__nv_bfloat16>();
    case DType::f16:
      return by_layout.template operator()<__half>();
    case DType::f32:
    case DType::e4m3:  // FP8 runs k13's own instances (k13_fp8.cu), never these
    case DType::e5m2:
      break;
  }
  return Status::failure(Status::invalid_argument, "A and B must be bf16 or fp16");
#endif
}

#if !defined(TESSEL_LADDER_ONE_INSTANCE) || defined(TESSEL_GEMM_ONE_INSTANCE)
/// with_types for a swapped problem: the same instances in a full build.
template <class F>
Status with_swapped_types(const GemmArgs& a, F&& f) {
  return with_types(a, static_cast<F&&>(f));
}
#endif

/// The fp32 ladder's dispatch (f01..f12): calls `f.template operator()<MA,
/// MB>()` with the layout of `a` as compile-time arguments; A and B are fp32
/// (the type checks in gemm.cu ran before).  Four instantiations per step.
template <class F>
Status with_fp32_layouts(const GemmArgs& a, F&& f) {
#if defined(TESSEL_GEMM_ONE_INSTANCE)
  (void)a;
  return f.template operator()<MajorA::k, MajorB::n>();
#else
  const bool ak = a.layout.a == MajorA::k, bn = a.layout.b == MajorB::n;
  if (ak && bn) return f.template operator()<MajorA::k, MajorB::n>();
  if (ak) return f.template operator()<MajorA::k, MajorB::k>();
  if (bn) return f.template operator()<MajorA::m, MajorB::n>();
  return f.template operator()<MajorA::m, MajorB::k>();
#endif
}
#endif

/// The 2-D grid of a kernel with one CTA per (tile_m x tile_n) tile of D:
/// x runs along N, y along M.
struct TileGrid {
  index_t x = 0, y = 0;
  dim3 dim() const { return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y)); }
};
inline TileGrid tile_grid(const GemmArgs& a, int tile_m, int tile_n) {
  return TileGrid{(a.n + tile_n - 1) / tile_n, (a.m + tile_m - 1) / tile_m};
}

/// `unsupported` when the grid breaks a CUDA limit (gridDim.x <= 2^31-1,
/// gridDim.y <= 65535), naming the limit and the largest extent the step
/// serves; success otherwise.
inline Status check_tile_grid(const GemmArgs& a, int tile_m, int tile_n, const char* step) {
  const TileGrid g = tile_grid(a, tile_m, tile_n);
  if (g.y > 65535)
    return Status::failure(Status::unsupported,
                           std::string(step) + ": gridDim.y = ceil(M/" + std::to_string(tile_m) +
                               ") = " + std::to_string(g.y) +
                               " exceeds the CUDA limit 65535 (M <= " + std::to_string(65535LL * tile_m) + ")");
  if (g.x > 0x7FFFFFFF)
    return Status::failure(Status::unsupported, std::string(step) + ": gridDim.x = ceil(N/" + std::to_string(tile_n) +
                                                    ") = " + std::to_string(g.x) + " exceeds the CUDA limit 2^31-1");
  return Status::success();
}

}  // namespace tessel::gemm_launch
