// tessel/kernels/gemm/cluster_pair.cuh — the cluster shell's pieces: the
// CTAs of a cluster (k14's pairs, or CM x CN) compute neighbouring tiles and
// share operand tiles, each loading its share by TMA multicast into the CTAs
// that need it.  Here: the tiles with the shared operands split in parts
// (ClusterTiles; Tiles, k14's pairs), the cluster tiles the CTAs walk
// (Scheduler), the units they take (Units: cluster tiles, or split K's
// ranges of them), the producer's loads of one stage, and the consumers' release
// of a stage to every producer that fills it.  Taken by k14
// (k14_cluster_multicast.cuh).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/blocks/pipeline_sm90.cuh"
#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/wgmma_tiles.cuh"

namespace tessel::gemm_kernels::cluster {

/// A kernel's tiles (Base: k13's wgmma::Tiles, pingpong::Tiles) on a cluster
/// of CM x CN CTAs computing neighbouring tiles:
/// the CM CTAs of a cluster column (one tile column, CM tile rows) share
/// B's tile, the CN CTAs of a cluster row share A's; each loads its share of
/// each shared operand's boxes and multicasts it into every CTA that needs
/// it.  So each CTA requests 1/CN of A's and 1/CM of B's lines from L2 per
/// k-tile.  CTA `rank` of a cluster is at (rank % CM, rank / CM) in it.
template <class T, class Base, int CM, int CN>
struct ClusterOf : Base {
  static_assert(CM >= 1 && CN >= 1 && CM * CN >= 2 && CM * CN <= 8,
                "tessel: a cluster of 2 to 8 CTAs (the portable cluster size)");
  static constexpr int kCM = CM, kCN = CN, kSize = CM * CN;
  /// The CTAs that multicast into a CTA's stages, itself included: its
  /// cluster row (A's shares) and column (B's). Each consumer warp
  /// releases a stage to all of them.
  static constexpr int kSenders = CM + CN - 1;
  /// k14's pairs: the cluster shares the wider of the two operand tiles.
  static constexpr bool kSharesA = CN > 1 && CM == 1;
  /// An operand's tile as k13 lays it out, copied by TMA in Parts parts (the
  /// same shared image, its boxes split between the CTAs; the host encodes
  /// the map with these boxes).
  template <class Op, int Rows, int Parts>
  struct Split : Op {
    using Tma = TmaTile<T, make_shape(Rows, Base::kBK), Op::kSmem, Parts>;
    static_assert(Tma::kBoxes % Parts == 0, "tessel: a cluster splits a shared operand's boxes evenly");
  };
  using OpA = Split<typename Base::OpA, Base::kBM, CN>;
  using OpB = Split<typename Base::OpB, Base::kBN, CM>;
  __host__ __device__ static constexpr std::uint32_t rank_m(std::uint32_t rank) { return rank % CM; }
  __host__ __device__ static constexpr std::uint32_t rank_n(std::uint32_t rank) { return rank / CM; }
  /// Which share of A (B) CTA `rank` loads: its place in its cluster row
  /// (column); a pair's is its rank (the same machine code as k14 measured).
  __host__ __device__ static constexpr int share_a(std::uint32_t rank) {
    return static_cast<int>(kSize == 2 ? rank : rank_n(rank));
  }
  __host__ __device__ static constexpr int share_b(std::uint32_t rank) {
    return static_cast<int>(kSize == 2 ? rank : rank_m(rank));
  }
  /// The CTAs that take A's (B's) shares of CTA `rank`: its cluster row (column).
  __host__ __device__ static constexpr std::uint16_t mask_a(std::uint32_t rank) {
    if constexpr (CM == 1) return static_cast<std::uint16_t>((1u << CN) - 1);
    std::uint32_t m = 0;
    for (int j = 0; j < CN; ++j) m |= 1u << (rank_m(rank) + CM * j);
    return static_cast<std::uint16_t>(m);
  }
  __host__ __device__ static constexpr std::uint16_t mask_b(std::uint32_t rank) {
    if constexpr (CN == 1) return static_cast<std::uint16_t>((1u << CM) - 1);
    return static_cast<std::uint16_t>(((1u << CM) - 1) << (CM * rank_n(rank)));
  }
  /// CTA `rank`'s tile of cluster tile `pair` (the scheduler's coordinates).
  /// A tile count that is not a multiple of the cluster's leaves tiles outside
  /// D: those CTAs run them all the same (their peers need their shares and
  /// releases) and their epilogues write nothing (TMA clips the boxes; the
  /// row stores check rows and columns).
  __host__ __device__ static constexpr blocks::TileCoord tile_of(blocks::TileCoord pair, index_t rank) {
    if constexpr (kSize == 2)  // a pair: the rank is the place along the shared dimension
      return CM == 2 ? blocks::TileCoord{pair.m * 2 + rank, pair.n} : blocks::TileCoord{pair.m, pair.n * 2 + rank};
    const auto r = static_cast<std::uint32_t>(rank);
    return blocks::TileCoord{pair.m * CM + rank_m(r), pair.n * CN + rank_n(r)};
  }
  /// The scheduler's grid of cluster tiles for tiles_m x tiles_n tiles.
  __host__ __device__ static constexpr index_t pair_rows(index_t tiles_m) { return (tiles_m + CM - 1) / CM; }
  __host__ __device__ static constexpr index_t pair_cols(index_t tiles_n) { return (tiles_n + CN - 1) / CN; }
};

/// k13's tiles on a cluster of CM x CN CTAs.
template <class T, MajorA MA, MajorB MB, class Cfg, int CM, int CN>
using ClusterTiles = ClusterOf<T, wgmma::Tiles<T, MA, MB, Cfg>, CM, CN>;

/// k14's pairs: CTAs (2i, n), (2i + 1, n) sharing B where BN >= 128, else
/// (m, 2j), (m, 2j + 1) sharing A (the wider operand tile, whose halves save
/// the most bytes).  At 128 x 64 sharing B saved a sixth of a CTA's L2 reads
/// per k-tile (8 of 48 KB per pair) and k14 lost to k13 at 1024^3 (0.70
/// against 0.85); sharing A saves a third (16 of 48 KB), as cuBLASLt's 1024^3
/// kernel does (`..._128x64_64x8_1x2_...`: clusters of two N-neighbours,
/// docs/ladder.md, k14).
template <class Cfg>
inline constexpr int kPairM = Cfg::kBN < Cfg::kBM ? 1 : 2;  // the pair's CTAs along M
template <class Cfg>
inline constexpr int kPairN = 3 - kPairM<Cfg>;  // and along N
template <class T, MajorA MA, MajorB MB, class Cfg>
using Tiles = ClusterTiles<T, MA, MB, Cfg, kPairM<Cfg>, kPairN<Cfg>>;

/// Cluster tiles in the grouped raster (ClusterTiles::tile_of): every CTA of
/// a cluster walks the same cluster tiles.  Counted in 32 bits (check_k14
/// bounds the tiles), so that the first costs no 64-bit division.
using Scheduler = blocks::PersistentScheduler<blocks::GroupedRaster<warp_specialized::kGroup>, unsigned>;

/// The units a cluster's CTAs walk, all CTAs of a cluster the same: cluster
/// tiles (Scheduler), or with Split a cluster tile's k-ranges, `splits` of
/// them (blocks::SplitKScheduler over the cluster tiles).  A CTA computes its
/// own tile of the unit's cluster tile (X::tile_of(pair(u), rank)) over the
/// unit's k-tiles [k_begin(u), k_end(u)).
template <class X, bool Split>
class Units {
  using Sched =
      std::conditional_t<Split, blocks::SplitKScheduler<blocks::GroupedRaster<warp_specialized::kGroup>>, Scheduler>;

 public:
  using Unit = std::conditional_t<Split, blocks::WorkUnit, blocks::TileCoord>;
  __device__ Units(index_t tiles_m, index_t tiles_n, index_t k_tiles, int splits, index_t cluster, index_t clusters)
      : sched_(make(X::pair_rows(tiles_m), X::pair_cols(tiles_n), k_tiles, splits, cluster, clusters)),
        k_tiles_(static_cast<int>(k_tiles)) {}
  __device__ bool next(Unit& u) { return sched_.next(u); }
  __device__ static blocks::TileCoord pair(const Unit& u) {
    if constexpr (Split)
      return u.tile;
    else
      return u;
  }
  __device__ int k_begin(const Unit& u) const {
    if constexpr (Split)
      return u.k_begin;
    else
      return 0;
  }
  __device__ int k_end(const Unit& u) const {
    if constexpr (Split)
      return u.k_end;
    else
      return k_tiles_;
  }

 private:
  __device__ static Sched make(index_t rows, index_t cols, index_t k_tiles, int splits, index_t cluster,
                               index_t clusters) {
    if constexpr (Split)
      return Sched(rows, cols, k_tiles, splits, cluster, clusters);
    else
      return Sched(rows, cols, cluster, clusters);
  }
  Sched sched_;
  int k_tiles_;
};

/// The producer thread's loads of k-tile kt of `tile` into stage s, whose
/// full barrier is armed for all of A and B (producer_acquire, once the
/// stage is free in every CTA it multicasts into): this CTA's share of each
/// shared operand, multicast into the CTAs that share it, and any operand
/// the cluster does not share; the peers' shares land on the same barrier.
template <class X, class Pipeline, class Shared>
__device__ __forceinline__ void load_stage(const CUtensorMap* map_a, const CUtensorMap* map_b, Shared& shared,
                                           const Pipeline& pipe, int s, std::uint32_t rank, blocks::TileCoord tile,
                                           index_t kt) {
  if constexpr (X::kCN > 1)  // this CTA's share of A (m, kt), into its cluster row
    X::OpA::Tma::load_multicast(map_a, shared.a[s], pipe.full(s), X::mask_a(rank), X::share_a(rank), tile.m, kt);
  else
    X::OpA::Tma::load(map_a, shared.a[s], pipe.full(s), tile.m, kt);  // A (m, kt)
  if constexpr (X::kCM > 1)  // this CTA's share of B (n, kt), into its cluster column
    X::OpB::Tma::load_multicast(map_b, shared.b[s], pipe.full(s), X::mask_b(rank), X::share_b(rank), tile.n, kt);
  else
    X::OpB::Tma::load(map_b, shared.b[s], pipe.full(s), tile.n, kt);  // B (n, kt)
}

/// A consumer warp's release of a stage to every producer that multicasts
/// into it (consume()'s `release`, wgmma_mainloop.cuh): this CTA's, and its
/// cluster row's and column's.  A stage may be refilled only when the
/// consumers of every CTA it fills are done with it, so each stage's empty
/// barrier counts X::kSenders releases of every consumer warp.
template <class X>
struct ReleaseCluster {
  std::uint32_t rank;  // this CTA's rank in the cluster
  template <class Pipeline>
  __device__ __forceinline__ void operator()(const Pipeline& pipe, const typename Pipeline::State& st, int lane) const {
    __syncwarp();
    if (lane == 0) {
      pipe.consumer_release(st);
      if constexpr (X::kSize == 2) {
        pipe.consumer_release_cluster(st, rank ^ 1u);
      } else {
        const std::uint32_t rm = X::rank_m(rank), rn = X::rank_n(rank);
        TESSEL_UNROLL
        for (int i = 0; i < X::kCM; ++i)
          if (static_cast<std::uint32_t>(i) != rm) pipe.consumer_release_cluster(st, i + X::kCM * rn);
        TESSEL_UNROLL
        for (int j = 0; j < X::kCN; ++j)
          if (static_cast<std::uint32_t>(j) != rn) pipe.consumer_release_cluster(st, rm + X::kCM * j);
      }
    }
  }
};
}  // namespace tessel::gemm_kernels::cluster
