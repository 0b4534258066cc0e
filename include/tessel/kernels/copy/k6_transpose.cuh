// (f) Transpose through a swizzled shared tile: dst (N x M) = src (M x N)^T.
//
// Rows of the source tile arrive as 128-bit vectors (cp.async) and leave as
// 128-bit vectors along the destination's rows, i.e. along the source's
// columns.  Reading a column of a row-major shared tile hits one bank per
// 8 rows; the swizzle Sw<3,3,6> XORs the 16-byte chunk index with (row/8)%8,
// so the 8 m-chunks that a warp reads at once fall in 8 different chunks
// (conflict-free), while each row stays 8 contiguous chunks for the vector
// writes.  (Sw<3,3,3>, the GEMM swizzle, would leave rows 8 apart colliding.)
#pragma once

#include "tessel/kernels/copy/k3_cp_async.cuh"

namespace tessel::copy_kernels {

inline constexpr Swizzle kTransposeSwizzle{3, 3, 6};
/// The source tile in shared memory, (m,n) -> swizzled row-major offset.
inline constexpr SwizzledLayout kSmemTranspose = compose(kTransposeSwizzle, kSmemRowMajor);
/// The same memory viewed as the destination tile, (n,m) -> offset.
inline constexpr SwizzledLayout kSmemTransposeView =
    compose(kTransposeSwizzle, make_layout(mode(kSmemRowMajor, 1), mode(kSmemRowMajor, 0)));

template <class T>
using GatherCopy = TiledCopy<UniversalCopy<T, 8 * sizeof(T)>, kVectorPlan.tv, kVectorPlan.tile>;

/// One CTA per tile: load, wait, gather, store.  (A persistent,
/// double-buffered variant measured slower: see docs/copy.md.)
template <class T>
__global__ void __launch_bounds__(128) tile_transpose(Problem<T> p) {
  __shared__ alignas(1024) T smem[kTileM * kTileN];
  const auto gS = make_global_tensor(p.src, {p.m, p.n}, {p.ld_src, index_t{1}});  // (M,N)
  const auto gD = make_global_tensor(p.dst, {p.n, p.m}, {p.ld_dst, index_t{1}});  // (N,M)
  // blockIdx.x runs down the source's tile rows, so consecutive CTAs write
  // consecutive 256-byte pieces of the same destination rows.
  // (Measured: 89-95% of cudaMemcpy in this order, 84-90% in row-band order.)
  const auto tile_s = local_tile<Tile>(gS, blockIdx.x, blockIdx.y);   // (128,64)
  const auto tile_d = local_tile<TileT>(gD, blockIdx.y, blockIdx.x);  // (64,128)
  const auto sT = make_smem_tensor<kSmemTranspose>(smem);             // (128,64) as (m,n)
  const auto sTT = make_smem_tensor<kSmemTransposeView>(smem);        // (64,128) as (n,m)

  const CpAsyncCopy<T> load;
  const GatherCopy<T> gather;
  const VectorCopy<T> store;
  const int t = static_cast<int>(threadIdx.x);
  copy_if(load, load.get_slice(t).partition_S(tile_s), load.get_slice(t).partition_D(sT));
  arch::sm80::cp_async_wait_all();
  __syncthreads();

  const auto tGsTT = gather.get_slice(t).partition_S(sTT);  // (8,(4,2)) values: 8 m's of one n, per copy tile
  auto tGrD = make_fragment_like(tGsTT);                    // the same 64 values in registers
  copy(gather, tGsTT, tGrD);
  copy_if(store, tGrD, store.get_slice(t).partition_D(tile_d));
}

}  // namespace tessel::copy_kernels
