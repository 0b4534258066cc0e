// tessel/arch/sm90_wgmma_fp8.hpp — wgmma with FP8 operands (sm_90a):
// D(64xN) = A(64x32) * B(32xN) + D in f32, A and B e4m3 or e5m2 (any pair).
//
// What differs from the 16-bit forms of sm90.hpp (docs/hardware.md §7):
//  * k32, not k16: one instruction consumes 32 bytes of each operand row, the
//    same bytes as a bf16 k16 step, so a descriptor advances by the same 32
//    bytes a step and the shared-memory atoms of §8 serve unchanged (a core
//    matrix is 8 rows of 16 bytes whatever the type).
//  * K-major only: PTX has no transpose immediates for FP8, so an MN-major
//    operand has to be transposed before it reaches shared memory.
//  * SS only here (A and B through descriptors).
// The accumulators, their ownership, the fences and the register rule are
// those of wgmma_ss.  Kept out of sm90.hpp so that translation units without
// FP8 do not parse the 128 generated specializations.
#pragma once

#include <cstdint>

#include "tessel/arch/sm90.hpp"

#if defined(__CUDACC__)

namespace tessel::arch::sm90 {

/// The FP8 element formats wgmma reads (OCP FP8): e4m3 (4 exponent bits,
/// bias 7, 3 mantissa bits, max 448, no infinities) and e5m2 (5, bias 15, 2,
/// max 57344, IEEE-like infinities and NaNs).
enum class Fp8Type : std::uint8_t { e4m3, e5m2 };

namespace detail {
/// One specialization per (type of A, type of B, N), generated: see sm90_wgmma_fp8.inc.
template <Fp8Type A, Fp8Type B, int N>
struct WgmmaFp8;
#include "tessel/arch/sm90_wgmma_fp8.inc"
}  // namespace detail

/// wgmma.mma_async m64nNk32 .f32.A.B with A and B in shared memory, K-major,
/// read through desc_a / desc_b (sm90_desc.hpp, built as for a 16-bit
/// operand of the same byte shape). ScaleA / ScaleB (1 or -1) negate A or B.
/// `d` holds the thread's N/2 accumulators (§7.2); with scale_d false their
/// input values are ignored.
/// C++ example: float d[64]; wgmma_ss_fp8<Fp8Type::e4m3, Fp8Type::e4m3, 128>(d, da, db, true);
template <Fp8Type A, Fp8Type B, int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_ss_fp8(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                             bool scale_d) {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma m64nNk32: N is a multiple of 8 in 8..256");
  static_assert((ScaleA == 1 || ScaleA == -1) && (ScaleB == 1 || ScaleB == -1), "wgmma scales are 1 or -1");
  detail::WgmmaFp8<A, B, N>::template ss<ScaleA, ScaleB>(d, desc_a, desc_b, scale_d ? 1u : 0u);
}

}  // namespace tessel::arch::sm90

#endif  // __CUDACC__
