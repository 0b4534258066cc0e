// a09 — a08 with wider key blocks where the registers allow.
//
// A key block's softmax has a fixed part (the row maxima's reductions across
// a row's four lanes, the rescale of O, the turn's barriers and waits) that
// does not grow with the block, while its GEMMs do.  At d = 128 a block of 176
// keys instead of 128 spreads that part over 1.375x the tensor work; its S
// (88 registers a consumer thread), the previous block's packed P (44) and O
// (64) are live together, within the consumers' 232.  K's and V's rings keep
// two stages each beside Q (44 KB a K, 48 KB a V, whose third tile of 64 keys
// is loaded whole and read to its 48th).  At d = 64, 192 keys (96 + 48 + 32).
// Elsewhere the blocks are a08's: at d = 192 and 256 a wider block would
// leave K or V a single stage.
#pragma once

#include "tessel/kernels/attention/a08_kv_rings.cuh"

namespace tessel::attention_kernels::a09 {

using a03::kThreads;

/// Keys a block: 176 at d = 128, 192 at d = 64, else a08's.
constexpr int block_keys(int d) { return d == 128 ? 176 : d == 64 ? 192 : a03::block_keys(d); }

template <class T, int D>
using Stages = a08::SplitStages<T, D, block_keys(D)>;

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_forward(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                  const __grid_constant__ CUtensorMap map_v, const a03::Params p) {
  a07::run<T, D, Stages<T, D>>(&map_q, &map_k, &map_v, p);
}

}  // namespace tessel::attention_kernels::a09
