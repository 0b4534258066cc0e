// a05 — a04 with each warpgroup's softmax overlapped with its own P V.
//
// In a04 a warpgroup waits for its S, runs the softmax, issues P V and waits
// for it too: its softmax hides only under the other warpgroup's turn, one
// GEMM long (an S or a P V of 64 x kBN x d).  Here a warpgroup issues block
// j's S and block j - 1's P V in one turn, as two commit groups, waits for S
// only, and runs block j's softmax while its own P V still runs; then it
// waits for P V, rescales O (the rescale of block j's new maximum applies to
// the sum that P V completed) and packs P_j for the next turn.  A turn is two
// GEMMs long, so a softmax of up to that hides under the other warpgroup's,
// and the tensor cores see S, P V, S, P V of the two warpgroups back to back.
//
// A stage is released one block later than in a04 (after P V of the block
// after the one it holds), so K and V take three stages where they fit beside
// Q (d 64, 128, 192; two at 256).  P of one block, S of the next and O are
// live together: 160 accumulator registers at d = 128, within the consumers'
// share after setmaxnreg.
#pragma once

#include "tessel/kernels/attention/a03_wgmma.cuh"
#include "tessel/kernels/attention/a04_pingpong.cuh"

namespace tessel::attention_kernels::a05 {

using a03::kThreads;

template <class T, int D>
using Tiles = a03::Tiles<T, D, a03::most_stages(D)>;

/// Where a05's loop finds each block's K and V: here one stage a block holds
/// both (a08's SplitFeed puts them on rings of their own).  k_ready waits for
/// the next block's K and gives its stage, k_done gives K back once S has
/// completed; v_ready gives the oldest unfinished block's V, v_done gives it
/// back once P V has completed (one arrival a warp: lane 0, after the warp's wait).
template <class Pipe>
struct JointFeed {
  Pipe pipe;
  typename Pipe::State k{}, v{};  // the next block's stage; the oldest block whose P V is not done
  __device__ int k_ready() {
    pipe.consumer_wait(k);
    const int s = k.index();
    ++k;
    return s;
  }
  __device__ void k_done(int) {}
  __device__ int v_ready() { return v.index(); }
  __device__ void v_done(int lane) {
    __syncwarp();
    if (lane == 0) pipe.consumer_release(v);
    ++v;
  }
};

/// Turn 0 of a tile: block 0's S alone (Q from `q`), its softmax on fresh
/// row statistics and P_0 packed; O is still zero and needs no rescale.
/// `q_read()` runs once S_0 is done if the tile has one block.
template <class T, int D, class X, class Feed, class QRead>
__device__ __forceinline__ void first_turn(a03::Consumer<T, D, X>& c, Feed& feed, const T (&q)[X::kDK][X::OpQ::kElems],
                                           typename X::FragS& acc_s, std::uint32_t (&pr)[X::kBN / 16][4], int blocks,
                                           QRead&& q_read) {
  using Turns = a04::Pingpong;
  float rescale[2];
  const int ks = feed.k_ready();
  warpgroup_fence_operand(acc_s);
  Turns::turn(c.wg);
  warpgroup_arrive();
  c.issue_s_from(q, acc_s, ks);
  warpgroup_commit_batch();
  Turns::pass(c.wg, false);
  warpgroup_wait<0>();
  warpgroup_fence_operand(acc_s);
  feed.k_done(c.lane);
  if (blocks == 1) q_read();
  c.mask_block(acc_s, 0);
  softmax_block<X::kBN / 2>(acc_s.addr(0), c.p.scale_log2, c.row_max, c.row_sum, rescale,
                            [](float x) { return a03::fast_exp2(x); });
  a03::pack_p<T, typename X::FragS, X::kBN>(acc_s, pr);
}

/// The issue half of a turn: the next block's S (Q from `q`, K from the feed)
/// and block `prev`'s P V (P in `pr`) as two commit groups, then the wait for
/// S alone (the P V may still run) and K given back.
template <class T, int D, class X, class Feed>
__device__ __forceinline__ void issue_s_and_pv(a03::Consumer<T, D, X>& c, Feed& feed,
                                               const T (&q)[X::kDK][X::OpQ::kElems], typename X::FragS& acc_s,
                                               std::uint32_t (&pr)[X::kBN / 16][4], int prev) {
  using Turns = a04::Pingpong;
  const int ks = feed.k_ready();
  const int vs = feed.v_ready();  // block prev's V, read by its P V
  c.clear_tail_keys(prev, vs);
  warpgroup_fence_operand(acc_s);
  warpgroup_fence_operand(c.acc_o);
  Turns::turn(c.wg);
  warpgroup_arrive();
  c.issue_s_from(q, acc_s, ks);
  warpgroup_commit_batch();
  c.issue_pv(pr, vs);
  warpgroup_commit_batch();
  Turns::pass(c.wg, false);
  warpgroup_wait<1>();
  warpgroup_fence_operand(acc_s);
  feed.k_done(c.lane);
}

/// Turn j >= 1: block j's S and block j - 1's P V issued as two commit groups;
/// block j's softmax runs while the P V does, then O is rescaled and P_j packed.
template <class T, int D, class X, class Feed, class QRead>
__device__ __forceinline__ void overlapped_turn(a03::Consumer<T, D, X>& c, Feed& feed,
                                                const T (&q)[X::kDK][X::OpQ::kElems], typename X::FragS& acc_s,
                                                std::uint32_t (&pr)[X::kBN / 16][4], int j, int blocks,
                                                QRead&& q_read) {
  float rescale[2];
  issue_s_and_pv(c, feed, q, acc_s, pr, j - 1);
  if (j + 1 == blocks) q_read();
  c.mask_block(acc_s, j);
  softmax_block<X::kBN / 2>(acc_s.addr(0), c.p.scale_log2, c.row_max, c.row_sum, rescale,
                            [](float x) { return a03::fast_exp2(x); });
  c.wait_pv(pr);
  feed.v_done(c.lane);
  rescale_rows<D / 2>(c.acc_o.addr(0), rescale);
  a03::pack_p<T, typename X::FragS, X::kBN>(acc_s, pr);
}

/// The tile's last turn: block `blocks - 1`'s P V alone (`last`: the
/// warpgroup's last turn of the kernel), waited for.
template <class T, int D, class X, class Feed>
__device__ __forceinline__ void last_turn(a03::Consumer<T, D, X>& c, Feed& feed, std::uint32_t (&pr)[X::kBN / 16][4],
                                          int blocks, bool last) {
  using Turns = a04::Pingpong;
  const int vs = feed.v_ready();
  c.clear_tail_keys(blocks - 1, vs);
  warpgroup_fence_operand(c.acc_o);
  Turns::turn(c.wg);
  warpgroup_arrive();
  c.issue_pv(pr, vs);
  warpgroup_commit_batch();
  Turns::pass(c.wg, last);
  c.wait_pv(pr);
  feed.v_done(c.lane);
}

/// a05's key-block loop over one tile's `blocks` (none: `q_read` only), K and
/// V from `feed`, which carries its place from tile to tile; `q_read()` runs
/// once every wgmma reading Q has completed (a07 loads the next Q then).
template <class T, int D, class X, class Feed, class QRead>
__device__ __forceinline__ void key_loop(a03::Consumer<T, D, X>& c, Feed& feed, int blocks, QRead&& q_read) {
  if (blocks == 0) {
    q_read();
    return;
  }
  a04::Pingpong::start(c.wg, blocks);  // blocks + 1 turns a warpgroup, alike on both
  typename X::FragS acc_s;
  std::uint32_t pr[X::kBN / 16][4];
  first_turn(c, feed, c.shared.q, acc_s, pr, blocks, q_read);
  for (int j = 1; j < blocks; ++j) overlapped_turn(c, feed, c.shared.q, acc_s, pr, j, blocks, q_read);
  last_turn(c, feed, pr, blocks, true);
}

/// a05's key-block loop over a03's CTA (row blocks in the order `LongestFirst` says: a06).
template <class T, int D, bool LongestFirst = false>
__device__ __forceinline__ void forward(const CUtensorMap* map_q, const CUtensorMap* map_k, const CUtensorMap* map_v,
                                        const a03::Params& p) {
  using X = Tiles<T, D>;
  using C = a03::Consumer<T, D, X>;
  a03::cta<T, D, X, LongestFirst>(map_q, map_k, map_v, p, [](C& c, const typename X::Pipeline& pipe, int blocks) {
    JointFeed<typename X::Pipeline> feed{pipe};  // a copy: the barriers' addresses
    key_loop(c, feed, blocks, [] {});
  });
}

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_forward(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, const a03::Params p) {
  forward<T, D>(&map_q, &map_k, &map_v, p);
}

}  // namespace tessel::attention_kernels::a05
