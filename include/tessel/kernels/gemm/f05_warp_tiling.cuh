// f05 — warp tiling, and the epilogue through shared memory.
//
// f04's loop with two changes, both about where a thread's accumulators are:
//  * warp tiling.  In f02..f04 thread t owns the 8x8 elements (t%16 + 16i,
//    t/16 + 16j): a warp is a 16x2 strip of the thread grid, its values
//    spread 16 rows and columns apart over the whole 128x128 tile.  Here
//    the atom is a warp, FmaBlock<float, 8, 4, 4, 4>: 8x4 lanes, each with a
//    4x4 block of *neighbouring* rows and columns, so a warp owns a compact
//    32x16 block of D; TiledMma<that, 2, 4> places the 8 warps 2 along M and
//    4 along N (a 64x64 tile), repeated 2x2 over the 128x128 CTA tile.  A
//    thread still has 8x8 accumulators, as 2x2 blocks of 4x4.  Per k a warp
//    now reads 8 distinct rows of A and 4 of B (f04: 16 and 2), and a
//    thread's 4 values of A (or B) are 4 consecutive rows: in a layout
//    where rows are contiguous one 128-bit load reads them (f06's step);
//  * the epilogue through shared memory (k08's SmemEpilogue).  From
//    registers a warp's store instruction writes 8 rows x 4 scattered
//    4-byte elements (f04: 16 rows x 2): at most 16 of every 32 bytes of a
//    sector.  Here the CTA first writes alpha * acc to a padded fp32 tile
//    in shared memory (the stages' memory, free by then), then reads it back
//    in rows: each thread adds beta * C to 4 consecutive elements and writes
//    them with one 128-bit store (when D's and C's rows are 16-byte
//    aligned; element-wise otherwise), so every warp store is 512
//    consecutive bytes.
// The shared tiles stay K-major with rows padded to 9 words: the A reads
// of a warp (rows 4*tm + v, tm = 0..7: banks 36*tm + 9v = 4*tm + 9v mod 32)
// and its B reads are conflict-free (checked below).
#pragma once

#include "tessel/kernels/gemm/f04_double_buffer.cuh"
#include "tessel/kernels/gemm/k08_smem_epilogue.cuh"

namespace tessel::gemm_kernels::f05 {

using f04::kBK;
using f04::kBM;
using f04::kBN;
using f04::kThreads;

/// 8 warps, each 8x4 lanes of 4x4 FMA blocks: a 64x64 tiled-MMA tile, 2x2
/// of them per 128x128 tile of D.
using WarpTiledMma = TiledMma<FmaBlock<float, 8, 4, 4, 4>, 2, 4, 1>;

/// f04's Config with the warp-tiled MMA and the epilogue through shared memory.
struct Config : f04::Config {
  using Mma = WarpTiledMma;
  using Epilogue = SmemEpilogue<kThreads>;
  // One CTA per SM's worth of registers: at 128 (two CTAs) ptxas spills 32..64
  // bytes of loop-invariant addresses of this thread layout; unresolved, see
  // docs/ladder-fp32.md, f05.
  static constexpr int kMinBlocks = 1;
};

static_assert(bank_conflict_ways(WarpTiledMma::kPartA<f04::SmemPadded::a>, 4) == 1);
static_assert(bank_conflict_ways(WarpTiledMma::kPartB<f04::SmemPadded::b>, 4) == 1);

}  // namespace tessel::gemm_kernels::f05
