// tessel/kernels/gemm/wgmma_fp8.cuh — the wgmma kernels' tiles on FP8
// operands: the FP8 atom (atom/mma_sm90_fp8.hpp) as the TiledMMA of
// wgmma::Tiles and pingpong::Tiles for e4m3 and e5m2 elements.  Everything
// else is the 16-bit kernels' own: a k-tile is 128 bytes of K in both
// (kBKOf: 128 FP8 elements, four k32 atoms), so the stages, the TMA boxes,
// the 128-byte swizzle and the accumulators are the same; only K-major A and
// B exist (wgmma reads FP8 K-major only).
#pragma once

#include <cuda_fp8.h>

#include "tessel/atom/mma_sm90_fp8.hpp"
#include "tessel/kernels/gemm/wgmma_tiles.cuh"

namespace tessel::gemm_kernels::wgmma {

/// The element type of a kernel whose A and B differ in FP8 format: A's
/// elements TA, B's TB (wgmma's mixed forms, e4m3 x e5m2 and e5m2 x e4m3).
/// One byte, so shared memory, the stages and TMA (8-bit elements) are those
/// of one format; only the atom reads the formats.
template <class TA, class TB>
struct Fp8Mixed {
  unsigned char bits;
};

template <class TA, class TB, int BN, OperandMajor MA, OperandMajor MB>
struct WgmmaAtomForFp8 {
  static_assert(MA == OperandMajor::k && MB == OperandMajor::k,
                "tessel: FP8 A and B are K-major (A:k, B:k): wgmma cannot transpose 8-bit operands");
  using type = SM90_64xNx32_F32_SS_FP8<TA, TB, BN>;
};
template <int BN, OperandMajor MA, OperandMajor MB>
struct WgmmaAtomFor<__nv_fp8_e4m3, BN, MA, MB> : WgmmaAtomForFp8<__nv_fp8_e4m3, __nv_fp8_e4m3, BN, MA, MB> {};
template <int BN, OperandMajor MA, OperandMajor MB>
struct WgmmaAtomFor<__nv_fp8_e5m2, BN, MA, MB> : WgmmaAtomForFp8<__nv_fp8_e5m2, __nv_fp8_e5m2, BN, MA, MB> {};
template <class TA, class TB, int BN, OperandMajor MA, OperandMajor MB>
struct WgmmaAtomFor<Fp8Mixed<TA, TB>, BN, MA, MB> : WgmmaAtomForFp8<TA, TB, BN, MA, MB> {};
static_assert(sizeof(Fp8Mixed<__nv_fp8_e4m3, __nv_fp8_e5m2>) == 1, "one byte an element, as either format");

}  // namespace tessel::gemm_kernels::wgmma
