// tessel/kernels/gemm/wgmma_mainloop.cuh — the wgmma kernels' main-loop
// collective: on the consumers' side one work unit's k-tiles through a
// blocks::TmaPipeline, a wgmma batch per k-tile kept in flight while the
// next is issued (k13's idea); on the producer's, the early start.  Taken by
// k13 (both of its consumer loops), its batched and grouped kernel, k14 and
// k15, for any tile type X that has k13's Tiles' members (OpA, OpB, TM,
// FragC, Pipeline, SharedStorage).  The kernels' machine code is guarded by
// the SASS record (tests/sass_record.py), not by copies of this loop.
#pragma once

#include "tessel/atom/mma_sm90.hpp"
#include "tessel/kernels/blocks/pipeline_sm90.cuh"
#include "tessel/kernels/blocks/tile_scheduler.hpp"
#include "tessel/kernels/gemm/mma_common.cuh"

namespace tessel::gemm_kernels {

/// The consumers' main loop over k-tiles [k_begin, k_end) of one work unit
/// (one wgmma batch per k-tile, the previous k-tile's batch waited for and
/// its stage released), ending with every batch done and the last stage
/// released.  `read` runs on across units; `acc` needs no clearing (the
/// first wgmma overwrites it); `thr_desc` is the warp-uniform slice the
/// operands' descriptors come from (see k13's kernel).
/// Nothing: consume()'s default `issued` and `committed`.
struct Nothing {
  __device__ void operator()() const {}
  __device__ void operator()(int) const {}
};

/// The release of a consumed stage to its producer (this CTA's): lane 0 of
/// the warp arrives on the stage's empty barrier.  k14 passes one that also
/// arrives on the peer CTA's.
struct ReleaseLocal {
  template <class Pipeline>
  __device__ void operator()(const Pipeline& pipe, const typename Pipeline::State& st, int lane) const {
    __syncwarp();
    if (lane == 0) pipe.consumer_release(st);
  }
};

/// `issued()` runs once the unit's last batch is issued (every stage of the
/// unit waited for), before its wait: k15 lets the other warpgroup start there.
/// `committed(j)` runs after the batch of the unit's j-th k-tile is
/// committed, before the wait for the one before it: k13's warpgroup
/// epilogue stores the previous tile there while the batch runs.
/// `release(pipe, stage, lane)` gives a stage back (ReleaseLocal by default).
template <class X, class Thr, class Issued = Nothing, class Committed = Nothing, class Release = ReleaseLocal>
__device__ __forceinline__ void consume(const typename X::Pipeline& pipe, typename X::Pipeline::State& read,
                                        typename X::SharedStorage& shared, const Thr& thr_desc, int k_begin, int k_end,
                                        typename X::FragC& acc, int lane, const Issued& issued = {},
                                        const Committed& committed = {}, const Release& release = {}) {
  using OpA = typename X::OpA;
  using OpB = typename X::OpB;
  using TM = typename X::TM;
  constexpr int kRK = X::kBK / TM::kL.k;  // wgmmas per k-tile (4: k16 of 16-bit, k32 of FP8 elements)
  for (index_t kt = k_begin; kt < k_end; ++kt, ++read) {
    pipe.consumer_wait(read);
    const auto tCdA = thr_desc.partition_fragment_A(make_smem_tensor<OpA::kSmem>(shared.a[read.index()]));  // (1,1,4)
    const auto tCdB = thr_desc.partition_fragment_B(make_smem_tensor<OpB::kSmem>(shared.b[read.index()]));  // (1,1,4)
    warpgroup_fence_operand(acc);
    warpgroup_arrive();
    TESSEL_UNROLL
    for (int k = 0; k < kRK; ++k) gemm(TM{}, tCdA(_, _, k), tCdB(_, _, k), acc, kt > k_begin || k > 0);
    warpgroup_commit_batch();
    committed(static_cast<int>(kt - k_begin));
    warpgroup_wait<1>();  // k-tile kt-1's batch is done (kt's may still run): its stage may be refilled
    warpgroup_fence_operand(acc);
    if (kt > k_begin) release(pipe, read.previous(), lane);
  }
  issued();
  warpgroup_wait<0>();  // the unit's last batch
  warpgroup_fence_operand(acc);
  release(pipe, read.previous(), lane);
}

/// The producer's early start (k13's): the producer's first warp issues the
/// first k-tile's loads before the CTA's barrier.  One lane
/// initializes the barriers, the warp works out its first unit, the lane
/// issues the loads (a fresh stage's acquire returns at once), and only then
/// does the warp arrive at the barrier.  Why: the first reads of the
/// parameters miss the constant cache, and the CTA's start before its first
/// load, about 1500 SM cycles by in-kernel clock stamps, is on the critical
/// path of a memory-bound problem (128 x 8192 x 8192: 0.995 -> 1.000 of
/// cuBLASLt).  One k-tile, not every stage: with all stages issued before the
/// barrier the consumers started that much later, and 512^3 and 1024^3 lost
/// 5-8 %.  Every lane of the warp walks the same steps (the same cursor), so
/// after the barrier any one of them issues the rest; the other warps hold a
/// cursor without units, so that every thread reaches the one barrier.
/// Called by the issuing warp before the barrier: the barriers for `releases`
/// consumer warps, the maps prefetched, the wait for a grid ahead (a
/// programmatic launch after a padded copy), the first k-tile loaded by `load`
/// (unit, kt) on one lane; after it one lane calls cursor.rest(load).  (The
/// load itself stays the kernel's lambda: passed in, the instances' SASS is
/// the same as before the move; made here, the 64-row swapped ones changed.)
template <class Pipeline, class Cursor, class Load>
__device__ __forceinline__ void produce_first(const Pipeline& pipe, const CUtensorMap* map_a, const CUtensorMap* map_b,
                                              Cursor& cursor, typename Pipeline::State& write, int releases,
                                              const Load& load) {
  const bool leader = arch::sm90::elect_one_sync();
  if (leader) {
    pipe.init(releases);
    arch::sm90::prefetch_tensormap(map_a);
    arch::sm90::prefetch_tensormap(map_b);
    // Launched as a padded copy's programmatic dependent: the copy's grid done and its stores visible before the
    // first load (at once otherwise); the CTA's start and the lines above ran beside the copy.
    arch::sm90::griddep_wait();
  }
  cursor.step([&](const blocks::WorkUnit& u, index_t kt) {
    if (leader)
      load(u, kt);
    else
      ++write;
  });
}

}  // namespace tessel::gemm_kernels
