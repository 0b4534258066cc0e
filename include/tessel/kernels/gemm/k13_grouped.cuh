// k13 grouped — many GEMMs in one persistent launch: a strided batch (one
// shape, `batch` copies) or a group of problems with their own M, N, K,
// pointers and leading dimensions (mixture-of-experts layers).
//
// Why: a batch of 32 GEMMs of 512 x 512 x 128 is 16 tiles of 128 x 128 each;
// launched one by one they fill an eighth of the SMs for ~3 us each, plus a
// launch each.  Together they are 512 tiles: four waves on 132 SMs, one
// launch.  A MoE layer's experts see from 64 to 2048 rows each: the small
// ones alone cannot fill the GPU, the large ones leave a ragged last wave;
// in one launch every CTA streams tiles of whichever problem comes next.
//
// What changes against k13 (k13_wgmma_in_flight.cuh), whose Tiles,
// TileEpilogue and main loop (consume) this kernel uses as they are: the
// units over (problem, batch, tile), each problem with its own maps
// (grouped_problems.cuh); no split of K and no swap of A and B (grouped
// launches have enough tiles to fill the SMs, which is what split K and the
// swap are for); and D through k13's TMA-store epilogue with the problem's
// 2-D map.  For a batch the map is of one tall matrix: D of batch b starts
// b x R tile rows below D of batch 0, where the batch stride is R whole
// tiles of rows (stride_d a multiple of 128 x ldd) and M is whole tiles
// (else a tile's rows below M would land between two batches' D).  Other
// batches leave through the same epilogue's row stores (no map), the
// pointers moved to the batch.  So k13's epilogue (tma_store_epilogue.cuh)
// is used unchanged: only Params and the tile coordinate it is given differ.
// On FP8 A and B (128 or 64 x 128 tiles) the main loop is k13's FP8 one
// (consume_fp8, fp8_mainloop.cuh) with the launch's promotion interval and
// each problem's scales (per tensor or channel, or block: the group shares
// the mode, an instance each).
#pragma once

#include "tessel/kernels/gemm/grouped_problems.cuh"
#include "tessel/kernels/gemm/k13_wgmma_in_flight.cuh"

namespace tessel::gemm_kernels::k13 {

/// Launch with min(SMs, units) CTAs of Cfg::kThreads and Tiles<...>::kSmemBytes;
/// Cfg::kTmaStore (BN >= 64).  Tiles of 128 rows, or of 64 (one consumer warpgroup) on FP8.
template <class T, MajorA MA, MajorB MB, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1) gemm_grouped(const __grid_constant__ GroupSet<T> set) {
  using X = Tiles<T, MA, MB, Cfg>;
  using TM = typename X::TM;
  using Pipeline = typename X::Pipeline;
  using Schedule = k10::ProducerWarpgroupPersistent;  // setmaxnreg 40 / 232
  static_assert(Cfg::kTmaStore, "tessel: the grouped kernel writes D through k13's TMA-store epilogue");
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::SharedStorage*>(smem);
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const bool maps_in_memory = set.list != nullptr;

  constexpr int kConsumerWarps = Cfg::kConsumerWarps;
  if (threadIdx.x == 0) pipe.init(kConsumerWarps);  // one release per consumer warp
  __syncthreads();

  GroupScheduler<T> scheduler(set, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));

  if (warp >= kConsumerWarps) {  // the producer warpgroup: one thread issues every load
    Schedule::producer_start();
    if (warp == kConsumerWarps && arch::sm90::elect_one_sync()) {
      produce_units<X>(scheduler, pipe, shared, maps_in_memory);
    }
    return;
  }
  Schedule::consumer_start();

  const int t = static_cast<int>(threadIdx.x);  // thread t of the TiledMMA (256 threads, 128 at 64 rows)
  // The operands' descriptors from lane 0's slice, warp-uniform (as k13's kernel).
  const auto thr_desc = TM{}.get_slice(__shfl_sync(0xffffffffu, t, 0));
  typename Pipeline::State read;
  int seen = -1;
  for (GroupUnit u; scheduler.next(u);) {
    const GroupProblem<T>& gp = scheduler.problem(u.g);
    typename X::FragC acc;  // (BN/2,1,1) f32: 64 x BN per warpgroup
    if constexpr (sizeof(T) == 1) {
      // k13's FP8 main loop on the whole K: the launch's promotion, the problem's scales.  The k-tile
      // count made warp-uniform: read from a problem in memory, ptxas could not prove it uniform and
      // serialized the wgmmas behind the promotion's branch (C7518).
      SplitK sk;
      sk.promote = set.promote;
      sk.scales = gp.scales;
      blocks::WorkUnit w;
      w.tile = u.tile;
      w.k_end = __shfl_sync(0xffffffffu, gp.k_tiles, 0);
      // With scales, the problem's pointers held through the loop leave no room for two parts (spilled).
      constexpr auto kScales = static_cast<Fp8Scales::Mode>(Cfg::kScales);
      consume_fp8<X, kScales, kScales == Fp8Scales::none>(pipe, read, shared, thr_desc, w, acc, lane, sk, gp.p.m,
                                                          gp.p.n, t);
    } else {
      consume<X>(pipe, read, shared, thr_desc, 0, gp.k_tiles, acc, lane);
    }

    // The epilogue's problem: batch u.batch of problem u.g (a masked one's rows as counted on the device).
    Params<T> p = gp.p;
    p.m = rows_of(gp);
    blocks::TileCoord tile = u.tile;
    if (u.batch > 0) {
      const index_t cd_bytes = p.cd_type == DType::f32 ? 4 : 2;
      const index_t c_shift = u.batch * gp.stride_c * cd_bytes;
      if (gp.tma_store) {
        // D of every batch is one tall matrix: batch b's tile rows are b x
        // d_tile_rows further down, M and C's pointer move with them so that
        // the epilogue's row of C (tile.m x 128 + r) is batch b's row.
        const index_t rows = index_t{u.batch} * gp.d_tile_rows * X::kBM;
        tile.m += index_t{u.batch} * gp.d_tile_rows;
        p.m += rows;
        if (p.c != nullptr)
          p.c =
              reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p.c) + c_shift - rows * p.ldc * cd_bytes);
      } else {
        if (p.c != nullptr) p.c = static_cast<const char*>(p.c) + c_shift;
        p.d = static_cast<char*>(p.d) + u.batch * gp.stride_d * cd_bytes;
      }
    }
    if (gp.tma_store && maps_in_memory && u.g != seen && t == 0) {
      arch::sm90::fence_tensormap_acquire(&gp.map_d);  // thread 0 issues the epilogue's TMA stores
      seen = u.g;
    }
    const TileEpilogue<X, T> epilogue{gp.tma_store ? &gp.map_d : nullptr, p, shared.d, false};
    epilogue.store(tile, acc, t);
  }
  X::template Epilogue<float>::finish(t);  // thread 0: every TMA store has read its staging
}

}  // namespace tessel::gemm_kernels::k13
