// tessel/kernels/gemm/cluster_split_k.cuh — split K summed in a cluster's
// shared memory: the cluster's CTAs run the splits of one tile at once (CTA r
// split r), CTAs 1.. copy their fp32 accumulators into slots in CTA 0's
// shared memory (distributed shared memory, one bulk copy each) and CTA 0
// adds them in split order, ((p0 + p1) + p2) + ..., then stores the tile.  Against split_k.cuh's
// partials in global memory it writes nothing to L2, counts nothing, and its
// sum waits on one cluster handoff, not on L2 round trips: it is how a tile
// row of few tiles (small M, swapped) gets more SMs' loads without split K's
// fixed cost.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessel/arch/sm90.hpp"
#include "tessel/core/config.hpp"

namespace tessel::gemm_kernels {

/// The shared memory a cluster split needs in each CTA past the stages in
/// flight: splits - 1 fp32 tiles (CTA 0's slots; in CTA r, the staging of
/// its own), then two mbarriers.
/// C++ example: cluster_split_bytes(64, 16, 4) == 3 * 4096 + 16.
constexpr int cluster_split_bytes(int bm, int bn, int splits) { return (splits - 1) * bm * bn * 4 + 16; }

/// The reduction of tile X (kBM x kBN, FragC, kConsumerThreads) for a kernel
/// whose consumers sync on named barrier `Barrier`.  `region` holds
/// cluster_split_bytes(...) bytes of shared memory, 16-byte aligned, at the
/// same offset in every CTA.  One object per consumer thread, kept across tiles
/// (it counts them: the barriers' phases).
template <class X, int Barrier>
struct ClusterSplitReduce {
  static constexpr int kTileBytes = X::kBM * X::kBN * 4;
  static constexpr int kPairs = X::FragC::kValues / 2;
  float2* region;       // slot s (split s + 1) at region + s * kTileBytes / 8, in the fragment's order
  std::uint32_t full;   // CTA 0's: its own arrival with the slots' bytes expected, the peers' copies complete them
  std::uint32_t freed;  // each other CTA's: CTA 0's one arrival a tile once it has read the slots
  int splits;
  std::uint32_t rank;
  int tiles = 0;

  __device__ ClusterSplitReduce(unsigned char* region_, int splits_)
      : region(reinterpret_cast<float2*>(region_)),
        full(arch::smem_addr(region_) + static_cast<std::uint32_t>((splits_ - 1) * kTileBytes)),
        freed(full + 8),
        splits(splits_),
        rank(arch::sm90::cluster_ctarank()) {}

  /// One thread of each CTA, before the cluster barrier that publishes it.
  __device__ void init() const {
    arch::sm90::mbarrier_init(full, 1);
    arch::sm90::mbarrier_init(freed, 1);
    arch::sm90::fence_mbarrier_init();
  }

  /// True in CTA 0, with the tile's sum in `acc`; false in the others (done with the tile).
  /// A peer stages its accumulators in its own copy of its slot and one thread copies the slot
  /// to CTA 0's in one bulk copy: a remote store and arrival per thread cost about 0.3 us a peer.
  __device__ bool last_adds(typename X::FragC& acc, int t) {
    const std::uint32_t parity = static_cast<std::uint32_t>(tiles & 1);
    ++tiles;
    if (rank != 0) {
      // The slot is free (here and in CTA 0) once CTA 0 has read the previous tile's sum from it.
      if (tiles > 1) arch::sm90::mbarrier_wait_parity_cluster(freed, parity ^ 1u);
      float2* slot = region + (rank - 1) * (kTileBytes / 8);
      TESSEL_UNROLL
      for (int q = 0; q < kPairs; ++q)
        slot[q * X::kConsumerThreads + t] = make_float2(*acc.addr(2 * q), *acc.addr(2 * q + 1));
      arch::sm90::fence_proxy_async_shared_cta();  // the copy reads what the generic stores wrote
      arch::named_barrier_sync(Barrier, X::kConsumerThreads);
      if (t == 0) {
        const std::uint32_t local = arch::smem_addr(slot);
        arch::sm90::bulk_copy_to_cluster(arch::sm90::mapa_shared(local, 0), local, kTileBytes,
                                         arch::sm90::mapa_shared(full, 0));
      }
      return false;
    }
    if (t == 0) arch::sm90::mbarrier_arrive_expect_tx(full, static_cast<std::uint32_t>((splits - 1) * kTileBytes));
    arch::sm90::mbarrier_wait_parity_cluster(full, parity);
    for (int s = 0; s + 1 < splits; ++s) {
      const float2* part = region + s * (kTileBytes / 8) + t;
      TESSEL_UNROLL
      for (int q = 0; q < kPairs; ++q) {
        const float2 x = part[q * X::kConsumerThreads];
        *acc.addr(2 * q) += x.x;
        *acc.addr(2 * q + 1) += x.y;
      }
    }
    arch::named_barrier_sync(Barrier, X::kConsumerThreads);  // every consumer has read the slots
    if (t == 0)
      for (int r = 1; r < splits; ++r)
        arch::sm90::mbarrier_arrive_release_cluster(arch::sm90::mapa_shared(freed, static_cast<std::uint32_t>(r)));
    return true;
  }

  /// Before the kernel exits: a CTA other than 0 waits for CTA 0's last read
  /// (it arrives on this CTA's barrier), so that no peer signals an exited CTA.
  __device__ void finish() const {
    if (rank != 0 && tiles > 0)
      arch::sm90::mbarrier_wait_parity_cluster(freed, static_cast<std::uint32_t>((tiles - 1) & 1));
  }
};

/// ClusterSplitReduce's place in kernels that have no cluster split: nothing.
struct NoClusterSplit {
  __device__ NoClusterSplit(unsigned char*, int) {}
  __device__ void init() const {}
  template <class Frag>
  __device__ bool last_adds(Frag&, int) const {
    return true;
  }
  __device__ void finish() const {}
};

/// A kernel's use of the cluster split: instances with `kOn` (room past a
/// run-time depth) run it where the launch's `cluster` > 1.  `region` is the
/// shared memory past the stages in flight.
template <class X, int Barrier, bool kOn_>
struct ClusterSplitOf {
  static constexpr bool kOn = kOn_;
  using Reduce = std::conditional_t<kOn, ClusterSplitReduce<X, Barrier>, NoClusterSplit>;
  /// Every thread, first: thread 0 initializes the barriers, every thread
  /// arrives on the cluster barrier that publishes them (waited for in join).
  __device__ static void start(unsigned char* region, int cluster) {
    if constexpr (kOn)
      if (cluster > 1) {
        if (threadIdx.x == 0) Reduce(region, cluster).init();
        arch::sm90::cluster_arrive_relaxed();
      }
  }
  /// A warp that leaves without a handoff (the producer's): the phase it arrived on.
  __device__ static void leave(int cluster) {
    if constexpr (kOn)
      if (cluster > 1) {
        __syncwarp();
        arch::sm90::cluster_wait();
      }
  }
  /// A consumer thread's reducer, once every CTA's barriers are initialized.
  __device__ static Reduce join(unsigned char* region, int cluster) {
    if constexpr (kOn)
      if (cluster > 1) arch::sm90::cluster_wait();
    return Reduce(kOn && cluster > 1 ? region : nullptr, cluster);
  }
};

}  // namespace tessel::gemm_kernels
