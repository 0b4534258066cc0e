// a10 — a07/a08 with a CTA's tiles chained in one key loop.
//
// A persistent CTA of a07-a09 still starts and ends each tile alone: a
// warpgroup's first turn is block 0's S by itself (its softmax hides under the
// other warpgroup's S only, one GEMM), its last turn block n-1's P V by itself,
// and the turns restart at every tile, so the second warpgroup's last P V and
// O's store run with nothing else on the tensor cores.  Fitted to its times at
// 1k (8 key blocks a tile) and 8k (64), a07 pays 2.75 blocks' time a tile.
// Here the turns run on across tiles: a warpgroup's turn at a tile boundary
// issues the next tile's S_0 with this tile's last P V, as any other turn
// issues S_j with P V_{j-1}; then it runs S_0's softmax on fresh row
// statistics, waits for the P V and stores the finished tile's O, all under
// the other warpgroup's turn.  S_0 of the next tile reads the next Q while
// this tile's last S may still read its own, so Q has two buffers, each with
// its full and empty barriers; the producer loads tile n's Q into buffer
// n % 2 once tile n - 2's last S is done.  Beside two Q tiles, K and V keep
// a07's three joint stages at d = 64 and a08's rings at d = 128 (two stages
// of K, three of V) and 192; d = 256 does not fit.
#pragma once

#include "tessel/kernels/attention/a08_kv_rings.cuh"

namespace tessel::attention_kernels::a10 {

using a03::kThreads;

/// Head dims whose two Q tiles fit beside two stages each of K and V.
constexpr bool fits(int d) { return a08::halves(d, a03::block_keys(d), 2) >= 4; }

/// The two Q buffers that open a10's shared storage (their barriers follow
/// the stages' in each layout below).
template <class T, class Base>
struct TwoQ {
  alignas(1024) T q[2][Base::kDK][Base::OpQ::kElems];
};

/// a08's rings (K and V each their own) beside two buffers of Q.
template <class T, int D, int H = a08::halves(D, a03::block_keys(D), 2)>
struct RingTiles : a08::Tiles<T, D, a03::block_keys(D), H / 2, H - H / 2> {
  using Base = a08::Tiles<T, D, a03::block_keys(D), H / 2, H - H / 2>;
  struct SharedStorage : TwoQ<T, Base> {
    alignas(1024) T k[Base::kKStages][Base::kDK][Base::OpK::kElems];
    alignas(1024) T v[Base::kVStages][Base::kNK][Base::OpV::kElems];
    blocks::PipelineStorage<Base::kKStages> pipe_k;
    blocks::PipelineStorage<Base::kVStages> pipe_v;
    std::uint64_t q_full[2];
    std::uint64_t q_empty[2];  // every consumer warp's last S of the buffer's tile is done
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(kSmemBytes <= 227 * 1024, "tessel: a10's tiles exceed 227 KB of shared memory");
};

/// a07's joint stages (a block's K and V in one) beside two buffers of Q.
template <class T, int D>
struct JointTiles : a05::Tiles<T, D> {
  using Base = a05::Tiles<T, D>;
  struct SharedStorage : TwoQ<T, Base> {
    alignas(1024) T k[Base::kStages][Base::kDK][Base::OpK::kElems];
    alignas(1024) T v[Base::kStages][Base::kNK][Base::OpV::kElems];
    blocks::PipelineStorage<Base::kStages> pipe;
    std::uint64_t q_full[2];
    std::uint64_t q_empty[2];
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(kSmemBytes <= 227 * 1024, "tessel: a10's tiles exceed 227 KB of shared memory");
};

/// Where a10 keeps K and V: a07's three joint stages where they fit beside two
/// Q tiles (d = 64: a07's rate a key, where a08's rings ran 0.95x), else a08's
/// rings; a07's stages policies over a10's tiles.
template <class T, int D>
using Stages = std::conditional_t<D == 64, a07::JointStages<T, D, JointTiles<T, D>>,
                                  a08::SplitStages<T, D, a03::block_keys(D), RingTiles<T, D>>>;

/// The consumers' loop over the CTA's tiles (a07's order), each tile's turns
/// a05's, the boundary between two tiles one turn.
template <class T, int D, class S>
__device__ __forceinline__ void chained_tiles(typename S::X::SharedStorage& shared, const a03::Params& p) {
  using X = typename S::X;
  constexpr int kBN = X::kBN;
  auto feed = S::feed(shared);
  const int lane = static_cast<int>(threadIdx.x) % 32, warp_row = 16 * (static_cast<int>(threadIdx.x) / 32);
  int r = 0;
  // The next tile with key blocks; a tile without any (rows above the first key
  // under the causal mask) gets O = 0 and lse = -inf on the way, as a07's.
  const auto next = [&](a07::Tile& u) {
    for (; a07::tile_at(p, r, kBN, u); ++r) {
      if (u.h < 0) continue;
      if (u.blocks > 0) {
        ++r;
        return true;
      }
      const float none[2] = {-INFINITY, -INFINITY}, zero[2] = {0.0f, 0.0f};
      a03::Consumer<T, D, X>::template store_rows<true>(p, nullptr, lane, u.b, u.h, u.seq.q_first, u.seq.len_q,
                                                        u.row0 + warp_row, none, zero);
    }
    return false;
  };
  int n = 0;  // the tile's place among those with key blocks: its Q is buffer n % 2
  const auto q_read = [&] {
    __syncwarp();
    if (lane == 0) arch::sm90::mbarrier_arrive(arch::smem_addr(&shared.q_empty[n & 1]));
  };
  const auto q_wait = [&] {
    arch::sm90::mbarrier_wait_parity(arch::smem_addr(&shared.q_full[n & 1]), static_cast<std::uint32_t>((n >> 1) & 1));
  };

  a07::Tile cur{};
  if (!next(cur)) return;
  a03::Consumer<T, D, X> c(shared, p, cur.seq, cur.row0);
  typename X::FragS acc_s;
  std::uint32_t pr[kBN / 16][4];
  a04::Pingpong::start(c.wg, 1);
  q_wait();
  a05::first_turn(c, feed, shared.q[0], acc_s, pr, cur.blocks, q_read);
  for (;;) {
    for (int j = 1; j < cur.blocks; ++j)
      a05::overlapped_turn(c, feed, shared.q[n & 1], acc_s, pr, j, cur.blocks, q_read);
    a07::Tile nxt{};
    if (!next(nxt)) break;
    // The boundary: the next tile's S_0 and this tile's last P V in one turn.
    ++n;
    q_wait();
    a05::issue_s_and_pv(c, feed, shared.q[n & 1], acc_s, pr, cur.blocks - 1);
    if (nxt.blocks == 1) q_read();
    const int row_w = c.row_w;
    c.retarget(nxt.seq, nxt.row0);
    c.mask_block(acc_s, 0);
    float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f}, rescale[2];
    softmax_block<kBN / 2>(acc_s.addr(0), p.scale_log2, row_max, row_sum, rescale,
                           [](float x) { return a03::fast_exp2(x); });
    c.wait_pv(pr);
    feed.v_done(lane);
    c.store_as(cur.b, cur.h, cur.seq.q_first, cur.seq.len_q, row_w, c.row_max, c.row_sum);
    TESSEL_UNROLL
    for (int v = 0; v < X::FragO::kValues; ++v) *c.acc_o.addr(v) = 0.0f;
    for (int i = 0; i < 2; ++i) c.row_max[i] = row_max[i], c.row_sum[i] = row_sum[i];
    a03::pack_p<T, typename X::FragS, kBN>(acc_s, pr);
    cur = nxt;
  }
  a05::last_turn(c, feed, pr, cur.blocks, true);
  c.store(cur.b, cur.h, cur.seq.q_first, cur.seq.len_q);
}

template <class T, int D>
__device__ __forceinline__ void run(const CUtensorMap* map_q, const CUtensorMap* map_k, const CUtensorMap* map_v,
                                    const a03::Params& p) {
  using S = Stages<T, D>;
  using X = typename S::X;
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& shared = *reinterpret_cast<typename X::SharedStorage*>(smem);
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if (threadIdx.x == 0) {
    S::init(shared);
    for (int b = 0; b < 2; ++b) {
      arch::sm90::mbarrier_init(arch::smem_addr(&shared.q_full[b]), 1);
      arch::sm90::mbarrier_init(arch::smem_addr(&shared.q_empty[b]), a03::kConsumerWarps);
    }
    arch::sm90::fence_mbarrier_init();
  }
  __syncthreads();
  if (warp < a03::kConsumerWarps) {
    gemm_kernels::k10::ProducerWarpgroupPersistent::consumer_start();
    chained_tiles<T, D, S>(shared, p);
    return;
  }
  gemm_kernels::k10::ProducerWarpgroupPersistent::producer_start();
  if (warp != a03::kConsumerWarps || !arch::sm90::elect_one_sync()) return;
  typename S::Loader loader(shared);
  a07::Tile t{};
  int n = 0;  // tiles with key blocks loaded
  for (int r = 0; a07::tile_at(p, r, X::kBN, t); ++r) {
    if (t.h < 0 || t.blocks == 0) continue;
    const int b = n & 1;
    if (n >= 2)  // buffer b's previous tile, n - 2, is read
      arch::sm90::mbarrier_wait_parity(arch::smem_addr(&shared.q_empty[b]),
                                       static_cast<std::uint32_t>(((n >> 1) - 1) & 1));
    const int tb = p.cu_q != nullptr ? 0 : t.b;  // the maps' batch coordinate
    a03::load_q_into<X>(shared.q[b], shared.q_full[b], map_q, t.seq.q_first + t.row0, t.h, tb);
    loader.key_blocks(shared, map_k, map_v, t.seq.kv_first, t.h / p.group, tb, t.blocks);
    ++n;
  }
}

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_forward(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, const a03::Params p) {
  run<T, D>(&map_q, &map_k, &map_v, p);
}

}  // namespace tessel::attention_kernels::a10
