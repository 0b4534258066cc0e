// k03 — k02 with a bank-conflict-free shared layout: rows padded by one word.
//
// The kernel is k02's (gemm_smem_fma); only the shared layouts of the
// (128,16) tiles change, from (128,16):(16,1) to (128,16):(18,1).
//
// What conflicts k02 has.  Shared memory has 32 banks of 4-byte words; a
// warp-wide access takes as many passes as the busiest bank has distinct
// words (threads on the same word share one).  A k02 row of 16 16-bit
// elements is 8 words, so element (r, k) is in bank (8r + k/2) % 32: rows
// r and r+4 share banks.
//  * MMA reads of A (the hot loop: 8 of the 16 loads per k): lane l of a
//    warp is thread (m, n) = (l%16, 2w + l/16) of the 16x16 FMA grid and
//    reads A(m + 16i, k).  The 16 distinct rows m + 16i, m = 0..15, fall in
//    banks 8m % 32 = {0, 8, 16, 24}: 4 distinct words per bank, a 4-way
//    conflict (lanes l and l+16 read the same word: no extra pass).
//  * MMA reads of B: the warp reads 2 rows (n = 2w, 2w+1), 8 words apart:
//    two banks, no conflict.
//  * Stores of a K-contiguous operand (A:k, B:k): the warp writes 2 whole
//    rows, 16 consecutive words: no conflict.  Stores of an M/N-contiguous
//    operand (A:m, B:n): the warp writes 32 consecutive rows at one k, banks
//    8r % 32 again: 8 words per bank, an 8-way conflict (once per k-tile,
//    8 stores per thread against 256 loads).
// Per k a warp's 16 loads take 8*4 + 8 = 40 passes instead of 16, while its
// 64 FFMAs take 16 clocks of the SM's 4 FMA pipes: shared memory bounds
// k02 at 40% of the FP32 peak.  Without conflicts (k03) the bound is the
// issue rate: about 106 instructions per 64 FFMAs (16 loads, 16 bf16/f16 to
// f32 conversions, the amortized tile loads), 60% of the peak (docs/ladder.md
// has the measured numbers).
//
// Why padding removes them.  With rows of 18 elements (9 words) element
// (r, k) is in bank (9r + k/2) % 32.  9 is odd, so r -> 9r % 32 is a
// bijection on 32 consecutive rows: the 16 rows of the A read fall in 16
// distinct banks, the 32 rows of an M/N-major store in 32; the 2 rows of a
// K-major store cover banks 9r + [0,8) and 9r + 9 + [0,8), disjoint.  The
// cost is 2 of every 18 elements of shared memory (4.5 KB a tile instead of
// 4 KB).  The static_asserts below check every one of these claims on the
// actual partitions (atom/bank_conflicts.hpp).
//
// Why a pad and not a swizzle: the pad fixes the reads and both kinds of
// stores with a plain strided layout.  An XOR of the row-group bits into
// the word index (Sw<2,1,5> on the element offset) also makes the A reads
// conflict-free, but leaves the M/N-major stores 2-way.
#pragma once

#include "tessel/atom/bank_conflicts.hpp"
#include "tessel/kernels/gemm/k02_smem_fma.cuh"

namespace tessel::gemm_kernels::k03 {

using k02::kBK;
using k02::kBM;
using k02::kBN;
using k02::kThreads;

/// Elements of padding after each row of 16: one 4-byte word of 16-bit elements.
inline constexpr int kPad = 2;

/// The shared-memory layouts of k03: K-major tiles with padded rows, (128,16):(18,1).
struct SmemPadded {
  static constexpr Layout a = make_layout(make_shape(kBM, kBK), make_stride(kBK + kPad, 1));
  static constexpr Layout b = make_layout(make_shape(kBN, kBK), make_stride(kBK + kPad, 1));
};

namespace detail {
/// The partitions whose bank conflicts the header comment counts (16-bit elements).
struct Bf16Stub {
  unsigned short bits;
};
using MmaLayouts = k02::Mma<Bf16Stub>;
template <OperandMajor Major>
using Load = k02::GmemLoad<Bf16Stub, Major>;
}  // namespace detail

// k02: MMA reads of A 4-way, stores of M/N-contiguous operands 8-way.
static_assert(bank_conflict_ways(detail::MmaLayouts::kPartA<k02::SmemKMajor::a>, 2) == 4);
static_assert(bank_conflict_ways(detail::Load<OperandMajor::mn>::kPartition<k02::SmemKMajor::a>, 2) == 8);
// k03: every access conflict-free.
static_assert(bank_conflict_ways(detail::MmaLayouts::kPartA<SmemPadded::a>, 2) == 1);
static_assert(bank_conflict_ways(detail::MmaLayouts::kPartB<SmemPadded::b>, 2) == 1);
static_assert(bank_conflict_ways(detail::Load<OperandMajor::k>::kPartition<SmemPadded::a>, 2) == 1);
static_assert(bank_conflict_ways(detail::Load<OperandMajor::mn>::kPartition<SmemPadded::a>, 2) == 1);

}  // namespace tessel::gemm_kernels::k03
