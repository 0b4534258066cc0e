// tessel/atom/mma_sm80.hpp — MMA atoms that run sm_80 mma.sync (TiledMMA and
// gemm() are generic: atom/tiled_mma.hpp, included here).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <type_traits>

#include "tessel/arch/sm80.hpp"
#include "tessel/atom/mma_atom.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"
#include "tessel/atom/tiled_mma.hpp"  // TiledMma, TiledCopyA/B/C, gemm(): generic, re-exported here
#include "tessel/core/pack.hpp"

namespace tessel {

/// mma.sync m16n8k16 with 16-bit inputs (bf16 or f16) and f32 accumulators.
/// Values in the order of the atom's TV layouts (A: 8 values, B: 4, C: 4).
template <class T>
struct SM80_16x8x16_F32_TN {
  static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>,
                "tessel: m16n8k16 takes bf16 or f16 inputs");
  using a_type = T;
  using b_type = T;
  using c_type = float;
  static constexpr const MmaAtomInfo& info =
      std::is_same_v<T, __half> ? kSM80_16x8x16_F32F16F16F32_TN : kSM80_16x8x16_F32BF16BF16F32_TN;
  __device__ static void fma(float* d, const a_type* a, const b_type* b) {
    const std::uint32_t ra[4] = {pack_pair(a[0], a[1]), pack_pair(a[2], a[3]), pack_pair(a[4], a[5]),
                                 pack_pair(a[6], a[7])};
    const std::uint32_t rb[2] = {pack_pair(b[0], b[1]), pack_pair(b[2], b[3])};
    float(&acc)[4] = *reinterpret_cast<float(*)[4]>(d);
    if constexpr (std::is_same_v<T, __half>) {
      arch::sm80::mma_m16n8k16_f32_f16(acc, ra, rb, acc);
    } else {
      arch::sm80::mma_m16n8k16_f32_bf16(acc, ra, rb, acc);
    }
  }
};
using SM80_16x8x16_F32BF16BF16F32_TN = SM80_16x8x16_F32_TN<__nv_bfloat16>;
using SM80_16x8x16_F32F16F16F32_TN = SM80_16x8x16_F32_TN<__half>;

}  // namespace tessel
