// k15 — pingpong: the two consumer warpgroups work on different tiles, and
// one's epilogue runs while the other's wgmmas keep the tensor cores busy.
//
// Why: in k13 (cooperative) both consumer warpgroups share one 128 x 256
// tile, so they reach the epilogue together and the tensor cores idle until
// the tile is stored.  Measured at 4096^3 on an H100:
// the fused bias + tanh-GELU epilogue adds 4.8 M instructions (+22 %) and
// +4 to +9 % of time to k13 although its arithmetic is ~2 us a tile, because
// nothing overlaps it; the plain epilogue is exposed the same way.  Here each
// consumer warpgroup owns a whole 128 x 128 tile (two m64n128k16 wgmmas per
// k16 step, the TiledMMA's M repeat, 128 fp32 accumulators per thread as in
// k13).  The producer loads the CTA's work units in order, all k-tiles of
// unit 0, then of unit 1, ...; warpgroup w computes the units i with
// i % 2 == w and skips the other's stages in its pipeline state.  While
// warpgroup 0 stores tile i, warpgroup 1 runs tile i+1's wgmmas on stages the
// producer filled during tile i.  The main loops take turns through a pair of
// mbarriers (`turn`, pingpong.cuh says why): a warpgroup starts unit i+1
// only once the other has issued all of unit i's wgmmas.  Each warpgroup has
// its own staging buffers, bias slice and named barrier, so their epilogues
// (which may overlap) never share shared memory.
//
// The cost: a 128 x 128 tile reads (128 + 128) x 64 x 2 bytes of operands per
// k-tile for 2 x 128 x 128 x 64 flops, 1.33x the operand traffic per flop of
// k13's 128 x 256 tile, and each warpgroup's wgmmas read B twice (once per
// m64 atom).  Two staging buffers of 32 KB leave 5 stages of 32 KB.
//
// Predicted (docs/ladder.md, k15): plain GEMM at 4096^3 within ±3 % of k13
// (the hidden epilogue, ~2-3 % of k13's time, against the extra L2 traffic);
// the fused bias + GELU epilogue within 2 % of k15's plain GEMM (the
// epilogue's ~2-3 us per tile hides behind the other warpgroup's ~25 us
// mainloop).
#pragma once

#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/k10_persistent_warpgroup.cuh"
#include "tessel/kernels/gemm/pingpong.cuh"
#include "tessel/kernels/gemm/tile_epilogue.cuh"
#include "tessel/kernels/gemm/wgmma_mainloop.cuh"
#include "tessel/kernels/gemm/wgmma_tiles.cuh"

namespace tessel::gemm_kernels::k15 {

using pingpong::kConsumerGroups;
using pingpong::kFirstBarrier;
using pingpong::kGroupThreads;
using wgmma::kBM;                               // 128 rows per warpgroup tile
inline constexpr int kBN = 128;                 // columns per warpgroup tile
inline constexpr int kThreads = k10::kThreads;  // + the producer warpgroup: 384

/// The tile (128 x 128 per consumer warpgroup) and what follows from it.
/// `Fused`: the fused-epilogue instance (FusedParams, a bias slice per
/// warpgroup), as wgmma::Config<BN, true>.  `Stages`: the pipeline's depth;
/// 0 fills the shared memory that the staging leaves (5 stages).
template <bool Fused = false, int Stages = 0>
struct Config {
  static_assert(Stages == 0 || Stages >= 2, "tessel: a k15 pipeline has at least two stages");
  static constexpr int kBN = k15::kBN;
  static constexpr bool kFused = Fused;
  static constexpr int kStages = Stages;
  static constexpr bool kTmaStore = true;     // D leaves through TMA stores (or the staged row stores)
  static constexpr bool kTransposed = false;  // never swapped
  using Epi = RuntimeEpilogue;
  template <class T>
  using ParamsOf = std::conditional_t<Fused, FusedParams<T>, Params<T>>;
};

/// A warpgroup's tiles, stages and shared memory (pingpong.cuh).
template <class T, MajorA MA, MajorB MB, class Cfg>
using Tiles = pingpong::Tiles<T, MA, MB, Cfg>;

/// Launch with min(SMs, tiles) CTAs of kThreads and Tiles<...>::kSmemBytes;
/// `group` >= 1 tile rows per group of the raster.  A fused configuration
/// (Cfg::kFused) takes FusedParams<T>.
template <class T, MajorA MA, MajorB MB, class Cfg>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_pingpong(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                  const __grid_constant__ CUtensorMap map_d, bool tma_store, typename Cfg::template ParamsOf<T> p,
                  int group) {
  using X = Tiles<T, MA, MB, Cfg>;
  using TM = typename X::TM;
  using Pipeline = typename X::Pipeline;
  using Schedule = k10::ProducerWarpgroupPersistent;  // setmaxnreg 40 / 232
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::Storage*>(smem);
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  if (threadIdx.x == 0) pingpong::init(pipe, shared);
  __syncthreads();

  const index_t tiles_m = ceil_div(p.m, index_t{kBM}), tiles_n = ceil_div(p.n, index_t{kBN});
  const index_t k_tiles = ceil_div(p.k, index_t{X::kBK});
  blocks::SplitKScheduler<blocks::GroupedRasterN> scheduler(tiles_m, tiles_n, k_tiles, 1, blockIdx.x, gridDim.x,
                                                            blocks::GroupedRasterN{group});

  if (warp >= kConsumerGroups * 4) {  // the producer warpgroup: one thread loads every unit's k-tiles in order
    Schedule::producer_start();
    if (warp == kConsumerGroups * 4 && arch::sm90::elect_one_sync()) {
      typename Pipeline::State write;
      pingpong::produce<X>(scheduler, pipe, shared, &map_a, &map_b, write);
    }
    return;
  }
  Schedule::consumer_start();

  // This consumer warpgroup (0 or 1) as lane 0's value, which the compiler knows to be warp-uniform:
  // the pipeline state that depends on it then stays in uniform registers, and so do the descriptors.
  const int wg = __shfl_sync(0xffffffffu, warp / 4, 0);
  const int t = static_cast<int>(threadIdx.x) % kGroupThreads;  // thread t of 128 in the TiledMMA
  // Warp-uniform descriptors, as in k13 (lane 0's index: the same across the warp).
  const auto thr_desc = TM{}.get_slice(__shfl_sync(0xffffffffu, t, 0));
  float* bias_slice = nullptr;
  if constexpr (Cfg::kFused) bias_slice = shared.bias[wg];
  const TileEpilogue<X, T, typename Cfg::template ParamsOf<T>> epilogue{
      tma_store ? &map_d : nullptr, p, shared.d[wg], false, bias_slice, kFirstBarrier + wg};
  // This CTA's units are blockIdx.x, blockIdx.x + gridDim.x, ... (the grid is at most the unit count).
  const int units = static_cast<int>((scheduler.units() - 1 - static_cast<int>(blockIdx.x)) / gridDim.x) + 1;
  typename Pipeline::State read;
  int i = 0;  // the unit's position in this CTA's sequence: warpgroup i % 2 computes it
  for (blocks::WorkUnit u; scheduler.next(u); ++i) {
    if (i % kConsumerGroups != wg) {
      read.advance(static_cast<int>(u.k_end - u.k_begin));  // the other warpgroup's stages
      continue;
    }
    typename X::FragC acc;  // (64,2,1) f32: 128 x 128 per warpgroup
    epilogue.prepare(u.tile, t);
    // The turn: the other warpgroup has issued unit i-1's last batch; unit i's hands it back.
    pingpong::wait_turn(shared, wg, i);
    const auto hand_over = [&] { pingpong::hand_over(shared, wg, i, units, lane); };
    consume<X>(pipe, read, shared, thr_desc, static_cast<int>(u.k_begin), static_cast<int>(u.k_end), acc, lane,
               hand_over);
    if constexpr (Cfg::kFused)
      epilogue.store_fused(u.tile, acc, t);
    else
      epilogue.store_beta0(u.tile, acc, t);  // beta = 0 only (the launcher's check_k15)
  }
  epilogue.finish(t);
}

}  // namespace tessel::gemm_kernels::k15
