// k09 — TMA loads and an mbarrier pipeline with a producer warp; the MMAs are
// still mma.sync (k04's atom, ldmatrix from the same swizzled tiles).
//
// Why: k07's loop with a 128x256 tile and one CTA per SM was *slower* than
// its 128x128 tile with two CTAs per SM (docs/ladder.md): every k-tile ended
// in a CTA-wide barrier, where all eight warps waited for the slowest and the
// tensor cores drained, and every thread spent instructions on cp.async
// addresses.  Here:
//   * TMA loads whole boxes (TmaTile): one elected thread of a ninth,
//     producer warp issues them; no per-thread address arithmetic, zeros
//     outside the matrix;
//   * mbarriers replace __syncthreads (TmaPipeline): a stage's `full`
//     barrier completes when its bytes land; each consumer warp releases the
//     stage on its `empty` barrier as soon as its ldmatrix reads are issued.
//     Warps drift freely; the only waits are on data;
//   * the 128x256 tile (8 consumer warps, 64x64 each) and 4 stages of
//     tma_warp_specialized_common.cuh: a quarter less L2 traffic per flop
//     than 128x128, which only pays once the barriers are gone.
// One tile per CTA (grid = tiles, grouped raster of blockIdx as in k06) and
// the register epilogue of k04..k07: k10 and k11 change those.
//
// Predicted (docs/ladder.md, "Summary", written before the first measurement,
// when k09..k11 were one step): a range for the whole TMA design, k09 to k11
// together; nothing was predicted for this step alone.  Measured during
// development (with the main loop of the time): the largest single gain at
// the top of the ladder, still below that range; k10 and k11 brought the
// rest.  9 warps allow only 168 registers per thread (three warps share one
// SM sub-partition), and today's main loop needs more: ptxas spills some of
// its addresses to local memory.  k10's register split is the answer.
#pragma once

#include "tessel/kernels/gemm/tma_warp_specialized_common.cuh"

namespace tessel::gemm_kernels::k09 {

using warp_specialized::kBM;
using warp_specialized::kBN;
using warp_specialized::kConsumerWarps;
using warp_specialized::kGroup;
using warp_specialized::kStages;
using warp_specialized::Tiles;

/// Who produces and which tiles a CTA computes (warp_specialized::run): a
/// ninth warp produces, every warp keeps the registers the launch gives it,
/// and each CTA computes one tile.
struct ProducerWarpOneTile {
  static constexpr int kThreads = 32 * (kConsumerWarps + 1);  // + one producer warp
  __device__ static void producer_start() {}
  __device__ static void consumer_start() {}
  /// Tile blockIdx.x in groups of kGroup tile rows (k06's order), and no
  /// other: the launch has one CTA per tile.
  __device__ static blocks::PersistentScheduler<blocks::GroupedRaster<kGroup>> scheduler(index_t tiles_m,
                                                                                         index_t tiles_n) {
    return {tiles_m, tiles_n, blockIdx.x, tiles_m * tiles_n};  // a stride of every tile: the first tile is the last
  }
};
inline constexpr int kThreads = ProducerWarpOneTile::kThreads;

/// The operand stages and the pipeline's barriers.
template <class T, MajorA MA, MajorB MB>
struct SharedStorage {
  typename Tiles<T, MA, MB>::Stages stages;
  blocks::PipelineStorage<kStages> pipe;
};
template <class T, MajorA MA, MajorB MB>
inline constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage<T, MA, MB>));

/// D from registers: each consumer thread stores its accumulators (k04's epilogue).
template <class T, MajorA MA, MajorB MB>
struct RegisterTileEpilogue {
  using X = Tiles<T, MA, MB>;
  const Params<T>& p;
  __device__ void store(blocks::TileCoord tile, const typename X::FragC& tCrC, int t) const {
    RegisterEpilogue::apply<typename X::TM, typename X::CTile>(p, tile.m * kBM, tile.n * kBN, tCrC, nullptr, t);
  }
  __device__ void finish(int /*t*/) const {}
};

/// Launch with one CTA per tile of D: ceil(M/128) * ceil(N/256) CTAs of kThreads.
template <class T, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_tma_mbarriers(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                       Params<T> p) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<SharedStorage<T, MA, MB>*>(smem);
  warp_specialized::run<Tiles<T, MA, MB>, ProducerWarpOneTile>(map_a, map_b, p, shared,
                                                               RegisterTileEpilogue<T, MA, MB>{p});
}

}  // namespace tessel::gemm_kernels::k09
