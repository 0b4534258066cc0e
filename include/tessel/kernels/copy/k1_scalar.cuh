// (a) The baseline: 64 threads in one row, one element per copy.
#pragma once

#include "tessel/kernels/copy/common.cuh"

namespace tessel::copy_kernels {

inline constexpr CopyPlan kScalarPlan = make_copy_plan(make_layout(make_shape(1, 64)), make_layout(make_shape(1, 1)));

template <class T>
using ScalarCopy = TiledCopy<UniversalCopy<T, 8 * sizeof(T)>, kScalarPlan.tv, kScalarPlan.tile>;

template <class T>
__global__ void __launch_bounds__(64) tile_copy_scalar(Problem<T> p) {
  __shared__ T smem[kTileM * kTileN];
  const auto gS = make_global_tensor(p.src, {p.m, p.n}, {p.ld_src, index_t{1}});
  const auto gD = make_global_tensor(p.dst, {p.m, p.n}, {p.ld_dst, index_t{1}});
  const TileCoord at = row_band_tile();
  const auto tile_s = local_tile<Tile>(gS, at.m, at.n);   // (128,64)
  const auto tile_d = local_tile<Tile>(gD, at.m, at.n);   // (128,64)
  const auto sT = make_smem_tensor<kSmemRowMajor>(smem);  // (128,64)

  const ScalarCopy<T> tc;
  const auto thr = tc.get_slice(static_cast<int>(threadIdx.x));
  copy_if(tc, thr.partition_S(tile_s), thr.partition_D(sT));  // tCgS -> tCsT: (1,(1,(128,1))) per thread
  __syncthreads();
  copy_if(tc, thr.partition_S(sT), thr.partition_D(tile_d));  // tCsT -> tCgD
}

}  // namespace tessel::copy_kernels
