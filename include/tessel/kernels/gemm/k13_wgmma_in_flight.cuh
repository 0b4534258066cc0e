// k13 — k12 with one k-tile of wgmma kept in flight, and the knobs the
// heuristic turns: the tile's width BN, split K and the swap of A and B.
//
// Why: k12 waits for all of a k-tile's wgmmas (wait_group 0) before it
// releases the stage and issues the next k-tile, so the tensor cores idle
// while the last wgmma drains and the next stage's barrier is checked.
// Here a consumer issues k-tile kt, then waits only until k-tile kt-1's
// batch has completed (wait_group 1) and releases kt-1's stage: the next
// batch is queued behind the running one.  The accumulators stay in the
// async proxy's hands across the wait, which is legal because every batch of
// a warpgroup chains on the same registers in issue order.
//
// The same program serves the shapes the 128 x 256 tile serves badly:
// - BN (Config): 256, 192, 128 or 64 columns per tile (16 and 32 for the
//   swap below), the stages as many as the 227 KB of shared memory allow
//   (4, 4, 6 for 256, 192, 128; 12 and 11 for 16 and 32, of which the launch
//   keeps 4 to all in flight, by the grid's CTAs).  A narrower tile
//   gives more tiles (small problems, wave quantization: 3072^3 has 288
//   tiles of 128 x 256 on 132 SMs, 384 of 128 x 192).
// - Split K (SplitK, run time): each tile's K is cut into `splits` ranges of
//   k-tiles, one work unit each (blocks::SplitKScheduler).  A unit writes its
//   fp32 partial tile to a workspace and counts itself in the tile's counter;
//   the unit that arrives last adds the others' partials to its own and runs
//   the epilogue.  Small M (one tile row: 32 tiles for N = 8192) then keeps
//   every SM streaming a disjoint slice of B.  With `whole` set, only the
//   tiles past the grid's full waves are split: the last partial wave (60
//   tiles of 128 x 192 on 132 SMs at 4096 x 1088) runs as 120 half-K units
//   on 120 SMs instead of 60 full ones.
// - The swap (`transposed`, run time; the launcher swaps the operands): for
//   small M the launcher hands the kernel D^T = B^T A^T, so that N fills the
//   tile's 128 rows and M its BN = 16, 32 or 64 columns (wgmma's N).  At
//   M = 16 unswapped, TMA zero-fills 112 of A's 128 box rows: each stage
//   writes 32 KB of shared memory for 16 KB of B; swapped, a 128 x 16 stage
//   is 18 KB and 12 of them fit.  D then leaves staged as D's rows (the
//   tile's columns) by TMA stores (TmaStoreEpilogueTransposed); with C, or
//   where TMA cannot describe D, C and D are read and written transposed
//   from registers (epilogue_registers_transposed).
// - 64-row tiles (Config's BM, compile time): one consumer warpgroup.
//   Swapped (64 x 16, 32, 64): 64 rows of N, so that N = 8192 makes 128 CTAs
//   without splitting K, whose partials, fence and counter cost 2-2.5 us a
//   call (docs/heuristics.md, rule 4b).  Unswapped (64 x 128): as many
//   tiles as 128 x 64 gives a small problem, but one m64n128 wgmma per k16
//   reads 6 KB of shared memory for 2^18 flops where two m64n64 read 8 KB
//   (docs/ladder.md, k13's table, the 64 x 128 row).
//
// - The fused epilogue (Config's Fused, compile time; docs/epilogues.md):
//   D = act(alpha * acc + beta * C + bias) and the pre-activation aux output,
//   computed by a pass over the accumulator registers (fuse_in_registers,
//   fused_epilogue.cuh) before the plain TmaStoreEpilogue stores the tile.
//   Its own instances (src/kernels/gemm/k13_epi_n*.cu), unswapped tiles only,
//   take FusedParams and stage each unit's bias slice in shared memory; the
//   plain instances keep Params<T>, their shared memory and their code.
//
// Predicted (docs/ladder.md, k13): +3..+8 % over k12 at 4096^3 and 8192^3
// (fast.cu's worklog gains about that from the same change).
#pragma once

#include "tessel/atom/mma_sm90.hpp"
#include "tessel/kernels/gemm/fused_epilogue.cuh"
#include "tessel/kernels/gemm/k10_persistent_warpgroup.cuh"
#include "tessel/kernels/gemm/split_k.cuh"
#include "tessel/kernels/gemm/tile_epilogue.cuh"
#include "tessel/kernels/gemm/tma_store_epilogue.cuh"
#include "tessel/kernels/gemm/wgmma_mainloop.cuh"
#include "tessel/kernels/gemm/wgmma_tiles.cuh"

namespace tessel::gemm_kernels::k13 {

using gemm_kernels::consume;
using gemm_kernels::kConsumerBarrier;
using gemm_kernels::Nothing;
using gemm_kernels::SplitK;
using gemm_kernels::TileEpilogue;
using warp_specialized::kGroup;

using wgmma::Config;
using wgmma::kBM;
using wgmma::KernelTiles;
using wgmma::kSmemLimit;
using wgmma::SpecializedConfig;
using wgmma::Tiles;
inline constexpr int kConsumerWarps = 8;  // two warpgroups, 64 rows of the tile each
inline constexpr int kThreads = k10::kThreads;
inline constexpr int kConsumerThreads = 32 * kConsumerWarps;

/// The warpgroup epilogue's tile in flight: the words of its later chunks
/// (E::wg_store_first), its coordinates, and the steps left of it: 3, the
/// wait for its first chunks' reads (E::wg_free); 2, its later chunks
/// (E::wg_store_rest); 1, the wait for their reads.
template <class E>
struct HeldTile {
  typename E::Words w;
  blocks::TileCoord tile;
  int left = 0;
};
/// Named barriers 2 and 3: the warpgroup epilogue's, one per consumer warpgroup.
inline constexpr int kWarpgroupBarrier0 = 2;

/// The grouped raster with its group of tile rows given at launch (`group`:
/// the plan's rule 6, docs/heuristics.md).
using Scheduler = blocks::SplitKScheduler<blocks::GroupedRasterN>;

/// Split K's side of the epilogue (split_k.cuh), on the consumers' named barrier.
template <class X>
using SplitKReduce = gemm_kernels::SplitKReduce<X, kConsumerBarrier>;

/// Launch with min(SMs, units) CTAs of kThreads and Tiles<...>::kSmemBytes;
/// `group` >= 1 tile rows per group of the raster.
/// `transposed`: `p` is the swapped problem (the launcher's): A is B, B is A,
/// m and n are N and M, and the kernel's element (i, j) is D(j, i) at
/// d[j * ldd + i] (C likewise).  Only Cfg::kTransposed configurations take
/// it, and those without the untransposed TMA-store epilogue (BN < 64) take
/// nothing else.  `tma_store` with `transposed`: map_d is D's own map (rows
/// M, columns N) for TmaStoreEpilogueTransposed (beta = 0).
/// A fused configuration (Cfg::kFused) takes FusedParams<T> and is never
/// transposed.
template <class T, MajorA MA, MajorB MB, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_wgmma_in_flight(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                         const __grid_constant__ CUtensorMap map_d, bool tma_store, bool transposed,
                         typename Cfg::template ParamsOf<T> p, SplitK sk, int group) {
  using X = KernelTiles<T, MA, MB, Cfg>;
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  using TM = typename X::TM;
  using Pipeline = typename X::Pipeline;
  using Schedule = k10::ProducerWarpgroupPersistent;  // setmaxnreg 40 / 232
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::Storage*>(smem);
  const Pipeline pipe(shared.pipe);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  constexpr int kConsumerWarps = Cfg::kConsumerWarps;
  // Each side makes its own scheduler: the consumers after their
  // setmaxnreg (made before the branch, its fields stay live across it, where
  // the fused 128 x 256 instance has no register to spare), the producer's
  // first warp before the CTA's barrier (below).
  const auto make_scheduler = [&]<class S>() {
    const index_t tiles_m = ceil_div(p.m, index_t{X::kBM}), tiles_n = ceil_div(p.n, index_t{X::kBN});
    const index_t k_tiles = ceil_div(p.k, index_t{kBK});
    return S(tiles_m, tiles_n, k_tiles, sk.splits, blockIdx.x, gridDim.x, blocks::GroupedRasterN{group}, sk.whole);
  };

  // The producer's first warp issues the first k-tile's loads before the
  // CTA's barrier: one lane initializes the barriers, the warp works out its
  // first unit, the lane issues the loads (a fresh stage's acquire returns
  // at once), and only then does the warp arrive at the barrier.  Why: the
  // first reads of the parameters miss the constant cache, and the CTA's
  // start before its first load, about 1500 SM cycles by in-kernel clock
  // stamps, is on the critical path of a memory-bound problem (128 x 8192
  // x 8192: 0.995 -> 1.000 of cuBLASLt).  One k-tile,
  // not every stage: with all kStages issued before the barrier the
  // consumers started that much later, and 512^3 and 1024^3 lost 5-8 %.
  // Every lane of the warp walks the same steps (the same cursor), so after
  // the barrier any one of them issues the rest; the other warps hold a
  // cursor without units, so that every thread reaches the one barrier.
  const bool issues = warp == kConsumerWarps;
  blocks::KTileCursor cursor(issues ? make_scheduler.template operator()<Scheduler>()
                                    : Scheduler(0, 0, 1, 1, 0, 1, blocks::GroupedRasterN{1}));
  typename Pipeline::State write = X::state(sk.depth);
  const auto load = [&](const blocks::WorkUnit& u, index_t kt) {
    pipe.producer_acquire(write, X::kStageBytes);
    OpA::Tma::load(&map_a, shared.a[write.index()], pipe.full(write.index()), u.tile.m, kt);  // A (m, kt)
    OpB::Tma::load(&map_b, shared.b[write.index()], pipe.full(write.index()), u.tile.n, kt);  // B (n, kt)
    ++write;
  };
  if (issues) {
    const bool leader = arch::sm90::elect_one_sync();
    if (leader) {
      pipe.init(kConsumerWarps);  // one release per consumer warp
      arch::sm90::prefetch_tensormap(&map_a);
      arch::sm90::prefetch_tensormap(&map_b);
    }
    cursor.step([&](const blocks::WorkUnit& u, index_t kt) {
      if (leader)
        load(u, kt);
      else
        ++write;
    });
  }
  __syncthreads();  // the barriers are initialized for every thread

  if (warp >= kConsumerWarps) {  // the producer warpgroup: its registers go to the consumers
    Schedule::producer_start();
    if (issues && arch::sm90::elect_one_sync()) cursor.rest(load);  // the producer's loop, as the nested loops
    return;
  }
  Schedule::consumer_start();
  auto scheduler = make_scheduler.template operator()<Scheduler>();

  const int t = static_cast<int>(threadIdx.x);  // thread t of the TiledMMA's 256 (128 at 64 rows)
  const auto thr = TM{}.get_slice(t);
  // The operands' descriptors depend on the warpgroup only: made from lane
  // 0's index, a value the compiler knows to be the same across the warp, so
  // they live in uniform registers and each k-step is one constant add.
  const auto thr_desc = TM{}.get_slice(__shfl_sync(0xffffffffu, t, 0));
  constexpr int kRK = kBK / TM::kL.k;  // wgmmas (k16) per k-tile
  float* bias_slice = nullptr;
  if constexpr (Cfg::kFused) bias_slice = shared.bias;
  const TileEpilogue<X, T, typename Cfg::template ParamsOf<T>> epilogue{tma_store ? &map_d : nullptr, p, shared.d,
                                                                        transposed, bias_slice};
  const SplitKReduce<X> reduce{sk, shared.ticket};
  typename Pipeline::State read = X::state(sk.depth);
  // The warpgroup epilogue (Config::kWarpgroupEpilogue: 16-bit D, beta = 0,
  // TMA stores, no split K), in a loop of its own over consume(): the
  // tile's last two chunks, held in 32 registers, are stored during the
  // next tile's first k-tiles, one step a k-tile (HeldTile).  Its own
  // loop, so that those words are never live beside the plain epilogue's C
  // values (in one loop they were, and values live across the loop went to
  // local memory), and the plain loop below stays as it was measured.
  if constexpr (Cfg::kWarpgroupEpilogue) {
    if (tma_store && !transposed && sk.splits == 1 && p.beta == 0.0f && p.cd_type != DType::f32) {
      using EpiW = typename X::template Epilogue<__nv_bfloat16>;  // its 16-bit staging serves bf16 and fp16 D alike
      HeldTile<EpiW> held;
      const auto step = [&] {  // one step of the held tile's stores (every consumer thread)
        if (held.left == 2)
          EpiW::wg_store_rest(&map_d, held.tile.m, held.tile.n, held.w, shared.d.bf16, t, kWarpgroupBarrier0);
        else
          EpiW::wg_free(t, kWarpgroupBarrier0);
        --held.left;
      };
      for (blocks::WorkUnit u; scheduler.next(u);) {
        typename X::FragC acc;  // (BN/2,1,1) f32: 64 x BN per warpgroup
        consume<X>(pipe, read, shared, thr_desc, u.k_begin, u.k_end, acc, lane, Nothing{}, [&](int) {
          if (held.left > 0) step();  // the previous tile's stores, while this batch runs
        });
        while (held.left > 0) step();  // a unit of fewer k-tiles than steps: the previous tile's last ones
        if (p.cd_type == DType::bf16)
          EpiW::wg_store_first(&map_d, p, u.tile.m, u.tile.n, acc, shared.d.bf16, t, kWarpgroupBarrier0, held.w);
        else
          X::template Epilogue<__half>::wg_store_first(&map_d, p, u.tile.m, u.tile.n, acc, shared.d.f16, t,
                                                       kWarpgroupBarrier0, held.w);
        held.tile = u.tile;
        held.left = 3;
      }
      while (held.left > 0) step();  // the last tile's later chunks, and their reads
      return;
    }
  }
  for (blocks::WorkUnit u; scheduler.next(u);) {
    typename X::FragC acc;                                  // (BN/2,1,1) f32: 64 x BN per warpgroup
    const auto bias_share = epilogue.load_bias(u.tile, t);  // a fused instance's; stored after the main loop
    epilogue.prefetch_c(u.tile, t);
    for (index_t kt = u.k_begin; kt < u.k_end; ++kt, ++read) {
      pipe.consumer_wait(read);
      const auto tCdA = thr_desc.partition_fragment_A(make_smem_tensor<OpA::kSmem>(shared.a[read.index()]));  // (1,1,4)
      const auto tCdB = thr_desc.partition_fragment_B(make_smem_tensor<OpB::kSmem>(shared.b[read.index()]));  // (1,1,4)
      warpgroup_fence_operand(acc);
      warpgroup_arrive();
      TESSEL_UNROLL
      for (int k = 0; k < kRK; ++k) gemm(TM{}, tCdA(_, _, k), tCdB(_, _, k), acc, kt > u.k_begin || k > 0);
      warpgroup_commit_batch();
      warpgroup_wait<1>();  // k-tile kt-1's batch is done (kt's may still run): its stage may be refilled
      warpgroup_fence_operand(acc);
      if (kt > u.k_begin) {
        __syncwarp();
        if (lane == 0) pipe.consumer_release(read.previous());
      }
    }
    warpgroup_wait<0>();  // the unit's last batch
    warpgroup_fence_operand(acc);
    __syncwarp();
    if (lane == 0) pipe.consumer_release(read.previous());

    if (sk.splits > 1 && u.id >= sk.whole) {
      const index_t rows_left = p.m - u.tile.m * X::kBM;
      const auto tCcD =
          thr.partition_C(coord_tile<TileShape<X::kBM, X::kBN>>(rows_left, index_t{X::kBN}));  // (row, col)
      if (!reduce.last_adds(u, acc, tCcD, rows_left, t)) continue;
    }
    if constexpr (Cfg::kFused) {
      epilogue.store_bias(bias_share, t);
      epilogue.store_fused(u.tile, acc, t);
    } else {
      epilogue.store(u.tile, acc, t);
    }
  }
  epilogue.finish(t);
}

}  // namespace tessel::gemm_kernels::k13
