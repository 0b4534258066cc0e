// tessel/kernels/gemm/cluster_pair.cuh — the 2-CTA cluster shell's pieces:
// the two CTAs of a cluster compute neighbouring tiles and share one operand
// tile, each loading half of it by TMA multicast into both.  Here: the tiles
// with the shared operand split in two parts (Tiles), the pairs of tiles the
// CTAs walk (Scheduler), the producer's loads of one stage, and the
// consumers' release of a stage to both producers.  Taken by k14
// (k14_cluster_multicast.cuh).
#pragma once

#include <cstdint>

#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/blocks/pipeline_sm90.cuh"
#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/wgmma_tiles.cuh"

namespace tessel::gemm_kernels::cluster {

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
  /// CTA `rank`'s tile of tile pair `pair` (the scheduler's coordinates).  An
  /// odd tile-row (column) count leaves the last pair's second tile outside
  /// D: that CTA runs it all the same (its peer needs its half of the shared
  /// tile and its releases) and its epilogue writes nothing (TMA clips the
  /// boxes; the row stores check rows and columns).
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
using Scheduler = blocks::PersistentScheduler<blocks::GroupedRaster<warp_specialized::kGroup>, unsigned>;

/// The producer thread's loads of k-tile kt of `tile` into stage s, whose
/// full barrier is armed for all of A and B (producer_acquire, once the
/// stage is free in both CTAs): this CTA's part of the shared operand,
/// multicast into both CTAs, and its own operand; the peer's part of the
/// shared one lands on the same barrier.
template <class X, class Pipeline, class Shared>
__device__ __forceinline__ void load_stage(const CUtensorMap* map_a, const CUtensorMap* map_b, Shared& shared,
                                           const Pipeline& pipe, int s, std::uint32_t rank, blocks::TileCoord tile,
                                           index_t kt) {
  if constexpr (X::kSharesA) {
    X::OpA::Tma::load_multicast(map_a, shared.a[s], pipe.full(s), kClusterMask, static_cast<int>(rank), tile.m,
                                kt);                                  // this CTA's half of A (m, kt), into both
    X::OpB::Tma::load(map_b, shared.b[s], pipe.full(s), tile.n, kt);  // B (n, kt)
  } else {
    X::OpA::Tma::load(map_a, shared.a[s], pipe.full(s), tile.m, kt);  // A (m, kt)
    X::OpB::Tma::load_multicast(map_b, shared.b[s], pipe.full(s), kClusterMask, static_cast<int>(rank), tile.n,
                                kt);  // this CTA's half of B (n, kt), into both CTAs
  }
}

/// A consumer warp's release of a stage to both producers (consume()'s
/// `release`, wgmma_mainloop.cuh): this CTA's, and the peer's, which
/// multicasts its half of the shared operand into it.  A stage may be
/// refilled only when the consumers of both CTAs are done with it, so each
/// stage's empty barrier counts every consumer warp of both.
struct ReleaseBoth {
  std::uint32_t rank;  // this CTA's rank in the cluster
  template <class Pipeline>
  __device__ __forceinline__ void operator()(const Pipeline& pipe, const typename Pipeline::State& st, int lane) const {
    __syncwarp();
    if (lane == 0) {
      pipe.consumer_release(st);
      pipe.consumer_release_cluster(st, rank ^ 1u);
    }
  }
};

}  // namespace tessel::gemm_kernels::cluster
