// k12 — k11 with the MMAs on wgmma: two consumer warpgroups, each 64 x 256 of
// the 128 x 256 tile, read A and B straight from the TMA-filled,
// 128-byte-swizzled stages through matrix descriptors (the SS form).
//
// Why: mma.sync stops at the power cap because every MMA's operands pass
// through registers (ldmatrix, then the register file, per warp, per k-slice;
// docs/ladder.md, k11's table of each part run alone).  wgmma reads the shared tiles
// itself, once per warpgroup, and keeps a 64 x 256 accumulator per
// warpgroup: no ldmatrix, no A/B fragments, four instructions per k-tile
// per warpgroup instead of 128 mma.sync per warp.
//
// What changes from k11, and nothing else: the TiledMMA (wgmma
// m64n256k16 SS atoms, 2 x 1), the descriptors made from the stage tensors
// (`partition_fragment_A/B`), and the warpgroup protocol around the four
// wgmmas of a k-tile (arrive, commit, wait for all, then release the stage).
// The producer, the persistent schedule, the pipeline and the TMA-store
// epilogue are k11's.  Waiting for every wgmma before releasing the stage is
// the simplest correct order; keeping one k-tile in flight is the next step.
//
// Predicted (docs/ladder.md, k12): 560–650 TFLOP/s at 4096^3, limited by
// the wait after every k-tile (the tensor cores idle while the last
// wgmma drains and the next stage's barrier is checked).
#pragma once

#include "tessel/atom/mma_sm90.hpp"
#include "tessel/kernels/gemm/k11_tma_store_epilogue.cuh"

namespace tessel::gemm_kernels::k12 {

using k10::kThreads;
using warp_specialized::kBM;
using warp_specialized::kBN;
using warp_specialized::kConsumerWarps;
using warp_specialized::kStages;
using warp_specialized::Pipeline;
using warp_specialized::Tiles;

/// Two consumer warpgroups, 64 x 256 of D each, one m64n256k16 per k16.
template <class T, MajorA MA, MajorB MB>
using Mma = TiledMma<SM90_64xNx16_F32_SS<T, kBN, major_of(MA), major_of(MB)>, 2, 1, 1>;

template <class T, MajorA MA, MajorB MB, class U>
using Epilogue = TmaStoreEpilogue<U, Mma<T, MA, MB>, kBM, kBN>;
static_assert(Epilogue<__nv_bfloat16, MajorA::k, MajorB::n, float>::kSmemBytes == k11::kEpilogueBytes,
              "k11's staging buffers serve k12");

/// D's tile from the wgmma accumulators: TMA stores through the staging
/// buffers, or registers where TMA cannot describe D.
template <class T, MajorA MA, MajorB MB>
struct WgmmaTileEpilogue {
  using TM = Mma<T, MA, MB>;
  using FragC = typename TM::template FragmentC<coord_layout(make_shape(kBM, kBN))>;  // (128,1,1) f32
  const CUtensorMap* map_d;
  bool tma_store;
  const Params<T>& p;
  typename k11::SharedStorage<T, MA, MB>::Staging& d;

  __device__ void store(blocks::TileCoord tile, const FragC& acc, int t) const {
    if (tma_store) {
      with_out_type(p.cd_type, [&]<class U>() {
        Epilogue<T, MA, MB, U>::apply(map_d, p, tile.m, tile.n, acc, d.template as<U>(), t, k11::kConsumerBarrier);
      });
    } else {
      RegisterEpilogue::apply<TM, TileShape<kBM, kBN>>(p, tile.m * kBM, tile.n * kBN, acc, nullptr, t);
    }
  }
  __device__ void finish(int t) const {
    if (tma_store) Epilogue<T, MA, MB, float>::finish(t);
  }
};

template <class T, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_wgmma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               const __grid_constant__ CUtensorMap map_d, bool tma_store, Params<T> p) {
  using X = Tiles<T, MA, MB>;
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  using TM = Mma<T, MA, MB>;
  using Schedule = k10::ProducerWarpgroupPersistent;
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<k11::SharedStorage<T, MA, MB>*>(smem);
  const Pipeline pipe(shared.pipe);
  const WgmmaTileEpilogue<T, MA, MB> epilogue{&map_d, tma_store, p, shared.d};
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  if (threadIdx.x == 0) pipe.init(kConsumerWarps);  // one release per consumer warp
  __syncthreads();

  const index_t tiles_m = ceil_div(p.m, index_t{kBM}), tiles_n = ceil_div(p.n, index_t{kBN});
  const index_t k_tiles = ceil_div(p.k, index_t{kBK});

  if (warp >= kConsumerWarps) {  // the producer warpgroup: k11's, unchanged
    warp_specialized::produce<X, Schedule>(map_a, map_b, shared, pipe, warp, tiles_m, tiles_n, k_tiles);
    return;
  }
  Schedule::consumer_start();

  // Two warpgroups: thread t of 256 in the TiledMMA.
  const int t = static_cast<int>(threadIdx.x);
  const auto thr = TM{}.get_slice(t);
  constexpr int kRK = kBK / TM::kL.k;  // wgmmas (k16) per k-tile
  auto scheduler = Schedule::scheduler(tiles_m, tiles_n);
  Pipeline::State read;
  for (blocks::TileCoord tile; scheduler.next(tile);) {
    typename WgmmaTileEpilogue<T, MA, MB>::FragC acc;  // (128,1,1) f32: 64 x 256 per warpgroup
    for (index_t kt = 0; kt < k_tiles; ++kt, ++read) {
      pipe.consumer_wait(read);
      const auto tCdA =
          thr.partition_fragment_A(make_smem_tensor<OpA::kSmem>(shared.stages.a[read.index()]));  // (1,1,4)
      const auto tCdB =
          thr.partition_fragment_B(make_smem_tensor<OpB::kSmem>(shared.stages.b[read.index()]));  // (1,1,4)
      warpgroup_fence_operand(acc);
      warpgroup_arrive();
      TESSEL_UNROLL
      for (int k = 0; k < kRK; ++k) gemm(TM{}, tCdA(_, _, k), tCdB(_, _, k), acc, kt > 0 || k > 0);
      warpgroup_commit_batch();
      warpgroup_wait<0>();  // the stage's reads are done: it may be refilled
      warpgroup_fence_operand(acc);
      __syncwarp();
      if (lane == 0) pipe.consumer_release(read);
    }
    epilogue.store(tile, acc, t);
  }
  epilogue.finish(t);
}

}  // namespace tessel::gemm_kernels::k12
