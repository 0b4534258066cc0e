// (b) 128-bit vectors: each of 128 threads moves 8 bf16 per instruction.
#pragma once

#include "tessel/kernels/copy/common.cuh"

namespace tessel::copy_kernels {

template <class T>
using VectorCopy = TiledCopy<UniversalCopy<T, 128>, kVectorPlan.tv, kVectorPlan.tile>;

template <class T>
__global__ void __launch_bounds__(128) tile_copy_vector(Problem<T> p) {
  __shared__ alignas(16) T smem[kTileM * kTileN];
  const auto gS = make_global_tensor(p.src, {p.m, p.n}, {p.ld_src, index_t{1}});
  const auto gD = make_global_tensor(p.dst, {p.m, p.n}, {p.ld_dst, index_t{1}});
  const TileCoord at = row_band_tile();
  const auto tile_s = local_tile<Tile>(gS, at.m, at.n);   // (128,64)
  const auto tile_d = local_tile<Tile>(gD, at.m, at.n);   // (128,64)
  const auto sT = make_smem_tensor<kSmemRowMajor>(smem);  // (128,64)

  const VectorCopy<T> tc;
  const auto thr = tc.get_slice(static_cast<int>(threadIdx.x));
  copy_if(tc, thr.partition_S(tile_s), thr.partition_D(sT));  // (8,(8,1)) values: 8 vectors of 8
  __syncthreads();
  copy_if(tc, thr.partition_S(sT), thr.partition_D(tile_d));
}

}  // namespace tessel::copy_kernels
