// k15 grouped — pingpong over a strided batch: k15's two consumer
// warpgroups, each on its own 128 x 128 tile, taking the work units of k13's
// batched and grouped kernel (k13_grouped.cuh) for one problem's batches.
//
// Why: a batch of short-K GEMMs (32 x 2048 x 2048 x 128, 32 x 512 x 512 x
// 128: attention-style) is mostly its epilogue.  Each tile is two k-tiles of
// wgmmas and then 32 KB of D to convert and store.  k13's batched kernel
// runs its two consumer warpgroups on one tile, so the tensor cores and the
// loads wait through every epilogue: 0.82 and 0.85 of cuBLASLt strided
// batched (H100), where ncu found 40 % of the stall samples in
// the epilogue and DRAM at 34 % of its peak.  In k15 one warpgroup's
// epilogue runs while the other's wgmmas run and the producer loads the
// next unit: on one problem with the same short K (16384^2 x 128) k15
// measured 0.996 of cuBLASLt where k13 measured 0.988 and k14 0.959.
//
// What is k15's (k15_pingpong.cuh, pingpong.cuh): Tiles (128 x 128 per
// warpgroup, 5 stages, a staging buffer and a named barrier per warpgroup),
// the alternation of units between the warpgroups (i % 2) and the turn that
// hands the main loop over.  What is k13 grouped's (grouped_problems.cuh):
// the units over (problem, batch, tile), the rank-3 maps of A and B (the
// batch the third coordinate), D through the problem's 2-D map (a batch's D
// as one tall matrix where its batches lie whole tiles of rows apart, else
// the epilogue's row stores with D's pointer moved).
// Plain epilogue only, beta = 0 (k15's store_beta0; the launcher checks).
//
// Predicted (docs/history/batched.md): 2048 x 2048 x 128 x 32 from 0.85 to >= 0.97
// of cuBLASLt (the epilogue hidden behind the other warpgroup's loads and
// wgmmas, as at 16384^2 x 128; what is left is the write bandwidth both
// share); 512 x 512 x 128 x 32 (512 units: under two waves of 264
// warpgroups) from 0.82 to ~0.95.
#pragma once

#include "tessel/kernels/gemm/grouped_problems.cuh"
#include "tessel/kernels/gemm/k15_pingpong.cuh"

namespace tessel::gemm_kernels::k15 {

/// The batched kernel's pipeline depth: 4, or 3 where the plan's rule 11c
/// says (gemm_plan.hpp, batched_stages_for; the launcher instantiates both).
/// Its units are short (K = 128 is two k-tiles), so the depth sets how far
/// the loads of later units run ahead of the stores of earlier ones.
/// Measured at 32 x 2048^2 x 128 (H100, docs/history/batched.md), before the scheduler
/// read its problem from the parameter: 3 stages 118.2 us, 4 stages 116.2, 5
/// (all that fit, k15's own) 118.9; after it, 3 stages ahead by 2-8 % on the
/// batches rule 11c names and behind elsewhere.
template <int Stages = 4>
using BatchedConfig = Config<false, Stages>;

/// Launch with min(SMs, units) CTAs of kThreads and
/// Tiles<T, MA, MB, BatchedConfig<Stages>>::kSmemBytes; one problem in set.first
/// (set.list unused: groups run on k13's grouped kernel), beta = 0.
template <class T, MajorA MA, MajorB MB, int Stages>
__global__ void __launch_bounds__(kThreads, 1) gemm_pingpong_grouped(const __grid_constant__ k13::GroupSet<T> set) {
  using X = Tiles<T, MA, MB, BatchedConfig<Stages>>;
  using TM = typename X::TM;
  using Pipeline = typename X::Pipeline;
  using Schedule = k10::ProducerWarpgroupPersistent;  // setmaxnreg 40 / 232
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::Storage*>(smem);
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  if (threadIdx.x == 0) pingpong::init(pipe, shared);
  __syncthreads();

  // One problem, read in place from the parameter: the launcher runs this
  // kernel for a strided batch only (k13::BatchScheduler says why).
  const k13::GroupProblem<T>& gp = set.first;
  if (warp >= kConsumerGroups * 4) {  // the producer warpgroup: one thread loads every unit's k-tiles in order
    Schedule::producer_start();
    if (warp == kConsumerGroups * 4 && arch::sm90::elect_one_sync()) {
      k13::BatchScheduler<T> scheduler(gp, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));
      k13::produce_units<X>(scheduler, pipe, shared, false);  // as k13 grouped; the maps are the parameter's
    }
    return;
  }
  Schedule::consumer_start();

  // As in k15's kernel: the warpgroup index and the descriptors' slice from lane 0, warp-uniform.
  const int wg = __shfl_sync(0xffffffffu, warp / 4, 0);
  const int t = static_cast<int>(threadIdx.x) % kGroupThreads;  // thread t of 128 in the TiledMMA
  const auto thr_desc = TM{}.get_slice(__shfl_sync(0xffffffffu, t, 0));
  // This CTA's units are blockIdx.x, blockIdx.x + gridDim.x, ... (the grid is at most the unit count).
  const int units = (set.units - 1 - static_cast<int>(blockIdx.x)) / static_cast<int>(gridDim.x) + 1;
  // Both warpgroups walk every unit of the CTA; warpgroup i % 2 computes
  // unit i.  (Each walking only its own units, stride 2 x grid, measured
  // 1.5 % slower at 32 x 2048^2 x 128 and no faster at 512^2 on an H100.)
  k13::BatchScheduler<T> scheduler(gp, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));
  typename Pipeline::State read;
  int i = 0;  // the unit's position in this CTA's sequence
  for (k13::GroupUnit u; scheduler.next(u); ++i) {
    if (i % kConsumerGroups != wg) {
      read.advance(gp.k_tiles);  // the other warpgroup's stages
      continue;
    }
    typename X::FragC acc;  // (64,2,1) f32: 128 x 128 per warpgroup
    // The turn, as in k15's kernel (pingpong.cuh).
    pingpong::wait_turn(shared, wg, i);
    const auto hand_over = [&] { pingpong::hand_over(shared, wg, i, units, lane); };
    consume<X>(pipe, read, shared, thr_desc, 0, gp.k_tiles, acc, lane, hand_over);

    // The epilogue's problem: batch u.batch of problem u.g (as k13's grouped kernel; C is not read).
    Params<T> p = gp.p;
    blocks::TileCoord tile = u.tile;
    if (u.batch > 0) {
      if (gp.tma_store) {
        // D of every batch is one tall matrix: batch b's tile rows are b x d_tile_rows further down.
        tile.m += index_t{u.batch} * gp.d_tile_rows;
        p.m += index_t{u.batch} * gp.d_tile_rows * kBM;
      } else {
        const index_t cd_bytes = p.cd_type == DType::f32 ? 4 : 2;
        p.d = static_cast<char*>(p.d) + u.batch * gp.stride_d * cd_bytes;
      }
    }
    const TileEpilogue<X, T> epilogue{
        gp.tma_store ? &gp.map_d : nullptr, p, shared.d[wg], false, nullptr, kFirstBarrier + wg};
    epilogue.store_beta0(tile, acc, t);
  }
  X::template Epilogue<float>::finish(t);  // thread 0 of each warpgroup: its TMA stores have read their staging
}

}  // namespace tessel::gemm_kernels::k15
