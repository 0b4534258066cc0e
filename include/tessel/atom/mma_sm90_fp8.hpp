// tessel/atom/mma_sm90_fp8.hpp — FP8 wgmma (m64nNk32, e4m3/e5m2 A and B, f32
// accumulators) as an MMA atom inside TiledMma, beside the 16-bit atoms of
// atom/mma_sm90.hpp.  SS only, both operands K-major: a shared tile of
// 1-byte elements whose plan (make_gmma_operand_plan with atom K 32) holds.
// A k32 step reads the 32 bytes a bf16 k16 step reads, so a TiledMMA over
// (M, N, 32 * steps) FP8 tiles issues as many instructions per byte of
// shared memory as the bf16 one over (M, N, 16 * steps), and the warpgroup
// protocol (warpgroup_arrive, commit, wait, operand fences) is the same.
// In its own header so that 16-bit kernels do not parse the FP8 wrappers.
#pragma once

#include <cuda_fp8.h>

#include <type_traits>

#include "tessel/arch/sm90_wgmma_fp8.hpp"
#include "tessel/atom/mma_sm90.hpp"

namespace tessel {

namespace detail {
template <class T>
constexpr arch::sm90::Fp8Type fp8_type() {
  static_assert(std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>,
                "tessel: FP8 wgmma takes __nv_fp8_e4m3 or __nv_fp8_e5m2");
  return std::is_same_v<T, __nv_fp8_e5m2> ? arch::sm90::Fp8Type::e5m2 : arch::sm90::Fp8Type::e4m3;
}
}  // namespace detail

/// wgmma m64nNk32, f32 += TA * TB (each __nv_fp8_e4m3 or __nv_fp8_e5m2), A and
/// B from shared memory through descriptors, both K-major.
/// C++ example: TiledMma<SM90_64xNx32_F32_SS_FP8<__nv_fp8_e4m3, __nv_fp8_e4m3, 128>, 2, 1, 1> covers 128 x 128 x 32.
template <class TA, class TB, int N>
struct SM90_64xNx32_F32_SS_FP8 {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "tessel: wgmma N is a multiple of 8 in 8..256");
  using a_type = TA;
  using b_type = TB;
  using c_type = float;
  static constexpr bool kDescA = true, kDescB = true, kScaleD = true;
  static constexpr arch::sm90::GmmaMajor kMajorA = arch::sm90::GmmaMajor::k, kMajorB = arch::sm90::GmmaMajor::k;
  static constexpr MmaAtomInfo info = wgmma_fp8_info(N);
  /// d (+)= A * B^T for the atom's N/2 accumulators of this thread; all 128
  /// threads of the warpgroup issue it.  scale_d false: d's input is ignored.
  __device__ static void fma(float* d, std::uint64_t desc_a, std::uint64_t desc_b, bool scale_d = true) {
    arch::sm90::wgmma_ss_fp8<detail::fp8_type<TA>(), detail::fp8_type<TB>(), N>(*reinterpret_cast<float(*)[N / 2]>(d),
                                                                                desc_a, desc_b, scale_d);
  }
  template <IntTuple Tile, Layout TV, class S>
  __device__ static auto make_operand_A(const S& s, int thread) {
    return detail::make_gmma_descriptors<Tile, TV, 64, arch::sm90::GmmaMajor::k, 32>(s, thread);
  }
  template <IntTuple Tile, Layout TV, class S>
  __device__ static auto make_operand_B(const S& s, int thread) {
    return detail::make_gmma_descriptors<Tile, TV, N, arch::sm90::GmmaMajor::k, 32>(s, thread);
  }
};

}  // namespace tessel
