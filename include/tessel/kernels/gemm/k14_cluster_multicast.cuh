// k14 — k13 on clusters of two CTAs that share an operand tile: the two
// CTAs of a cluster compute neighbouring tiles, each loads half of their
// common operand tile and multicasts it into both.  With tiles 128 x BN,
// BN >= 128, the neighbours are vertical, (2i, n) and (2i + 1, n), and share
// B; at BN = 64 they are horizontal, (m, 2j) and (m, 2j + 1), and share A
// (the wider operand tile: Tiles::kSharesA).
//
// Why: at its power cap (700 W) k13 runs at the clock its energy per flop
// allows, and that energy is within about 5 % of cuBLASLt's at 4096^3 and
// 8192^3 (docs/ladder.md, k13): the gap left is data movement.  Per k-tile a
// k13 CTA reads A (128 x 64, 16 KB) and B (BN x 64, 32 KB at BN = 256) from
// L2; sharing B over two CTAs cuts that to 16 + 16 KB, a third less L2 ->
// shared-memory traffic for the same wgmmas.  Small problems (1000^3:
// 128 x 64 tiles, 16 k-tiles each) are bound by the L2's request rate, not by
// the tensor cores, and gain the same way.
//
// What changes against k13:
// - The launch has cluster dimension (2, 1, 1); CTA rank r of cluster c
//   takes tile row 2i + r (sharing B; tile column 2j + r sharing A) of the
//   c-th, (c + clusters)-th, ... tile pair in the grouped raster over pairs
//   of tile rows (columns).  An odd tile-row (column) count leaves the last
//   pair's second tile outside D: that CTA runs it all the same (its peer
//   needs its half of the shared tile and its releases) and its epilogue
//   writes nothing (TMA clips the boxes; the row stores check rows and
//   columns).
// - A stage of one CTA is refilled by both producers (the own operand by its
//   own, the halves of the shared one by both), so it may be refilled only when the consumers of
//   both CTAs are done with it: every consumer warp releases each stage to
//   its own empty barrier and to the peer's (16 arrivals per stage).
// - The cluster barrier after the barriers are initialized (no peer
//   multicasts into or arrives on an uninitialized barrier), in two halves:
//   the arrive right after the initialization, the wait after each side's
//   own setup (setmaxnreg, the maps' prefetch), so that the setup overlaps
//   the barrier's round trip; the arrive is relaxed (the initialization's
//   fence already releases it).  No cluster barrier at the end: the
//   producer's last step waits until every stage's last fill is released by
//   the consumers of both CTAs (TmaPipeline::producer_tail), after which no
//   peer arrives on this CTA's barriers or writes into its shared memory, so
//   it may exit while the peer still runs its epilogue.
// - No split K: k14 serves the grids of full waves; the plan keeps k13 for
//   the rest.
// - The 64 x 128 tile (Config's BM = 64, one consumer warpgroup) shares B
//   between M-neighbours, as cuBLASLt runs 1000^3 (`..._64x128_64x8_2x1_...`):
//   where rows straddle 128-byte lines the L2's requests per flop bound a
//   small problem, and the cluster halves B's.
//
// Predicted (docs/ladder.md, k14): the L2 -> SM bytes per tile drop by a
// third; in the k11 energy study the TMA traffic alone drew about 390 W at
// full clock, multicast saved 4 % of that traffic's energy per GEMM.  So +1..3 %
// at the power-capped sizes (4096^3, 8192^3, the llm shapes), more where the
// L2 request rate limits (1000^3, 1024^3: +10..20 %); a stage now waits for
// the slower of two CTAs, which cost the mma.sync kernel 3-5 % (k11's
// multicast variant), less here where wgmma keeps a k-tile in flight.
#pragma once

#include "tessel/kernels/gemm/k10_persistent_warpgroup.cuh"
#include "tessel/kernels/gemm/tile_epilogue.cuh"
#include "tessel/kernels/gemm/wgmma_tiles.cuh"

namespace tessel::gemm_kernels::k14 {

using warp_specialized::kGroup;

inline constexpr int kClusterM = 2;               // CTAs per cluster, along M
inline constexpr std::uint16_t kClusterMask = 3;  // multicast into both CTAs

/// k13's tiles, with the shared operand loaded in two parts, one from each
/// CTA of the cluster.  The cluster shares the wider of the two operand
/// tiles, whose halves save the most bytes: B (BN x 64) where BN >= 128, A
/// (128 x 64) at BN = 64.  At 128 x 64 sharing B saved a sixth of a CTA's
/// L2 reads per k-tile (8 of 48 KB per pair) and k14 lost to k13 at 1024^3
/// (0.70 against 0.85); sharing A saves a third (16 of 48 KB), as cuBLASLt's
/// 1024^3 kernel does (`..._128x64_64x8_1x2_...`: clusters of two
/// N-neighbours, docs/ladder.md, k14).
template <class T, MajorA MA, MajorB MB, class Cfg>
struct Tiles : wgmma::Tiles<T, MA, MB, Cfg> {
  using Base = wgmma::Tiles<T, MA, MB, Cfg>;
  /// The cluster's two CTAs compute N-neighbours (m, 2j), (m, 2j + 1) and
  /// share A; else M-neighbours (2i, n), (2i + 1, n) that share B.
  static constexpr bool kSharesA = Base::kBN < Base::kBM;
  /// An operand's tile as k13 lays it out, copied by TMA in Parts parts (the
  /// same shared image, its boxes split between the CTAs; the host encodes
  /// the map with these boxes).
  template <class Op, int Rows, int Parts>
  struct Split : Op {
    using Tma = TmaTile<T, make_shape(Rows, kBK), Op::kSmem, Parts>;
    static_assert(Tma::kBoxes % Parts == 0, "tessel: k14 splits the shared operand's boxes evenly between the CTAs");
  };
  using OpA = Split<typename Base::OpA, Base::kBM, kSharesA ? kClusterM : 1>;
  using OpB = Split<typename Base::OpB, Base::kBN, kSharesA ? 1 : kClusterM>;
  /// CTA `rank`'s tile of tile pair `pair` (the scheduler's coordinates).
  __host__ __device__ static constexpr blocks::TileCoord tile_of(blocks::TileCoord pair, index_t rank) {
    return kSharesA ? blocks::TileCoord{pair.m, pair.n * kClusterM + rank}
                    : blocks::TileCoord{pair.m * kClusterM + rank, pair.n};
  }
  /// The scheduler's grid of tile pairs for tiles_m x tiles_n tiles.
  __host__ __device__ static constexpr index_t pair_rows(index_t tiles_m) {
    return kSharesA ? tiles_m : (tiles_m + kClusterM - 1) / kClusterM;
  }
  __host__ __device__ static constexpr index_t pair_cols(index_t tiles_n) {
    return kSharesA ? (tiles_n + kClusterM - 1) / kClusterM : tiles_n;
  }
};

/// Pairs of tiles in the grouped raster (Tiles::tile_of): both CTAs of a
/// cluster walk the same pairs.  Counted in 32 bits (check_k14 bounds the
/// pairs), so that the first pair costs no 64-bit division.
using Scheduler = blocks::PersistentScheduler<blocks::GroupedRaster<kGroup>, unsigned>;

/// Launch with cluster dimension (2, 1, 1), an even number of CTAs (at most
/// twice the clusters that fit at once, at most twice the tile pairs),
/// Cfg::kThreads each and Tiles<...>::kSmemBytes of dynamic shared memory.
template <class T, MajorA MA, MajorB MB, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_cluster_multicast(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                           const __grid_constant__ CUtensorMap map_d, bool tma_store, Params<T> p) {
  using X = Tiles<T, MA, MB, Cfg>;
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  using TM = typename X::TM;
  using Pipeline = typename X::Pipeline;
  using Schedule = k10::ProducerWarpgroupPersistent;  // setmaxnreg 40 / 232
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::SharedStorage*>(smem);
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const std::uint32_t rank = arch::sm90::cluster_ctarank();

  constexpr int kConsumerWarps = Cfg::kConsumerWarps;
  if (threadIdx.x == 0) pipe.init(kClusterM * kConsumerWarps);  // every consumer warp of both CTAs releases
  arch::sm90::cluster_arrive_relaxed();  // init's fence released the barriers; each side waits after its setup

  const index_t tiles_m = ceil_div(p.m, index_t{X::kBM}), tiles_n = ceil_div(p.n, index_t{X::kBN});
  const index_t k_tiles = ceil_div(p.k, index_t{kBK});
  const index_t cluster = blockIdx.x / kClusterM, clusters = gridDim.x / kClusterM;
  Scheduler scheduler(X::pair_rows(tiles_m), X::pair_cols(tiles_n), cluster, clusters);

  if (warp >= kConsumerWarps) {  // the producer warpgroup: one thread issues every load
    Schedule::producer_start();
    if (warp == kConsumerWarps && arch::sm90::elect_one_sync()) {
      arch::sm90::prefetch_tensormap(&map_a);
      arch::sm90::prefetch_tensormap(&map_b);
    }
    __syncwarp();
    arch::sm90::cluster_wait();  // the peer's barriers are initialized: multicast into it, and its releases arrive
    if (warp == kConsumerWarps && arch::sm90::elect_one_sync()) {
      typename Pipeline::State write;
      for (blocks::TileCoord pair; scheduler.next(pair);) {
        const blocks::TileCoord tile = X::tile_of(pair, rank);
        for (index_t kt = 0; kt < k_tiles; ++kt, ++write) {
          // Free in both CTAs (16 releases), then armed for all of A and B:
          // this CTA's part of the shared operand and the peer's land on the
          // same barrier.
          pipe.producer_acquire(write, X::kStageBytes);
          const int s = write.index();
          if constexpr (X::kSharesA) {
            OpA::Tma::load_multicast(&map_a, shared.a[s], pipe.full(s), kClusterMask, static_cast<int>(rank), tile.m,
                                     kt);                                   // this CTA's half of A (m, kt), into both
            OpB::Tma::load(&map_b, shared.b[s], pipe.full(s), tile.n, kt);  // B (n, kt)
          } else {
            OpA::Tma::load(&map_a, shared.a[s], pipe.full(s), tile.m, kt);  // A (m, kt)
            OpB::Tma::load_multicast(&map_b, shared.b[s], pipe.full(s), kClusterMask, static_cast<int>(rank), tile.n,
                                     kt);  // this CTA's half of B (n, kt), into both CTAs
          }
        }
      }
      pipe.producer_tail(write);  // the peer's last releases have landed: this CTA may exit
    }
    __syncwarp();
  } else {
    Schedule::consumer_start();
    const int t = static_cast<int>(threadIdx.x);  // thread t of the TiledMMA's 256 (128 at 64 rows)
    const auto thr = TM{}.get_slice(t);
    const auto thr_desc = TM{}.get_slice(__shfl_sync(0xffffffffu, t, 0));  // warp-uniform descriptors, as in k13
    constexpr int kRK = kBK / TM::kL.k;                                    // wgmmas (k16) per k-tile
    const TileEpilogue<X, T> epilogue{tma_store ? &map_d : nullptr, p, shared.d, false};
    arch::sm90::cluster_wait();  // both CTAs' barriers are initialized
    // A stage goes back to both producers: this CTA's, and the peer's, which
    // multicasts its half of B into it.
    const auto release = [&](const typename Pipeline::State& st) {
      __syncwarp();
      if (lane == 0) {
        pipe.consumer_release(st);
        pipe.consumer_release_cluster(st, rank ^ 1u);
      }
    };
    typename Pipeline::State read;
    for (blocks::TileCoord pair; scheduler.next(pair);) {
      const blocks::TileCoord tile = X::tile_of(pair, rank);
      epilogue.prefetch_c(tile, t);  // C's tile into L2 (beta != 0)
      typename X::FragC acc;         // (BN/2,1,1) f32: 64 x BN per warpgroup
      for (index_t kt = 0; kt < k_tiles; ++kt, ++read) {
        pipe.consumer_wait(read);
        const auto tCdA =
            thr_desc.partition_fragment_A(make_smem_tensor<OpA::kSmem>(shared.a[read.index()]));  // (1,1,4)
        const auto tCdB =
            thr_desc.partition_fragment_B(make_smem_tensor<OpB::kSmem>(shared.b[read.index()]));  // (1,1,4)
        warpgroup_fence_operand(acc);
        warpgroup_arrive();
        TESSEL_UNROLL
        for (int k = 0; k < kRK; ++k) gemm(TM{}, tCdA(_, _, k), tCdB(_, _, k), acc, kt > 0 || k > 0);
        warpgroup_commit_batch();
        warpgroup_wait<1>();  // k-tile kt-1's batch is done: its stage may be refilled
        warpgroup_fence_operand(acc);
        if (kt > 0) release(read.previous());
      }
      warpgroup_wait<0>();  // the tile's last batch
      warpgroup_fence_operand(acc);
      release(read.previous());
      epilogue.store(tile, acc, t);
    }
    epilogue.finish(t);
  }
}

}  // namespace tessel::gemm_kernels::k14
