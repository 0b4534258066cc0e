// k15 on clusters: pingpong consumers (k15) on clusters of two M-neighbour
// CTAs that share B's tile by TMA multicast (k14's pairs), composed from the
// pieces of both: pingpong.cuh's tiles, turn and shell, cluster_pair.cuh's
// shares, loads and release, wgmma_mainloop.cuh's consume and
// tile_epilogue.cuh's store.
//
// Why: k15 hides each tile's epilogue behind the other warpgroup's wgmmas,
// but its 128 x 128 tiles read 1.33x the operand bytes per flop of k13's
// 128 x 256 and at the power cap it runs 30-100 MHz below k13 (rule 10b,
// docs/heuristics.md); sharing B over a pair reads 192 of 256 rows' bytes per
// CTA and k-tile, the bytes per flop of a 128 x 192 tile.
//
// Measured (H200, M and N in {2048, 4096}, K in {1024, 4096}): 0.998 of
// cuBLASLt against k15's 1.016, so its multicast does not repay what the
// pairs cost and `auto` does not pick it (docs/heuristics.md).
#pragma once

#include "tessel/kernels/gemm/cluster_pair.cuh"
#include "tessel/kernels/gemm/k15_pingpong.cuh"

namespace tessel::gemm_kernels::k15 {

/// k15's tiles on pairs of M-neighbour CTAs sharing B.
template <class T, MajorA MA, MajorB MB, class Cfg>
using ClusterTiles = cluster::ClusterOf<T, Tiles<T, MA, MB, Cfg>, 2, 1>;

/// Launch with cluster dimension (2, 1, 1), an even number of CTAs (at most
/// the pairs that fit at once, at most twice the tile pairs), kThreads each
/// and ClusterTiles<...>::kSmemBytes.  beta = 0 (k15's epilogue).
template <class T, MajorA MA, MajorB MB, class Cfg>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_pingpong_cluster(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                          const __grid_constant__ CUtensorMap map_d, bool tma_store, Params<T> p) {
  using X = ClusterTiles<T, MA, MB, Cfg>;
  using Pipeline = typename X::Pipeline;
  using Schedule = k10::ProducerWarpgroupPersistent;  // setmaxnreg 40 / 232
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::Storage*>(smem);
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const std::uint32_t rank = arch::sm90::cluster_ctarank();
  if (threadIdx.x == 0) {  // a stage comes back from one warpgroup's 4 warps in each CTA it fills
    pipe.init(X::kSenders * kGroupThreads / 32);
    for (auto& b : shared.turn) arch::sm90::mbarrier_init(arch::smem_addr(&b), kGroupThreads / 32);
    arch::sm90::fence_mbarrier_init();
  }
  arch::sm90::cluster_arrive_relaxed();  // the peer multicasts and arrives only on initialized barriers
  const index_t tiles_m = ceil_div(p.m, index_t{kBM}), tiles_n = ceil_div(p.n, index_t{kBN});
  const index_t k_tiles = ceil_div(p.k, index_t{X::kBK});
  const index_t cluster = blockIdx.x / X::kSize, clusters = gridDim.x / X::kSize;
  const index_t pairs = X::pair_rows(tiles_m) * X::pair_cols(tiles_n);
  cluster::Scheduler scheduler(X::pair_rows(tiles_m), X::pair_cols(tiles_n), cluster, clusters);
  if (warp >= kConsumerGroups * 4) {  // the producer: both CTAs load the same pairs' k-tiles in the same order
    Schedule::producer_start();
    arch::sm90::cluster_wait();
    if (warp == kConsumerGroups * 4 && arch::sm90::elect_one_sync()) {
      typename Pipeline::State write;
      for (blocks::TileCoord pair; scheduler.next(pair);)
        for (index_t kt = 0; kt < k_tiles; ++kt, ++write) {
          pipe.producer_acquire(write, X::kStageBytes);
          cluster::load_stage<X>(&map_a, &map_b, shared, pipe, write.index(), rank, X::tile_of(pair, rank), kt);
        }
      pipe.producer_tail(write);  // no peer arrives here or writes into this CTA after its releases
    }
    return;
  }
  Schedule::consumer_start();
  const int wg = __shfl_sync(0xffffffffu, warp / 4, 0);         // this consumer warpgroup, warp-uniform
  const int t = static_cast<int>(threadIdx.x) % kGroupThreads;  // thread t of 128 in the TiledMMA
  const auto thr_desc = typename X::TM{}.get_slice(__shfl_sync(0xffffffffu, t, 0));
  const TileEpilogue<X, T> epilogue{tma_store ? &map_d : nullptr, p, shared.d[wg], false, nullptr, kFirstBarrier + wg};
  const int units = static_cast<int>((pairs - 1 - cluster) / clusters) + 1;  // this CTA's pairs
  arch::sm90::cluster_wait();
  typename Pipeline::State read;
  int i = 0;  // the unit's place in this CTA's sequence: warpgroup i % 2 computes it
  for (blocks::TileCoord pair; scheduler.next(pair); ++i) {
    if (i % kConsumerGroups != wg) {
      read.advance(static_cast<int>(k_tiles));  // the other warpgroup's stages
      continue;
    }
    const blocks::TileCoord tile = X::tile_of(pair, rank);
    typename X::FragC acc;  // (64,2,1) f32: 128 x 128 per warpgroup
    pingpong::wait_turn(shared, wg, i);
    const auto hand_over = [&] { pingpong::hand_over(shared, wg, i, units, lane); };
    consume<X>(pipe, read, shared, thr_desc, 0, static_cast<int>(k_tiles), acc, lane, hand_over, Nothing{},
               cluster::ReleaseCluster<X>{rank});
    epilogue.store_beta0(tile, acc, t);
  }
  epilogue.finish(t);
}

}  // namespace tessel::gemm_kernels::k15
