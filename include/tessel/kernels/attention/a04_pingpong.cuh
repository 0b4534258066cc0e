// a04 — a03 with the two consumer warpgroups' wgmmas in turn (pingpong).
//
// In a03 each warpgroup waits for its own wgmmas and then runs its softmax,
// and the tensor cores idle unless the other warpgroup's wgmmas happen to be
// queued then.  Here the warpgroups take turns at issuing: warpgroup 0 issues
// its S = Q K^T, passes the turn, and while warpgroup 1's S runs on the
// tensor cores warpgroup 0 waits for its own and computes its softmax; then
// warpgroup 0 issues its P V when warpgroup 1 has passed the turn back, and
// warpgroup 1's softmax runs under it.  The order is S0, S1, PV0, PV1, S0,
// ... of the two warpgroups, each issue preceded by a wait for the turn.
//
// Two named barriers of the 256 consumer threads, one a warpgroup: a
// warpgroup waits on its own (bar.sync) and passes the turn by arriving on
// the other's (bar.arrive).  Warpgroup 1 starts by passing warpgroup 0 the
// first turn; both issue 2 x blocks times, so warpgroup 1's last pass would
// find no wait on the other side and is left out (a barrier would be left
// half-arrived at exit).
#pragma once

#include "tessel/arch/common.hpp"
#include "tessel/kernels/attention/a03_wgmma.cuh"

namespace tessel::attention_kernels::a04 {

using a03::kThreads;
using a03::Tiles;

/// The turns of the two warpgroups on named barriers 3 (warpgroup 0's) and 4.
struct Pingpong {
  static constexpr int kBarrier = 3;  // 1 and 2 are a03's warpgroup barriers
  __device__ static void start(int wg, int blocks) {
    if (wg == 1 && blocks > 0) arch::named_barrier_arrive(kBarrier, 256);
  }
  __device__ static void turn(int wg) { arch::named_barrier_sync(kBarrier + wg, 256); }
  __device__ static void pass(int wg, bool last) {
    if (!(wg == 1 && last)) arch::named_barrier_arrive(kBarrier + 1 - wg, 256);
  }
};

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_forward(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, const a03::Params p) {
  a03::forward<T, D, Pingpong>(&map_q, &map_k, &map_v, p);
}

}  // namespace tessel::attention_kernels::a04
