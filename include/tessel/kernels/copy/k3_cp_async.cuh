// (c) cp.async loads: global -> shared without passing through registers.
#pragma once

#include "tessel/atom/copy_sm80.hpp"
#include "tessel/kernels/copy/common.cuh"
#include "tessel/kernels/copy/k2_vector.cuh"

namespace tessel::copy_kernels {

template <class T>
using CpAsyncCopy = TiledCopy<SM80_CpAsync<T, 16>, kVectorPlan.tv, kVectorPlan.tile>;

template <class T>
__global__ void __launch_bounds__(128) tile_copy_cp_async(Problem<T> p) {
  __shared__ alignas(16) T smem[kTileM * kTileN];
  const auto gS = make_global_tensor(p.src, {p.m, p.n}, {p.ld_src, index_t{1}});
  const auto gD = make_global_tensor(p.dst, {p.m, p.n}, {p.ld_dst, index_t{1}});
  const TileCoord at = row_band_tile();
  const auto tile_s = local_tile<Tile>(gS, at.m, at.n);   // (128,64)
  const auto tile_d = local_tile<Tile>(gD, at.m, at.n);   // (128,64)
  const auto sT = make_smem_tensor<kSmemRowMajor>(smem);  // (128,64)

  const CpAsyncCopy<T> load;
  const VectorCopy<T> store;
  const int t = static_cast<int>(threadIdx.x);
  copy_if(load, load.get_slice(t).partition_S(tile_s), load.get_slice(t).partition_D(sT));
  arch::sm80::cp_async_wait_all();
  __syncthreads();
  copy_if(store, store.get_slice(t).partition_S(sT), store.get_slice(t).partition_D(tile_d));
}

}  // namespace tessel::copy_kernels
