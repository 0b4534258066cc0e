// f09 — the copies of the next k-tile spread over the k-steps.
//
// f08 (a 16x8 thread tile on 256 x 128, one CTA of 8 warps per SM) issues on
// 79 % of the cycles where cuBLAS's fp32 kernel issues on 91 %, with 2 % fewer
// instructions.  ncu's stall samples per SASS instruction at 4096^3 put about
// 40 % of f08's not-issued samples on the block of 18 cp.async (LDGSTS) that
// each warp issues at the start of a k-tile and on the instructions right after
// it: the LSU queue fills (lg_throttle 0.08 cycles per issued instruction;
// cuBLAS 0.00) and the next copy's address registers wait until the previous
// LDGSTS has read them (long_scoreboard 0.13; cuBLAS 0.01; the top sample, 20 %
// of all not-issued ones, is a MOV into a register that an LDGSTS still reads).
// With only 2 warps per scheduler nothing else covers those cycles.
//
// f09 issues the same copies in parts: part j (j < kSteps) of each operand
// at k-step j of the k-tile, between the FFMAs of the previous step, so no
// more than 2-3 LDGSTS are in the queue per warp at a time and their
// address arithmetic lands between FFMAs.  The copies still form one
// cp.async group per k-tile (committed after the last part, before the
// wait of the last k-step), so the pipeline's depth and the barrier are
// f08's.  Edge k-tiles (outside M x N, or K % 16 != 0) are copied at once,
// as in f08 (OperandLoad::load_edge).  Everything else is f08's kernel,
// instantiated with this schedule.
#pragma once

#include "tessel/kernels/gemm/f08_thread_tile_16x8.cuh"

namespace tessel::gemm_kernels::f09 {

/// f08's tile, k-tiles and stages; the copies of a k-tile in 8 parts, one at
/// each of the first 8 of its 16 k-steps: A:k (16 four-byte copies per
/// thread) 2 per step, B:n (2 sixteen-byte copies) 1 in each of the first two.
using Cfg = f08::Config<256, 128, 16, 4, 8>;
using f08::kThreads;

template <MajorA MA, MajorB MB>
inline constexpr auto kernel = &f08::gemm_thread_tile_16x8<MA, MB, Cfg>;

}  // namespace tessel::gemm_kernels::f09
