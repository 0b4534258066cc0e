// k13 — k12 with one k-tile of wgmma kept in flight (docs/ladder.md, k13).
//
// The idea, the kernel's last loop: a consumer issues k-tile kt's wgmmas,
// then waits only until kt-1's batch has completed (wait_group 1) and
// releases kt-1's stage, so the next batch queues behind the running one
// (legal: a warpgroup's batches chain on the same registers in issue order).
//
// The knobs the plan turns (docs/heuristics.md): the tile (Config: 128 x 256,
// 192, 128, 64; 64 rows on one warpgroup; 16, 32, 64 columns swapped), split
// K (the last unit of a tile, or a second kernel, sums the partials), the swap
// (`transposed`: the launcher passes D^T = B^T A^T), a fused epilogue and the
// warpgroup epilogue overlapped with the next tile (overlapped_epilogue.cuh).
#pragma once

#include "tessel/atom/mma_sm90.hpp"
#include "tessel/kernels/gemm/cluster_split_k.cuh"
#include "tessel/kernels/gemm/fp8_mainloop.cuh"
#include "tessel/kernels/gemm/fused_epilogue.cuh"
#include "tessel/kernels/gemm/k10_persistent_warpgroup.cuh"
#include "tessel/kernels/gemm/overlapped_epilogue.cuh"
#include "tessel/kernels/gemm/split_k.cuh"
#include "tessel/kernels/gemm/tile_epilogue.cuh"
#include "tessel/kernels/gemm/tma_store_epilogue.cuh"
#include "tessel/kernels/gemm/wgmma_mainloop.cuh"
#include "tessel/kernels/gemm/wgmma_tiles.cuh"

namespace tessel::gemm_kernels::k13 {

using gemm_kernels::SplitK;
using wgmma::Config;
using wgmma::kBM;
using wgmma::KernelTiles;
using wgmma::Scaled;
using wgmma::SpecializedConfig;
using wgmma::Tiles;
inline constexpr int kConsumerWarps = 8;  // two warpgroups, 64 rows of the tile each
inline constexpr int kThreads = k10::kThreads;

/// The grouped raster with its group of tile rows given at launch (rule 6).
using Scheduler = blocks::SplitKScheduler<blocks::GroupedRasterN>;

/// Split K's side of the epilogue (split_k.cuh), on the consumers' named barrier; summed apart where kServesApart.
template <class X>
using SplitKReduce = gemm_kernels::SplitKReduce<X, kConsumerBarrier, gemm_kernels::kServesApart<X>>;

/// Launch with min(SMs, units) CTAs of kThreads and Tiles<...>::kSmemBytes (with
/// sk.cluster, in clusters of it, sk.depth leaving cluster_split_bytes past the stages);
/// `group` >= 1 tile rows per group of the raster.  `transposed`: `p` is the
/// launcher's swapped problem (A is B, m is N), element (i, j) is D(j, i) at
/// d[j * ldd + i]; only Cfg::kTransposed configurations take it, and with
/// `tma_store` map_d is D's own map (TmaStoreEpilogueTransposed, beta = 0).
/// A fused configuration takes FusedParams<T> and is never transposed.
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
  if (sk.plane != 0) arch::sm90::launch_dependents();  // split K summed apart: the sum's grid may start waiting
  constexpr int kConsumerWarps = Cfg::kConsumerWarps;
  // Each side makes its own scheduler (one made before the branch keeps its
  // fields live across it, where the fused 128 x 256 instance has no register to spare).
  const auto make_scheduler = [&]<class S>() {
    return S(ceil_div(p.m, index_t{X::kBM}), ceil_div(p.n, index_t{X::kBN}), ceil_div(p.k, index_t{X::kBK}), sk.splits,
             blockIdx.x, gridDim.x, blocks::GroupedRasterN{group}, sk.whole, sk.order());
  };

  const bool issues = warp == kConsumerWarps;  // the producer's first warp (produce_first)
  blocks::KTileCursor cursor(issues ? make_scheduler.template operator()<Scheduler>()
                                    : Scheduler(0, 0, 1, 1, 0, 1, blocks::GroupedRasterN{1}));
  typename Pipeline::State write = X::state(sk.depth);
  // Split K inside a cluster (the swapped narrow tiles): its slots and barriers lie past the stages in flight.
  using ClusterSplit = ClusterSplitOf<X, kConsumerBarrier, Cfg::kRuntimeDepth && sizeof(T) == 2>;
  unsigned char* const cluster_region = reinterpret_cast<unsigned char*>(shared.a[sk.depth]);
  ClusterSplit::start(cluster_region, sk.cluster);
  const auto load = [&](const blocks::WorkUnit& u, index_t kt) {
    pipe.producer_acquire(write, X::kStageBytes);
    OpA::Tma::load(&map_a, shared.a[write.index()], pipe.full(write.index()), u.tile.m, kt);  // A (m, kt)
    OpB::Tma::load(&map_b, shared.b[write.index()], pipe.full(write.index()), u.tile.n, kt);  // B (n, kt)
    ++write;
  };
  if (issues) produce_first(pipe, &map_a, &map_b, cursor, write, kConsumerWarps, load);
  __syncthreads();               // the barriers are initialized for every thread
  if (warp >= kConsumerWarps) {  // the producer warpgroup: its registers go to the consumers
    Schedule::producer_start();
    if (issues && arch::sm90::elect_one_sync()) cursor.rest(load);  // the producer's loop, as the nested loops
    ClusterSplit::leave(sk.cluster);
    return;
  }
  Schedule::consumer_start();
  auto scheduler = make_scheduler.template operator()<Scheduler>();
  const int t = static_cast<int>(threadIdx.x);  // thread t of the TiledMMA's 256 (128 at 64 rows)
  const auto thr = TM{}.get_slice(t);
  // Descriptors from lane 0's index (warp-uniform): uniform registers, one constant add a k-step.
  const auto thr_desc = TM{}.get_slice(__shfl_sync(0xffffffffu, t, 0));
  float* bias_slice = nullptr;
  if constexpr (Cfg::kFused) bias_slice = shared.bias;
  const TileEpilogue<X, T, typename Cfg::template ParamsOf<T>> epilogue{tma_store ? &map_d : nullptr, p, shared.d,
                                                                        transposed, bias_slice};
  const SplitKReduce<X> reduce{sk, shared.ticket};
  auto cluster_reduce = ClusterSplit::join(cluster_region, sk.cluster);
  typename Pipeline::State read = X::state(sk.depth);
  if constexpr (Cfg::kWarpgroupEpilogue) {
    if (tma_store && !transposed && sk.splits == 1 && p.beta == 0.0f && p.cd_type != DType::f32 &&
        Cfg::kScales == Fp8Scales::none) {
      consume_with_overlapped_epilogue<X>(&map_d, p, scheduler, pipe, read, shared, thr_desc, t, lane);
      return;
    }
  }
  for (blocks::WorkUnit u; scheduler.next(u);) {
    typename X::FragC acc;                                  // (BN/2,1,1) f32: 64 x BN per warpgroup
    const auto bias_share = epilogue.load_bias(u.tile, t);  // a fused instance's; stored after the main loop
    epilogue.prefetch_c(u.tile, t);
    if constexpr (sizeof(T) == 1)
      consume_fp8<X, static_cast<Fp8Scales::Mode>(Cfg::kScales)>(pipe, read, shared, thr_desc, u, acc, lane, sk, p.m,
                                                                 p.n, t);
    else
      consume<X>(pipe, read, shared, thr_desc, static_cast<int>(u.k_begin), static_cast<int>(u.k_end), acc, lane);
    if (sk.splits > 1 && u.id >= sk.whole) {
      if (ClusterSplit::kOn && sk.cluster > 1) {
        if (!cluster_reduce.last_adds(acc, t)) continue;
      } else {
        const index_t rows_left = p.m - u.tile.m * X::kBM;
        const auto tCcD =
            thr.partition_C(coord_tile<TileShape<X::kBM, X::kBN>>(rows_left, index_t{X::kBN}));  // (row, col)
        if (!reduce.last_adds(u, acc, tCcD, rows_left, t)) continue;
      }
    }
    if constexpr (Cfg::kFused) {
      epilogue.store_bias(bias_share, t);
      epilogue.store_fused(u.tile, acc, t);
    } else {
      epilogue.store(u.tile, acc, t);
    }
  }
  epilogue.finish(t);
  cluster_reduce.finish();
}

}  // namespace tessel::gemm_kernels::k13
