// k10 — k09 + persistent CTAs, with a producer warpgroup that gives its
// registers to the consumers (setmaxnreg).
//
// Why: in k09 every CTA runs one tile, so each SM fills its pipeline from
// empty at every tile and leaves it empty while the consumers store D.  Here
// one CTA per SM walks the tiles of a grouped raster (PersistentScheduler);
// the pipeline state runs on across tiles, so the producer loads the next
// tile's first k-tiles while the consumers are still in the previous tile's
// epilogue.  The consumers need registers: with 9 warps three warps share one
// SM sub-partition, which allows 168 registers per thread, too few for their
// main loop (k09 spills).  So the producer is a whole warpgroup (12 warps in
// all) that keeps 40 registers per thread and gives the rest to the
// consumers, which take 232 (128 x 40 + 256 x 232 <= 65536).
//
// Predicted: nothing for this step alone (docs/ladder.md: the range written
// before the first measurement covers k09..k11 together).  Measured: a gain
// over k09, much smaller than k09's over the cp.async loop.  Tried and
// dropped on the way (docs/ladder.md has the numbers): persistence without a
// producer (thread 0 issuing the loads a few k-tiles ahead), slower than
// k09: warp 0 waited for the slowest warp before every refill and everyone
// then waited for warp 0's loads.
#pragma once

#include "tessel/kernels/gemm/k09_tma_mbarriers.cuh"

namespace tessel::gemm_kernels::k10 {

using k09::kSmemBytes;
using k09::RegisterTileEpilogue;
using k09::SharedStorage;
using warp_specialized::kConsumerWarps;
using warp_specialized::kGroup;
using warp_specialized::Tiles;

/// Who produces and which tiles a CTA computes (warp_specialized::run): a
/// producer warpgroup that gives its registers to the consumers, and one
/// persistent CTA per SM walking the tiles.
struct ProducerWarpgroupPersistent {
  static constexpr int kThreads = 32 * (kConsumerWarps + 4);  // + one producer warpgroup
  // setmaxnreg moves registers from the producer warpgroup (one thread
  // works) to the consumers: 128*40 + 256*232 <= 65536.
  static constexpr int kProducerRegs = 40, kConsumerRegs = 232;
  __device__ static void producer_start() { arch::sm90::setmaxnreg_dec<kProducerRegs>(); }
  __device__ static void consumer_start() { arch::sm90::setmaxnreg_inc<kConsumerRegs>(); }
  /// CTA b computes tiles b, b + gridDim.x, ... in groups of kGroup tile rows.
  __device__ static blocks::PersistentScheduler<blocks::GroupedRaster<kGroup>> scheduler(index_t tiles_m,
                                                                                         index_t tiles_n) {
    return {tiles_m, tiles_n, blockIdx.x, gridDim.x};
  }
};
inline constexpr int kThreads = ProducerWarpgroupPersistent::kThreads;

/// Launch with min(SMs, tiles) CTAs of kThreads.
template <class T, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_persistent_warpgroup(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                              Params<T> p) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<SharedStorage<T, MA, MB>*>(smem);
  warp_specialized::run<Tiles<T, MA, MB>, ProducerWarpgroupPersistent>(map_a, map_b, p, shared,
                                                                       RegisterTileEpilogue<T, MA, MB>{p});
}

}  // namespace tessel::gemm_kernels::k10
