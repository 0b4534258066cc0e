// a06 — a05 with the longest CTAs launched first.
//
// Under the causal mask CTA x of a head computes x + 1 key blocks (more with
// a longer K/V), and the GPU starts CTAs in the order of x, then the head,
// then the sequence: the last CTAs to start are the last head's longest, and
// the SMs that finish early idle while they run.  Here CTA x takes the row
// block gridDim.x - 1 - x: each head's rows from the last (longest) to the
// first, so the work that starts last is the shortest and the SMs finish
// together (longest-processing-time-first, as a list schedule).  The same
// order serves packed sequences (the highest row blocks exist only in the
// longest sequences) and changes nothing where every CTA has the same work.
// A persistent grid would add the next tile's loads under this one's store;
// the order is what the causal tail needs.
#pragma once

#include "tessel/kernels/attention/a05_overlap.cuh"

namespace tessel::attention_kernels::a06 {

using a03::kThreads;
using a05::Tiles;

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_forward(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, const a03::Params p) {
  a05::forward<T, D, true>(&map_q, &map_k, &map_v, p);
}

}  // namespace tessel::attention_kernels::a06
