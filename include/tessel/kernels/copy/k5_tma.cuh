// (e) TMA: one thread loads the whole 128 x 64 tile into a 128B-swizzled
// shared tile with one instruction (completion counted in bytes on an
// mbarrier), then stores it back with one instruction.  Out-of-bounds rows
// and columns are zero-filled on load and clipped on store by the hardware.
#pragma once

#include "tessel/atom/copy_sm90.hpp"
#include "tessel/kernels/copy/common.cuh"

namespace tessel::copy_kernels {

/// TMA writes a 128B-swizzled box exactly as this layout places the tile.
inline constexpr SwizzledLayout kSmemTma = kSmemSwizzled;
/// The TMA copy of a tile: one (128, 64) box.
template <class T>
using TmaCopyTile = TmaTile<T, make_shape(kTileM, kTileN), kSmemTma>;

template <class T>
__global__ void __launch_bounds__(32)
    tile_copy_tma(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst) {
  __shared__ alignas(1024) T smem[kTileM * kTileN];
  __shared__ alignas(8) std::uint64_t full;
  const TileCoord at = row_band_tile();
  const std::uint32_t bar = arch::smem_addr(&full);
  const bool leader = threadIdx.x == 0;
  if (leader) {
    arch::sm90::mbarrier_init(bar, 1);
    arch::sm90::fence_mbarrier_init();
    arch::sm90::mbarrier_arrive_expect_tx(bar, sizeof(smem));  // the full box, out-of-bounds part included
    TmaCopyTile<T>::load(&src, smem, bar, at.m, at.n);
    arch::sm90::mbarrier_wait_parity(bar, 0);
    // TMA wrote the tile and TMA reads it: both async proxy, no proxy fence needed.
    TmaCopyTile<T>::store(&dst, smem, at.m, at.n);
    arch::sm90::bulk_commit_group();
    arch::sm90::bulk_wait_group_read<0>();  // the CTA's shared memory must outlive the store's reads
  }
}

}  // namespace tessel::copy_kernels
