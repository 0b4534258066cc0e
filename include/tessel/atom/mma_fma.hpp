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

namespace detail {
/// Stride 0 for a mode of extent 1 (how the atoms' layouts write "no step").
constexpr index_t step_or_0(int extent, index_t stride) { return extent == 1 ? 0 : stride; }
/// The FmaBlock atom as data (see below).
constexpr MmaAtomInfo fma_block_info(int thr_m, int thr_n, int val_m, int val_n) {
  const int m = thr_m * val_m, n = thr_n * val_n;
  const IntTuple thr = make_shape(thr_m, thr_n);
  // A (M,1): thread (tm, tn) holds rows tm*val_m + [0, val_m); threads along N share them.
  const Layout a = make_layout(make_shape(thr, val_m),
                               make_stride(make_stride(step_or_0(thr_m, val_m), index_t{0}), step_or_0(val_m, 1)));
  // B (N,1): rows tn*val_n + [0, val_n) of B; threads along M share them.
  const Layout b = make_layout(make_shape(thr, val_n),
                               make_stride(make_stride(index_t{0}, step_or_0(thr_n, val_n)), step_or_0(val_n, 1)));
  // C (M,N), column-major index r + M*c: value i + val_m*j is element (tm*val_m + i, tn*val_n + j).
  const Layout c = make_layout(make_shape(thr, make_shape(val_m, val_n)),
                               make_stride(make_stride(step_or_0(thr_m, val_m), step_or_0(thr_n, index_t{m} * val_n)),
                                           make_stride(step_or_0(val_m, 1), step_or_0(val_n, m))));
  return MmaAtomInfo{"FmaBlock", "fma.rn over a block of C per thread", m, n, 1, thr_m * thr_n, a, b, c};
}
}  // namespace detail

/// A block of CUDA-core FMAs: ThrM x ThrN threads (thread t at (t % ThrM,
/// t / ThrM)), each owning a ValM x ValN block of *neighbouring* rows and
/// columns of C; per k it takes ValM values of A (rows tm*ValM + [0, ValM))
/// and ValN of B and does ValM*ValN FMAs.  The atom's tile is (ThrM*ValM,
/// ThrN*ValN, 1).  With ThrM*ThrN = 32 the atom is a warp, so a TiledMma of
/// it gives each warp a compact block of C (warp tiling); with ValM = 4 a
/// thread's A (or B) values are 4 consecutive rows, which one 128-bit load
/// reads from an M-major (N-major) shared tile.  FmaBlock<T,1,1,1,1> is
/// UniversalFma.  Value i + ValM*j of C is element (i, j) of the block.
template <class T, int ThrM, int ThrN, int ValM, int ValN>
struct FmaBlock {
  using a_type = T;
  using b_type = T;
  using c_type = T;
  static constexpr MmaAtomInfo info = detail::fma_block_info(ThrM, ThrN, ValM, ValN);
  TESSEL_HD static void fma(c_type* d, const a_type* a, const b_type* b) {
    for (int j = 0; j < ValN; ++j)
      for (int i = 0; i < ValM; ++i) d[i + ValM * j] += a[i] * b[j];
  }
};

}  // namespace tessel
