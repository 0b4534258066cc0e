// tessel/kernels/blocks/pipeline_sm90.cuh — a producer/consumer pipeline of
// shared-memory stages over mbarriers (Hopper), and the state that walks it.
//
// Each stage has two barriers.  `full[s]` completes when the stage's bytes
// have landed (the producer's arrive.expect_tx plus the TMA transactions);
// `empty[s]` completes when every consumer has released the stage (has
// issued its last read of it).  A stage is used once per round of the ring,
// and barrier phases alternate 0, 1, 0, ... from one round to the next: the
// parity to wait for is the round's parity, which PipelineState carries, so
// no kernel computes `(it / kStages) & 1` by hand.
//
// The producer's first round waits on `empty` with parity 1: the phase before
// a freshly initialized barrier's phase 0 counts as completed, so the wait
// returns at once and needs no special case.
#pragma once

#include <cstdint>

#include "tessel/arch/common.hpp"
#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/blocks/pipeline_state.hpp"

namespace tessel::blocks {

/// The barriers of a pipeline, as a member of a kernel's SharedStorage.
template <int Stages>
struct PipelineStorage {
  std::uint64_t full[Stages];
  std::uint64_t empty[Stages];
};

/// A TMA producer and `consumers` consumer arrivals per stage (a consumer is
/// whatever arrives once per stage: a warp, a warpgroup, a CTA of the cluster).
/// Thread roles are the kernel's; this object holds only shared addresses.
/// `St`: the walk over the stages (PipelineState: all `Stages`; RingState:
/// the first `size()` of them, chosen at run time).
template <int Stages, class St = PipelineState<Stages>>
class TmaPipeline {
 public:
  using State = St;
  static constexpr int kStages = Stages;

  __device__ explicit TmaPipeline(PipelineStorage<Stages>& s)
      : full_(arch::smem_addr(&s.full[0])), empty_(arch::smem_addr(&s.empty[0])) {}

  /// One thread initializes every barrier; follow with a barrier of the CTA
  /// (or of the cluster, when peers arrive on these barriers).
  __device__ void init(int consumers) const {
    for (int s = 0; s < Stages; ++s) {
      arch::sm90::mbarrier_init(full(s), 1);  // the producer's arrive.expect_tx
      arch::sm90::mbarrier_init(empty(s), static_cast<std::uint32_t>(consumers));
    }
    arch::sm90::fence_mbarrier_init();
  }

  /// Producer: wait until stage `st` is free, then announce `bytes` of TMA
  /// transactions on its full barrier.  The loads that follow complete on full(st).
  __device__ void producer_acquire(const State& st, std::uint32_t bytes) const {
    arch::sm90::mbarrier_wait_parity(empty(st.index()), st.phase() ^ 1u);
    arch::sm90::mbarrier_arrive_expect_tx(full(st.index()), bytes);
  }
  /// Producer, after its last acquire (`st` one past it): wait until every
  /// stage's last fill has been released by all its consumers.  A cluster
  /// kernel's CTA may exit after it: no peer will arrive on its barriers
  /// again (the empty barriers count the peers' releases), and every
  /// multicast into it has landed (its consumers waited for each).  A stage
  /// never filled passes at once (parity of the round before the first).
  __device__ void producer_tail(State st) const {
    for (int i = 0; i < st.size(); ++i, ++st) arch::sm90::mbarrier_wait_parity(empty(st.index()), st.phase() ^ 1u);
  }
  /// Consumer: wait until the bytes of stage `st` have landed.
  __device__ void consumer_wait(const State& st) const {
    arch::sm90::mbarrier_wait_parity(full(st.index()), st.phase());
  }
  /// Consumer: this consumer has issued its last read of stage `st`.  One
  /// arrival: call it from one thread of the consumer, after the consumer's
  /// reads are issued (a warp: __syncwarp, then lane 0).
  __device__ void consumer_release(const State& st) const { arch::sm90::mbarrier_arrive(empty(st.index())); }
  /// The same release, to the empty barrier of stage `st` in CTA `rank` of the
  /// cluster: a consumer of a stage that `rank` multicast into must release
  /// it there too, or that CTA's producer would overwrite data still in use.
  __device__ void consumer_release_cluster(const State& st, std::uint32_t rank) const {
    arch::sm90::mbarrier_arrive_cluster(arch::sm90::mapa_shared(empty(st.index()), rank));
  }

  /// Shared addresses of the barriers of stage s (for TMA loads' completion).
  __device__ std::uint32_t full(int s) const { return full_ + 8u * static_cast<std::uint32_t>(s); }
  __device__ std::uint32_t empty(int s) const { return empty_ + 8u * static_cast<std::uint32_t>(s); }

 private:
  std::uint32_t full_, empty_;
};

}  // namespace tessel::blocks
