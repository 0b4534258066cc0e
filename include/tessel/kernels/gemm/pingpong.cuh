// tessel/kernels/gemm/pingpong.cuh — the pingpong kernel shell's pieces: two
// consumer warpgroups, each on a whole tile of its own, that take the CTA's
// units in turn.  Here: the tiles of one warpgroup (operands, TiledMMA,
// staging and named barrier per warpgroup, the stages that fit beside them),
// the producer thread's loads of the units in order, and the turn that hands
// the main loop from one warpgroup to the other.  Taken by k15's kernel and
// its batched kernel (k15_pingpong.cuh, k15_grouped.cuh).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/blocks/pipeline_sm90.cuh"
#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/wgmma_tiles.cuh"

namespace tessel::gemm_kernels::pingpong {

inline constexpr int kConsumerGroups = 2;  // warpgroups, each on its own tile
inline constexpr int kGroupThreads = 128;  // threads of one consumer warpgroup
inline constexpr int kFirstBarrier = 1;    // warpgroup w's named barrier is kFirstBarrier + w (0 is __syncthreads)

/// The operands, the one-warpgroup TiledMMA, the fragments and the shared
/// memory of one input type, layout and configuration (Cfg: kBN, kStages, 0
/// for all that fit, kFused, Epi); the names TileEpilogue and consume read.
/// A tile is wgmma::kBM rows, two m64 atoms along M (the TiledMMA's repeat).
template <class T, MajorA MA, MajorB MB, class Cfg>
struct Tiles {
  static constexpr int kBM = wgmma::kBM, kBN = Cfg::kBN;
  static constexpr bool kTmaStore = Cfg::kTmaStore, kTransposed = Cfg::kTransposed, kFused = Cfg::kFused;
  using Epi = typename Cfg::Epi;
  using OpA = TmaOperand<T, major_of(MA), kBM>;
  using OpB = TmaOperand<T, major_of(MB), kBN>;
  static constexpr int kBK = kBKOf<T>;  // a k-tile: 128 bytes of K
  using TM = TiledMma<typename wgmma::WgmmaAtomFor<T, kBN, major_of(MA), major_of(MB)>::type, 1, 1, 1>;
  using FragC = typename TM::template FragmentC<coord_layout(make_shape(kBM, kBN))>;  // (64,2,1) f32
  template <class U>
  using Epilogue = TmaStoreEpilogue<U, TM, kBM, kBN>;
  static_assert(TM::kThreads == kGroupThreads, "one TiledMMA thread per thread of a consumer warpgroup");
  static constexpr int kStagingBytes = Epilogue<__nv_bfloat16>::kSmemBytes > Epilogue<float>::kSmemBytes
                                           ? Epilogue<__nv_bfloat16>::kSmemBytes
                                           : Epilogue<float>::kSmemBytes;                        // 32 KB
  static constexpr int kStageBytes = (OpA::kElems + OpB::kElems) * static_cast<int>(sizeof(T));  // 32 KB
  static constexpr int kBiasBytes = Cfg::kFused ? kConsumerGroups * (kBM + kBN) * 4 : 0;
  static constexpr int kStagesThatFit =
      (wgmma::kSmemLimit - kConsumerGroups * kStagingBytes - kBiasBytes - 1024) / kStageBytes;
  static constexpr int kStages = Cfg::kStages > 0 ? Cfg::kStages : kStagesThatFit;
  static_assert(Cfg::kStages > 0 || kStages >= 4,
                "tessel: k15 wants at least four stages where it fills shared memory");
  static_assert(kStages <= kStagesThatFit, "tessel: k15's stages exceed its shared memory");
  using Pipeline = blocks::TmaPipeline<kStages>;

  struct SharedStorage {
    alignas(1024) T a[kStages][OpA::kElems];    // kStages x (128,64)
    alignas(1024) T b[kStages][OpB::kElems];    // kStages x (128,64)
    using Staging = OutStaging<kStagingBytes>;  // a warpgroup's staging buffers, in D's type
    alignas(1024) Staging d[kConsumerGroups];   // one per warpgroup: their epilogues may overlap
    blocks::PipelineStorage<kStages> pipe;
    std::uint64_t turn[kConsumerGroups];  // warpgroup w's warps arrive on turn[w] when it hands the main loop over
  };
  struct FusedStorage : SharedStorage {
    alignas(16) float bias[kConsumerGroups][kBN + kBM];  // per warpgroup: the column slice, then the row slice
  };
  using Storage = std::conditional_t<Cfg::kFused, FusedStorage, SharedStorage>;
  static constexpr int kSmemBytes = static_cast<int>(sizeof(Storage));
  static_assert(kSmemBytes <= wgmma::kSmemLimit, "tessel: k15's shared memory exceeds 227 KB");
};

/// Thread 0, before the CTA's barrier: the pipeline, whose stages are
/// released by the 4 warps of one warpgroup, and the turn's two barriers.
template <class Pipeline, class Shared>
__device__ __forceinline__ void init(const Pipeline& pipe, Shared& shared) {
  pipe.init(kGroupThreads / 32);
  for (auto& b : shared.turn) arch::sm90::mbarrier_init(arch::smem_addr(&b), kGroupThreads / 32);
  arch::sm90::fence_mbarrier_init();
}

/// The producer thread: every unit's k-tiles of A and B in the order the
/// scheduler gives them, the stages shared by both warpgroups' units;
/// `write` (the caller's) runs on from stage 0.
template <class X, class Scheduler, class Shared>
__device__ __forceinline__ void produce(Scheduler& scheduler, const typename X::Pipeline& pipe, Shared& shared,
                                        const CUtensorMap* map_a, const CUtensorMap* map_b,
                                        typename X::Pipeline::State& write) {
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  arch::sm90::prefetch_tensormap(map_a);
  arch::sm90::prefetch_tensormap(map_b);
  for (blocks::WorkUnit u; scheduler.next(u);)
    for (index_t kt = u.k_begin; kt < u.k_end; ++kt, ++write) {
      pipe.producer_acquire(write, X::kStageBytes);
      OpA::Tma::load(map_a, shared.a[write.index()], pipe.full(write.index()), u.tile.m, kt);  // A (m, kt)
      OpB::Tma::load(map_b, shared.b[write.index()], pipe.full(write.index()), u.tile.n, kt);  // B (n, kt)
    }
}

// The turn.  Warpgroup wg starts the CTA's unit i (i % 2 == wg) only once
// the other has issued all of unit i-1's wgmmas (waited for all its stages).
// Without it the first run failed (unspecified launch failure at 4096^3):
// warpgroup 1 waited for unit 1's first stage, 64 k-tiles = 12 rounds of 5
// stages ahead, with the round's parity, which an mbarrier cannot tell from
// the first round's, so it read and released stages of unit 0.  With the turn
// taken, every wait is at most one round ahead of the barrier's phase.  (A
// first form handed the turn over with named barriers, bar.arrive / bar.sync:
// exact results, memcheck and synccheck clean, but compute-sanitizer's
// racecheck failed with an internal error at 2048^2 x 128, where the turns
// are taken; mbarriers it follows.)

/// Before unit i: the other warpgroup's hand-over of unit i-1 (its hand-over
/// number (i-1)/2 on turn[1 - wg], so that phase's parity).  The hand-overs
/// alternate, so a wait is never more than one phase ahead.
template <class Shared>
__device__ __forceinline__ void wait_turn(Shared& shared, int wg, int i) {
  if (i > 0) arch::sm90::mbarrier_wait_parity(arch::smem_addr(&shared.turn[1 - wg]), ((i - 1) / 2) & 1);
}

/// Once unit i's last batch is issued (consume's `issued`): hands the main
/// loop over on turn[wg], where this CTA has a unit i+1 of `units`.
template <class Shared>
__device__ __forceinline__ void hand_over(Shared& shared, int wg, int i, int units, int lane) {
  __syncwarp();
  if (i + 1 < units && lane == 0) arch::sm90::mbarrier_arrive(arch::smem_addr(&shared.turn[wg]));
}

}  // namespace tessel::gemm_kernels::pingpong
