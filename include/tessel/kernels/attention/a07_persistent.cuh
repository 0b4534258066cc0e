// a07 — a06 on a persistent grid: each CTA runs tile after tile.
//
// A CTA of a06 runs 8 key blocks at sequence 1k (64 at 8k) between a prologue
// (barriers, the first loads of Q, K and V from L2 or DRAM, the softmax's
// first S alone) and an epilogue (the last P V alone, O's store), with one
// CTA an SM nothing hides them: at 1k a06 ran 0.78 of its own 8k rate.  Here
// min(tiles, SMs) CTAs each take tiles in a06's order, round by round in a
// snake (snake_place), and the producer loads the next tile's Q as soon as
// the consumers' last S of the current one has read Q (q_empty), then its K
// and V into the stages they free: the next tile's loads run under this
// tile's last softmax, P V and store.  Under the causal mask a06's sections
// are rounded to whole pairs of rounds (snake_section), where the snake keeps
// each CTA's sum within a tile of the mean.
#pragma once

#include "tessel/kernels/attention/a05_overlap.cuh"

namespace tessel::attention_kernels::a07 {

using a03::kThreads;
using a05::Tiles;

/// The work of round r of this CTA, or false past the last tile: its head,
/// sequence, rows and key blocks.
struct Tile {
  int h, b, row0, blocks;
  SequenceRows seq;
};

__device__ __forceinline__ bool tile_at(const a03::Params& p, int r, int kBN, Tile& t) {
  const int tiles = p.blocks_m * p.heads_q * p.batch;
  const int place = snake_place(static_cast<int>(blockIdx.x), r, static_cast<int>(gridDim.x));
  if (r * static_cast<int>(gridDim.x) >= tiles) return false;
  t.h = -1;  // a place past the last tile in a partial last round: no work
  if (place >= tiles) return true;
  const CtaWork w = longest_first(place, p.blocks_m, p.heads_q, p.batch, p.section);
  t.seq = SequenceRows(p, w.b);
  t.row0 = w.m * a03::kBM;
  if (t.row0 >= t.seq.len_q) return true;
  t.h = w.h, t.b = w.b;
  t.blocks = t.seq.key_blocks(t.row0, a03::kBM, kBN, p.causal);
  return true;
}

/// a07's stages: a05's, K and V of a block in one stage of one ring.  A
/// stages policy gives the tiles (X), the barriers' initialization, the
/// producer's loads of a tile (Loader, its place kept from tile to tile: Q and
/// the key blocks, or the key blocks alone) and the consumers' Feed
/// (a05::key_loop's).  `XT`: a05's tiles, or a10's (two buffers of Q).
template <class T, int D, class XT = Tiles<T, D>>
struct JointStages {
  using X = XT;
  using Feed = a05::JointFeed<typename X::Pipeline>;
  __device__ static void init(typename X::SharedStorage& shared) {
    typename X::Pipeline(shared.pipe).init(a03::kConsumerWarps);  // one release a consumer warp
  }
  __device__ static Feed feed(typename X::SharedStorage& shared) { return Feed{typename X::Pipeline(shared.pipe)}; }
  struct Loader {
    typename X::Pipeline pipe;
    typename X::Pipeline::State write{};
    __device__ explicit Loader(typename X::SharedStorage& shared) : pipe(shared.pipe) {}
    __device__ void tile(typename X::SharedStorage& shared, const CUtensorMap* map_q, const CUtensorMap* map_k,
                         const CUtensorMap* map_v, int q_row, int kv_first, int h, int hk, int tb, int blocks) {
      a03::load_tile<X>(shared, pipe, map_q, map_k, map_v, write, q_row, kv_first, h, hk, tb, blocks);
    }
    __device__ void key_blocks(typename X::SharedStorage& shared, const CUtensorMap* map_k, const CUtensorMap* map_v,
                               int kv_first, int hk, int tb, int blocks) {
      a03::load_key_blocks<X>(shared, pipe, map_k, map_v, write, kv_first, hk, tb, blocks);
    }
  };
};

/// The persistent CTA over stages policy S (JointStages; a08's SplitStages).
template <class T, int D, class S>
__device__ __forceinline__ void run(const CUtensorMap* map_q, const CUtensorMap* map_k, const CUtensorMap* map_v,
                                    const a03::Params& p) {
  using X = typename S::X;
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::SharedStorage*>(smem);
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const std::uint32_t q_full = arch::smem_addr(&shared.q_full), q_empty = arch::smem_addr(&shared.q_empty);
  if (threadIdx.x == 0) {
    S::init(shared);
    arch::sm90::mbarrier_init(q_full, 1);
    arch::sm90::mbarrier_init(q_empty, a03::kConsumerWarps);
    arch::sm90::fence_mbarrier_init();
  }
  __syncthreads();
  Tile t{};
  if (warp >= a03::kConsumerWarps) {
    gemm_kernels::k10::ProducerWarpgroupPersistent::producer_start();
    if (warp != a03::kConsumerWarps || !arch::sm90::elect_one_sync()) return;
    typename S::Loader loader(shared);
    int done = 0;  // tiles loaded: Q's buffer is free again once the consumers have read the last one's
    for (int r = 0; tile_at(p, r, X::kBN, t); ++r) {
      if (t.h < 0) continue;
      if (done > 0) arch::sm90::mbarrier_wait_parity(q_empty, static_cast<std::uint32_t>((done - 1) & 1));
      const int tb = p.cu_q != nullptr ? 0 : t.b;  // the maps' batch coordinate
      loader.tile(shared, map_q, map_k, map_v, t.seq.q_first + t.row0, t.seq.kv_first, t.h, t.h / p.group, tb,
                  t.blocks);
      ++done;
    }
    return;
  }
  gemm_kernels::k10::ProducerWarpgroupPersistent::consumer_start();
  auto feed = S::feed(shared);
  const int lane = static_cast<int>(threadIdx.x) % 32;
  int done = 0;
  for (int r = 0; tile_at(p, r, X::kBN, t); ++r) {
    if (t.h < 0) continue;
    a03::Consumer<T, D, X> c(shared, p, t.seq, t.row0);
    arch::sm90::mbarrier_wait_parity(q_full, static_cast<std::uint32_t>(done & 1));
    a05::key_loop(c, feed, t.blocks, [&] {
      __syncwarp();
      if (lane == 0) arch::sm90::mbarrier_arrive(q_empty);
    });
    c.store(t.b, t.h, t.seq.q_first, t.seq.len_q);
    ++done;
  }
}

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_forward(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, const a03::Params p) {
  run<T, D, JointStages<T, D>>(&map_q, &map_k, &map_v, p);
}

}  // namespace tessel::attention_kernels::a07
