// a08 — a07 with K and V on rings of their own.
//
// In a05's loop a warpgroup's turn j reads block j's K (S_j) and block j-1's
// V (P V_{j-1}), so one stage holding a block's K and V stays taken from the
// turn that reads its K to the end of the next, and the block two ahead can
// only start loading when a turn ends: with two stages (d = 256, where Q's
// 64 KB leave room for five 32 KB halves of a block) every load is exposed,
// and a06 ran 0.68x a03 there.  Here K and V have rings and barriers of
// their own: K_j is given back as soon as S_j completes, V_j when P V_j does,
// and of the halves that fit K takes half, rounded down, and V the rest (a V
// is held a turn longer).  At d = 256 K's next load starts mid-turn and V's a
// turn ahead.
#pragma once

#include "tessel/kernels/attention/a07_persistent.cuh"

namespace tessel::attention_kernels::a08 {

using a03::kThreads;

/// How many block halves (a block's K or V of `bn` keys x d, V's keys rounded up
/// to its tiles of 64) fit beside `q_tiles` tiles of Q in 227 KB, at most 8.
constexpr int halves(int d, int bn, int q_tiles = 1) {
  const int q = q_tiles * a03::kBM * d * 2, half = (bn + 63) / 64 * 64 * d * 2;
  const int n = (227 * 1024 - 1024 - q) / half;
  return n < 8 ? n : 8;
}

/// a03's tiles (blocks of BN keys) with K on `KStages` and V on `VStages` stages, each ring its own barriers.
template <class T, int D, int BN = a03::block_keys(D), int KStages = halves(D, BN) / 2,
          int VStages = halves(D, BN) - halves(D, BN) / 2>
struct Tiles : a03::Tiles<T, D, 2, BN> {
  using Base = a03::Tiles<T, D, 2, BN>;
  static constexpr int kKStages = KStages, kVStages = VStages;
  using PipeK = blocks::TmaPipeline<KStages>;
  using PipeV = blocks::TmaPipeline<VStages>;
  static constexpr std::uint32_t kKBytes = Base::kDK * Base::OpK::kElems * sizeof(T);
  static constexpr std::uint32_t kVBytes = Base::kNK * Base::OpV::kElems * sizeof(T);
  struct SharedStorage {
    alignas(1024) T q[Base::kDK][Base::OpQ::kElems];
    alignas(1024) T k[KStages][Base::kDK][Base::OpK::kElems];
    alignas(1024) T v[VStages][Base::kNK][Base::OpV::kElems];
    blocks::PipelineStorage<KStages> pipe_k;
    blocks::PipelineStorage<VStages> pipe_v;
    std::uint64_t q_full;
    std::uint64_t q_empty;
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(KStages >= 2 && VStages >= 2, "tessel: a08 needs two stages of K and two of V");
  static_assert(kSmemBytes <= 227 * 1024, "tessel: a08's tiles exceed 227 KB of shared memory");
};

/// a05::key_loop's K and V from their own rings (JointFeed's contract).
template <class X>
struct SplitFeed {
  typename X::PipeK pk;
  typename X::PipeV pv;
  typename X::PipeK::State k{};
  typename X::PipeV::State v{};
  __device__ int k_ready() {
    pk.consumer_wait(k);
    return k.index();
  }
  __device__ void k_done(int lane) {
    __syncwarp();
    if (lane == 0) pk.consumer_release(k);
    ++k;
  }
  __device__ int v_ready() {
    pv.consumer_wait(v);
    return v.index();
  }
  __device__ void v_done(int lane) {
    __syncwarp();
    if (lane == 0) pv.consumer_release(v);
    ++v;
  }
};

/// The producer's loads onto the two rings of tiles X (its place kept from
/// tile to tile): each block's K and V into the next stage of its ring.
template <class X>
struct RingLoader {
  typename X::PipeK pk;
  typename X::PipeV pv;
  typename X::PipeK::State write_k{};
  typename X::PipeV::State write_v{};
  __device__ explicit RingLoader(typename X::SharedStorage& shared) : pk(shared.pipe_k), pv(shared.pipe_v) {}
  __device__ void key_blocks(typename X::SharedStorage& shared, const CUtensorMap* map_k, const CUtensorMap* map_v,
                             int kv_first, int hk, int tb, int blocks) {
    for (int j = 0; j < blocks; ++j) {
      const int key0 = kv_first + j * X::kBN;
      pk.producer_acquire(write_k, X::kKBytes);
      a03::load_k<X>(shared, map_k, write_k.index(), pk.full(write_k.index()), key0, hk, tb);
      ++write_k;
      pv.producer_acquire(write_v, X::kVBytes);
      a03::load_v<X>(shared, map_v, write_v.index(), pv.full(write_v.index()), key0, hk, tb);
      ++write_v;
    }
  }
  /// Q (a07's one buffer), then the tile's key blocks.
  __device__ void tile(typename X::SharedStorage& shared, const CUtensorMap* map_q, const CUtensorMap* map_k,
                       const CUtensorMap* map_v, int q_row, int kv_first, int h, int hk, int tb, int blocks) {
    a03::load_q<X>(shared, map_q, q_row, h, tb);
    key_blocks(shared, map_k, map_v, kv_first, hk, tb, blocks);
  }
};

/// a07's stages policy for the two rings, key blocks of BN (`XT`: a08's
/// tiles, or a10's with two buffers of Q).
template <class T, int D, int BN = a03::block_keys(D), class XT = Tiles<T, D, BN>>
struct SplitStages {
  using X = XT;
  using Feed = SplitFeed<X>;
  using Loader = RingLoader<X>;
  __device__ static void init(typename X::SharedStorage& shared) {
    typename X::PipeK(shared.pipe_k).init(a03::kConsumerWarps);  // one release a consumer warp
    typename X::PipeV(shared.pipe_v).init(a03::kConsumerWarps);
  }
  __device__ static Feed feed(typename X::SharedStorage& shared) {
    return Feed{typename X::PipeK(shared.pipe_k), typename X::PipeV(shared.pipe_v)};
  }
};

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_forward(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, const a03::Params p) {
  a07::run<T, D, SplitStages<T, D>>(&map_q, &map_k, &map_v, p);
}

}  // namespace tessel::attention_kernels::a08
