// (d) cp.async into a 128-byte swizzled shared tile.  For a straight copy
// the swizzle changes nothing measurable (rows are written and read whole);
// it is the layout the transpose and the GEMM need, checked here on its own.
#pragma once

#include "tessel/kernels/copy/k3_cp_async.cuh"

namespace tessel::copy_kernels {

template <class T>
__global__ void __launch_bounds__(128) tile_copy_swizzled(Problem<T> p) {
  __shared__ alignas(1024) T smem[kTileM * kTileN];
  const auto gS = make_global_tensor(p.src, {p.m, p.n}, {p.ld_src, index_t{1}});
  const auto gD = make_global_tensor(p.dst, {p.m, p.n}, {p.ld_dst, index_t{1}});
  const TileCoord at = row_band_tile();
  const auto tile_s = local_tile<Tile>(gS, at.m, at.n);   // (128,64)
  const auto tile_d = local_tile<Tile>(gD, at.m, at.n);   // (128,64)
  const auto sT = make_smem_tensor<kSmemSwizzled>(smem);  // Sw<3,3,3>o(128,64)

  const CpAsyncCopy<T> load;
  const VectorCopy<T> store;
  const int t = static_cast<int>(threadIdx.x);
  copy_if(load, load.get_slice(t).partition_S(tile_s), load.get_slice(t).partition_D(sT));
  arch::sm80::cp_async_wait_all();
  __syncthreads();
  copy_if(store, store.get_slice(t).partition_S(sT), store.get_slice(t).partition_D(tile_d));
}

}  // namespace tessel::copy_kernels
