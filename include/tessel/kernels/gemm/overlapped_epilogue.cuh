// tessel/kernels/gemm/overlapped_epilogue.cuh — the consumers' loop over
// their work units with the warpgroup epilogue overlapped with the next
// tile: each consumer warpgroup stages and stores its own 64 rows of a tile
// (TmaStoreEpilogue's wg_store_first / wg_free / wg_store_rest), and the
// tile's later chunks, held in 32 registers, leave during the next tile's
// first k-tiles, one step a k-tile, so the tensor cores do not idle through
// the stores and the wait for TMA's reads.  For 16-bit D, beta = 0, TMA
// stores and no split K (Config::kWarpgroupEpilogue); taken by k13.
#pragma once

#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/common.cuh"
#include "tessel/kernels/gemm/tma_store_epilogue.cuh"
#include "tessel/kernels/gemm/wgmma_mainloop.cuh"

namespace tessel::gemm_kernels {

/// The warpgroup epilogue's tile in flight: the words of its later chunks
/// (E::wg_store_first), its coordinates, and the steps left of it: 3, the
/// wait for its first chunks' reads (E::wg_free); 2, its later chunks
/// (E::wg_store_rest); 1, the wait for their reads.
template <class E>
struct HeldTile {
  typename E::Words w;
  blocks::TileCoord tile;
  int left = 0;
};
/// Named barriers 2 and 3: the warpgroup epilogue's, one per consumer warpgroup.
inline constexpr int kWarpgroupBarrier0 = 2;

/// Every work unit of `scheduler` through consume() and the overlapped
/// warpgroup epilogue, by consumer thread t (of 256) with `lane` its lane.
/// A loop of its own, so that the held words are never live beside the plain
/// epilogue's C values (in one loop with it they were, and values live across
/// the loop went to local memory).
template <class X, class Scheduler, class Thr, class P>
__device__ __forceinline__ void consume_with_overlapped_epilogue(const CUtensorMap* map_d, const P& p,
                                                                 Scheduler& scheduler, const typename X::Pipeline& pipe,
                                                                 typename X::Pipeline::State& read,
                                                                 typename X::SharedStorage& shared, const Thr& thr_desc,
                                                                 int t, int lane) {
  using EpiW = typename X::template Epilogue<__nv_bfloat16>;  // its 16-bit staging serves bf16 and fp16 D alike
  HeldTile<EpiW> held;
  const auto step = [&] {  // one step of the held tile's stores (every consumer thread)
    if (held.left == 2)
      EpiW::wg_store_rest(map_d, held.tile.m, held.tile.n, held.w, shared.d.bf16, t, kWarpgroupBarrier0);
    else
      EpiW::wg_free(t, kWarpgroupBarrier0);
    --held.left;
  };
  for (blocks::WorkUnit u; scheduler.next(u);) {
    typename X::FragC acc;  // (BN/2,1,1) f32: 64 x BN per warpgroup
    consume<X>(pipe, read, shared, thr_desc, u.k_begin, u.k_end, acc, lane, Nothing{}, [&](int) {
      if (held.left > 0) step();  // the previous tile's stores, while this batch runs
    });
    while (held.left > 0) step();  // a unit of fewer k-tiles than steps: the previous tile's last ones
    if (p.cd_type == DType::bf16)
      EpiW::wg_store_first(map_d, p, u.tile.m, u.tile.n, acc, shared.d.bf16, t, kWarpgroupBarrier0, held.w);
    else
      X::template Epilogue<__half>::wg_store_first(map_d, p, u.tile.m, u.tile.n, acc, shared.d.f16, t,
                                                   kWarpgroupBarrier0, held.w);
    held.tile = u.tile;
    held.left = 3;
  }
  while (held.left > 0) step();  // the last tile's later chunks, and their reads
}

}  // namespace tessel::gemm_kernels
