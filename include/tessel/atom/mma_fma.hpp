// tessel/atom/mma_fma.hpp — the CUDA-core MMA atom: one thread, one
// multiply-add, a 1x1x1 tile.  Tiled by TiledMma (atom/tiled_mma.hpp) it is
// the FMA GEMM of the ladder's steps k02/k03: TiledMma<UniversalFma<T,T>,
// 16, 16> is 256 threads, thread t owning the C elements (t%16 + 16i, t/16 + 16j)
// of each (BM,BN) tile.  Generic: no architecture header.
#pragma once

#include "tessel/atom/mma_atom.hpp"

namespace tessel {

namespace detail {
/// The TV layout of a 1x1 tile owned by one thread with one value:
/// (thread, value) = (0, 0) -> index 0.
inline constexpr Layout kFmaTV = make_layout(make_shape(1, 1), make_stride(0, 0));
}  // namespace detail

/// The FMA atom as data: m = n = k = 1, one thread; A (1,1), B (1,1) and C
/// (1,1) are each one value of that thread.
inline constexpr MmaAtomInfo kUniversalFma_1x1x1{
    "UniversalFMA_1x1x1", "fma.rn (c = a * b + c in the accumulator type)", 1, 1, 1, 1, detail::kFmaTV, detail::kFmaTV,
    detail::kFmaTV};

/// d += a * b with A and B converted to the accumulator type TC first (bf16
/// and f16 convert exactly to float).  nvcc contracts the multiply-add into
/// one FFMA (checked by the SASS test sass.gemm_fma).
template <class TA, class TB, class TC = float>
struct UniversalFma {
  using a_type = TA;
  using b_type = TB;
  using c_type = TC;
  static constexpr const MmaAtomInfo& info = kUniversalFma_1x1x1;
  TESSEL_HD static void fma(c_type* d, const a_type* a, const b_type* b) {
    d[0] += static_cast<c_type>(a[0]) * static_cast<c_type>(b[0]);
  }
};

}  // namespace tessel
