// f02 — shared-memory tiles and a TiledMMA of FMA atoms, on fp32 A and B.
//
// The kernel is k02's (k02::gemm_smem_fma with T = float and k02's K-major
// shared tiles): one CTA of 256 threads per 128x128 tile of D; per k-tile of
// 16, a TiledCopy of one-element atoms (zero-filling outside the matrices)
// brings the (128,16) tiles of A and B into shared memory, and
// TiledMma<UniversalFma<float, float, float>, 16, 16> gives thread t the
// accumulators (t%16 + 16i, t/16 + 16j), i, j < 8: per k, 8 + 8 shared loads
// for 64 FFMAs.  Load, sync, compute, sync: nothing overlaps.  The header of
// k02_smem_fma.cuh says why 128x128x16 and 256 threads.
//
// What changes with 4-byte elements: the bank conflicts double.  A K-major
// row of 16 floats is 16 words, so element (r, k) is in bank (16r + k) % 32:
//  * the MMA's reads of A (8 of the 16 loads per k): a warp reads rows
//    m + 16i for m = 0..15, all in banks 0 and 16: 8 distinct words per
//    bank, an 8-way conflict (k02 on 16-bit elements: 4-way);
//  * reads of B: 2 rows per warp, banks 0 and 16: conflict-free;
//  * stores of a K-contiguous operand: 2 whole rows per warp, 32 consecutive
//    words: conflict-free; of an M/N-contiguous one: 32 rows at one k, banks
//    16r % 32: a 16-way conflict (once per k-tile).
// Per k a warp's loads take 8*8 + 8 = 72 shared-memory passes against 16
// clocks of FFMA (64 FFMAs, 4 per clock per SM): shared memory bounds f02 at
// about 16/72 of the FP32 peak.  f03 pads the rows.  The static_asserts in
// f03_smem_padded.cuh check these counts on the real partitions.
#pragma once

#include "tessel/kernels/gemm/k02_smem_fma.cuh"

namespace tessel::gemm_kernels::f02 {

using k02::kBK;
using k02::kBM;
using k02::kBN;
using k02::kThreads;

/// The fp32 kernel: k02's, with float A and B and K-major (128,16):(16,1) tiles.
template <MajorA MA, MajorB MB>
inline constexpr auto kernel = &k02::gemm_smem_fma<float, MA, MB, k02::SmemKMajor>;

}  // namespace tessel::gemm_kernels::f02
