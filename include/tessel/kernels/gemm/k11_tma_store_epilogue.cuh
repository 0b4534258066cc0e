// k11 — k10 + D leaves through shared memory and TMA stores
// (tma_store_epilogue.cuh).
//
// Why: with k10's register epilogue every consumer thread issues 64
// four-byte stores per tile, each warp store touching 8 rows (8 half-used
// sectors), and the tensor cores wait until the last one is issued.  A copy
// of the kernel that skipped the epilogue measured what that costs, more than
// k08's epilogue cost the cp.async kernel.  Here the consumers write each
// 128-byte-wide column chunk of the tile into one of two swizzled staging
// buffers (conflict-free), synchronize on a named barrier of their own, and
// one thread hands the chunk to TMA; the next chunk goes to the other buffer
// while the first drains, and nothing waits for the global writes.  The
// producer fills the next tile's stages meanwhile (k10's persistence).
//
// Predicted (docs/ladder.md, k11): a gain like k08's, bounded by what the
// epilogue-free copy gained.  Measured: a little below the prediction at
// 4096^3, far above it at 2048^3 (fewer tiles than SMs, so every CTA's one
// epilogue is on the critical path) and at small sizes.  D rows that are not 16-byte aligned (TMA cannot describe
// them) keep k10's register epilogue.
#pragma once

#include "tessel/kernels/gemm/k10_persistent_warpgroup.cuh"
#include "tessel/kernels/gemm/tma_store_epilogue.cuh"

namespace tessel::gemm_kernels::k11 {

using k10::kThreads;
using warp_specialized::kBM;
using warp_specialized::kBN;
using warp_specialized::kStages;
using warp_specialized::Tiles;

/// D's epilogue for output type U, with the TiledMMA of input type T.
template <class T, class U>
using Epilogue = TmaStoreEpilogue<U, warp_specialized::Mma<T>, kBM, kBN>;
inline constexpr int kEpilogueBytes = Epilogue<__nv_bfloat16, float>::kSmemBytes;
static_assert(Epilogue<__nv_bfloat16, __half>::kSmemBytes == kEpilogueBytes, "one staging size for every output type");

/// k10's shared memory plus D's two staging buffers (1024-byte aligned for
/// the 128-byte swizzle), in the output type.
template <class T, MajorA MA, MajorB MB>
struct SharedStorage {
  typename Tiles<T, MA, MB>::Stages stages;
  using Staging = OutStaging<kEpilogueBytes>;  // D's two 128-row x 128-byte buffers
  alignas(1024) Staging d;
  blocks::PipelineStorage<kStages> pipe;
};
template <class T, MajorA MA, MajorB MB>
inline constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage<T, MA, MB>));

/// The consumers' named barrier (barrier 0 is __syncthreads).
inline constexpr int kConsumerBarrier = 1;

/// k11's epilogue: D's tile through the staging buffers and TMA stores, or
/// k09's register epilogue where TMA cannot describe D (`tma_store` false).
template <class T, MajorA MA, MajorB MB>
struct TmaStoreTileEpilogue {
  using X = Tiles<T, MA, MB>;
  const CUtensorMap* map_d;
  bool tma_store;
  const Params<T>& p;
  typename SharedStorage<T, MA, MB>::Staging& d;

  __device__ void store(blocks::TileCoord tile, const typename X::FragC& tCrC, int t) const {
    if (tma_store) {
      with_out_type(p.cd_type, [&]<class U>() {
        Epilogue<T, U>::apply(map_d, p, tile.m, tile.n, tCrC, d.template as<U>(), t, kConsumerBarrier);
      });
    } else {
      k09::RegisterTileEpilogue<T, MA, MB>{p}.store(tile, tCrC, t);  // D's rows are not 16-byte aligned
    }
  }
  /// The last TMA stores must complete before the CTA exits.
  __device__ void finish(int t) const {
    if (tma_store) Epilogue<T, float>::finish(t);
  }
};

template <class T, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_tma_store_epilogue(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                            const __grid_constant__ CUtensorMap map_d, bool tma_store, Params<T> p) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<SharedStorage<T, MA, MB>*>(smem);
  warp_specialized::run<Tiles<T, MA, MB>, k10::ProducerWarpgroupPersistent>(
      map_a, map_b, p, shared, TmaStoreTileEpilogue<T, MA, MB>{&map_d, tma_store, p, shared.d});
}

}  // namespace tessel::gemm_kernels::k11
