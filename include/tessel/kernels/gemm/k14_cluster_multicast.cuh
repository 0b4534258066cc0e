// k14 — k13 on clusters of two CTAs that share an operand tile: the two
// CTAs of a cluster compute neighbouring tiles, each loads half of their
// common operand tile and multicasts it into both.  With tiles 128 x BN,
// BN >= 128, the neighbours are vertical, (2i, n) and (2i + 1, n), and share
// B; at BN = 64 they are horizontal, (m, 2j) and (m, 2j + 1), and share A
// (the wider operand tile).  The cluster's pieces are cluster_pair.cuh's.
//
// Why: per k-tile a k13 CTA reads A (128 x 64, 16 KB) and B (BN x 64, 32 KB
// at BN = 256) from L2; sharing B over two CTAs cuts that to 16 + 16 KB, a
// third less L2 traffic and fewer L2 requests for the same wgmmas, which is
// what binds where rows straddle 128-byte lines.  Prediction and measurement:
// docs/ladder.md, k14.
//
// What changes against k13: the launch has cluster dimension (2, 1, 1), CTA
// rank r of cluster c takes tile 2i + r (or 2j + r) of the c-th,
// (c + clusters)-th, ... tile pair; a stage is refilled by both producers,
// so every consumer warp releases it to both CTAs (16 arrivals per stage).
// The 64 x 128 tile (one consumer warpgroup) shares B between M-neighbours;
// k13's 128-row swapped tiles (D^T = B^T A^T, W of M by 128 of N) share the
// swapped problem's B, the caller's A, between neighbours along N.
// Split K runs in instances of its own (gemm_cluster_split, below).
#pragma once

#include "tessel/kernels/gemm/cluster_pair.cuh"
#include "tessel/kernels/gemm/k10_persistent_warpgroup.cuh"
#include "tessel/kernels/gemm/split_k.cuh"
#include "tessel/kernels/gemm/tile_epilogue.cuh"
#include "tessel/kernels/gemm/wgmma_mainloop.cuh"
#include "tessel/kernels/gemm/wgmma_tiles.cuh"

namespace tessel::gemm_kernels::k14 {

using cluster::Scheduler;  // cluster tiles in the grouped raster
using cluster::Tiles;      // k13's tiles with the shared operand in two parts

/// The cluster shell; Split: units are (cluster tile, split) of
/// blocks::SplitKScheduler over the cluster tiles, every CTA of a cluster
/// taking the same k-range of its own tile, and split K's reduction
/// (split_k.cuh) before the epilogue, a slot per CTA tile.
template <class T, MajorA MA, MajorB MB, class Cfg, int CM, int CN, bool Split>
__device__ __forceinline__ void run(const CUtensorMap& map_a, const CUtensorMap& map_b, const CUtensorMap& map_d,
                                    bool tma_store, const Params<T>& p, const SplitK& sk) {
  using X = cluster::ClusterTiles<T, MA, MB, Cfg, CM, CN>;
  using TM = typename X::TM;
  using Pipeline = typename X::Pipeline;
  using Schedule = k10::ProducerWarpgroupPersistent;  // setmaxnreg 40 / 232
  using Units = cluster::Units<X, Split>;
  using Unit = typename Units::Unit;
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::SharedStorage*>(smem);
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const std::uint32_t rank = arch::sm90::cluster_ctarank();

  constexpr int kConsumerWarps = Cfg::kConsumerWarps;
  if (threadIdx.x == 0) pipe.init(X::kSenders * kConsumerWarps);  // every consumer warp of each sender releases
  // The cluster barrier in two halves: no peer multicasts into or arrives on an uninitialized barrier, and each
  // side's setup (setmaxnreg, the maps' prefetch) overlaps its round trip; relaxed, as init's fence released them.
  arch::sm90::cluster_arrive_relaxed();

  const index_t tiles_m = ceil_div(p.m, index_t{X::kBM}), tiles_n = ceil_div(p.n, index_t{X::kBN});
  const index_t k_tiles = ceil_div(p.k, index_t{X::kBK});
  const index_t cluster = blockIdx.x / X::kSize, clusters = gridDim.x / X::kSize;
  Units scheduler(tiles_m, tiles_n, k_tiles, sk.splits, cluster, clusters);

  if (warp >= kConsumerWarps) {  // the producer warpgroup: one thread issues every load
    Schedule::producer_start();
    if (warp == kConsumerWarps && arch::sm90::elect_one_sync()) {
      arch::sm90::prefetch_tensormap(&map_a);
      arch::sm90::prefetch_tensormap(&map_b);
      arch::sm90::griddep_wait();  // after a padded copy (a programmatic launch): its grid done before any load
    }
    __syncwarp();
    arch::sm90::cluster_wait();  // the peer's barriers are initialized: multicast into it, and its releases arrive
    if (warp == kConsumerWarps && arch::sm90::elect_one_sync()) {
      typename Pipeline::State write;
      for (Unit u; scheduler.next(u);) {
        const blocks::TileCoord tile = X::tile_of(Units::pair(u), rank);
        for (index_t kt = scheduler.k_begin(u); kt < scheduler.k_end(u); ++kt, ++write) {
          pipe.producer_acquire(write, X::kStageBytes);  // free in every CTA it fills (its senders' releases)
          cluster::load_stage<X>(&map_a, &map_b, shared, pipe, write.index(), rank, tile, kt);
        }
      }
      // No cluster barrier at the end: once every stage's last fill is released by every sender's consumers, no
      // peer arrives here or writes into this CTA's shared memory, and it may exit while peers run their epilogues.
      pipe.producer_tail(write);
    }
    __syncwarp();
  } else {
    Schedule::consumer_start();
    const int t = static_cast<int>(threadIdx.x);  // thread t of the TiledMMA's 256 (128 at 64 rows)
    const auto thr_desc = TM{}.get_slice(__shfl_sync(0xffffffffu, t, 0));  // warp-uniform descriptors, as in k13
    // A swapped-only tile (128 of the swapped M by W of its N) writes D transposed, as in k13.
    const TileEpilogue<X, T> epilogue{tma_store ? &map_d : nullptr, p, shared.d, Cfg::kSwappedOnly};
    const SplitKReduce<X, kConsumerBarrier> reduce{sk, shared.ticket};
    arch::sm90::cluster_wait();  // every CTA's barriers are initialized
    typename Pipeline::State read;
    for (Unit u; scheduler.next(u);) {
      const blocks::TileCoord tile = X::tile_of(Units::pair(u), rank);
      epilogue.prefetch_c(tile, t);  // C's tile into L2 (beta != 0)
      typename X::FragC acc;         // (BN/2,1,1) f32: 64 x BN per warpgroup
      // A stage goes back to every producer that multicasts into it.
      consume<X>(pipe, read, shared, thr_desc, scheduler.k_begin(u), scheduler.k_end(u), acc, lane, Nothing{},
                 Nothing{}, cluster::ReleaseCluster<X>{rank});
      if constexpr (Split) {
        if (sk.splits > 1) {
          // Each CTA's tile has its own partials and counter: slot (cluster tile id) x kSize + rank.
          blocks::WorkUnit mine = u;
          mine.id = u.id * X::kSize + static_cast<int>(rank);
          mine.tile = tile;
          const index_t rows_left = p.m - tile.m * X::kBM;
          const auto tCcD =
              TM{}.get_slice(t).partition_C(coord_tile<TileShape<X::kBM, X::kBN>>(rows_left, index_t{X::kBN}));
          if (!reduce.last_adds(mine, acc, tCcD, rows_left, t)) continue;
        }
      }
      epilogue.store(tile, acc, t);
    }
    epilogue.finish(t);
  }
}

/// Launch with cluster dimension (CM x CN, 1, 1), a multiple of CM x CN
/// CTAs (at most the clusters that fit at once, at most the cluster tiles),
/// Cfg::kThreads each and ClusterTiles<...>::kSmemBytes of dynamic shared
/// memory.  CM x CN = 2 x 1 or 1 x 2: k14's pairs (the default).
template <class T, MajorA MA, MajorB MB, class Cfg, int CM = cluster::kPairM<Cfg>, int CN = cluster::kPairN<Cfg>>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_cluster_multicast(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                           const __grid_constant__ CUtensorMap map_d, bool tma_store, Params<T> p) {
  run<T, MA, MB, Cfg, CM, CN, false>(map_a, map_b, map_d, tma_store, p, SplitK{});
}

/// gemm_cluster_multicast with K split `sk.splits` ways (sk.whole = 0): at
/// most the clusters of (cluster tile, split) units, and sk's partials and
/// counters for every CTA tile of the cluster tiles (pair_rows x pair_cols x
/// kSize slots).  Where few tiles meet a long K, the grid fills the SMs as
/// k13's split does, and each CTA requests only its share of the shared
/// operand's lines.
template <class T, MajorA MA, MajorB MB, class Cfg, int CM = cluster::kPairM<Cfg>, int CN = cluster::kPairN<Cfg>>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_cluster_split(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                       const __grid_constant__ CUtensorMap map_d, bool tma_store, Params<T> p, SplitK sk) {
  run<T, MA, MB, Cfg, CM, CN, true>(map_a, map_b, map_d, tma_store, p, sk);
}

}  // namespace tessel::gemm_kernels::k14
