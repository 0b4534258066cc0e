// tessel/atom/mma_sm90.hpp — wgmma as an MMA atom: one warpgroup computes a
// (64, N) block of C from A (64, BK) and B (N, BK) tiles in shared memory,
// read through matrix descriptors (the SS form).
//
// The shared tiles are K-major with the 128-byte swizzle,
// tile_to_shape(gmma.smem.K.SW128, (MN, 64)) (docs/hardware.md §8.3/§8.4): the
// layout TMA writes with CU_TENSOR_MAP_SWIZZLE_128B for a box whose inner
// dimension is K, so a TMA-fed kernel can hand its tiles to this atom as is.
#pragma once

#include <cuda_bf16.h>

#include "tessel/arch/sm90.hpp"
#include "tessel/atom/layouts_sm90.hpp"
#include "tessel/atom/tiled_copy.hpp"

namespace tessel {

/// m64nNk16 bf16 x bf16 -> f32, A and B K-major, 128B swizzle, BK = 64.
template <int N>
struct SM90_64xNx64_F32BF16BF16_SS {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "tessel: wgmma N is a multiple of 8 in 8..256");
  using a_type = __nv_bfloat16;
  using b_type = __nv_bfloat16;
  using c_type = float;
  static constexpr int kM = 64, kN = N, kK = 64;
  static constexpr int kThreads = 128;  // one warpgroup
  /// Shared layouts of the operand tiles, (MN, K) -> element offset.
  static constexpr SwizzledLayout kSmemA{Swizzle{3, 3, 3},
                                         tile_to_shape(atom_layouts::gmma_k_sw128.layout, make_shape(kM, kK)).value()};
  static constexpr SwizzledLayout kSmemB{Swizzle{3, 3, 3},
                                         tile_to_shape(atom_layouts::gmma_k_sw128.layout, make_shape(kN, kK)).value()};
  /// The accumulator: (thread, value) -> column-major index in the (64, N) tile.
  static constexpr Layout kC = atom_layouts::wgmma_c(N);
  using FragmentC = FragmentView<float, N / 2>;

  template <class Shape, class T, int R>
  TESSEL_HD static constexpr auto partition_C(const GlobalTile<T, Shape, R>& g, int thread) {
    constexpr Layout P = detail::partition_layout(coord_layout(Shape::value), make_shape(kM, kN), kC);
    GlobalThrView<T, P, R> v{g.ptr, {}, {}, StaticLayout<P>{}(thread, 0)};
    for (int i = 0; i < R; ++i) {
      v.stride[i] = g.stride[i];
      v.residue[i] = g.residue[i];
    }
    return v;
  }

  /// c (+)= A * B^T over the whole BK = 64.  All 128 threads of the warpgroup
  /// call it.  The tiles must be 1024-byte aligned (the swizzle pattern's
  /// repeat, so the descriptors' base offset is 0), and smem written by
  /// ordinary stores needs fence.proxy.async + a barrier before this call.
  __device__ static void mma(const a_type* sA, const b_type* sB, FragmentC& c, bool accumulate) {
    namespace sm90 = arch::sm90;
    // K-major SW128: 8-row groups 1024 B apart (SBO), LBO unused (§8.3).
    constexpr sm90::DescStrides sa = sm90::dense_tile_strides(sm90::GmmaMajor::k, sm90::GmmaSwizzle::sw128, kM, 2);
    constexpr sm90::DescStrides sb = sm90::dense_tile_strides(sm90::GmmaMajor::k, sm90::GmmaSwizzle::sw128, kN, 2);
    const std::uint64_t da =
        sm90::make_smem_desc(arch::smem_addr(sA), sa.lbo_bytes, sa.sbo_bytes, sm90::GmmaSwizzle::sw128);
    const std::uint64_t db =
        sm90::make_smem_desc(arch::smem_addr(sB), sb.lbo_bytes, sb.sbo_bytes, sm90::GmmaSwizzle::sw128);
    float(&d)[N / 2] = *reinterpret_cast<float(*)[N / 2]>(c.addr(0));
    sm90::register_fence(d);
    sm90::wgmma_fence();
    // One k16 step is +32 bytes inside a 128-byte swizzled row (§8.1).
    TESSEL_UNROLL
    for (int k = 0; k < kK / 16; ++k)
      sm90::wgmma_ss<sm90::WgmmaType::bf16, N>(d, sm90::desc_advance(da, 32u * k), sm90::desc_advance(db, 32u * k),
                                               accumulate || k > 0);
    sm90::wgmma_commit_group();
    sm90::wgmma_wait_group<0>();
    sm90::register_fence(d);
  }
};

}  // namespace tessel
