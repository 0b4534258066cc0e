// f03 — f02 with a bank-conflict-free shared layout: rows padded by one word.
//
// The kernel is k02's (gemm_smem_fma) on floats; only the shared layouts of
// the (128,16) tiles change, from (128,16):(16,1) to (128,16):(17,1).  (k03
// pads 16-bit rows by two elements, one word; here one float is one word.)
//
// Why one word.  Element (r, k) is then in bank (17r + k) % 32.  17 is odd,
// so r -> 17r % 32 is a bijection on 32 consecutive rows:
//  * the MMA's reads of A (rows m + 16i, m = 0..15) fall in 16 distinct
//    banks: conflict-free (f02: 8-way);
//  * reads of B (2 rows): conflict-free;
//  * stores of an M/N-contiguous operand (32 rows at one k): 32 distinct
//    banks, conflict-free (f02: 16-way);
//  * stores of a K-contiguous operand (2 rows of 16 words): banks 0..15 and
//    17..32, so word 16 of the second row shares bank 0 with the first:
//    2-way, on 2 of 32 words, once per k-tile.  No pad removes it without
//    bringing back a conflict on the reads (a stride of 16 mod 32 would
//    separate the two rows and collide the 16 rows of the A read), and the
//    stores are 8 per thread per k-tile against 256 loads.
// Per k a warp's 16 loads now take 16 passes for 64 FFMAs: shared memory is
// no longer the bound.  The issue slots are: 64 FFMA + 16 LDS + the
// amortized tile loads and barriers, about 75 % FFMA, and load, sync,
// compute, sync leaves the FMA pipes idle while a k-tile loads (f04).  The
// cost of the pad is 1 of every 17 words (8.5 KB per tile pair instead of 8).
#pragma once

#include "tessel/atom/bank_conflicts.hpp"
#include "tessel/kernels/gemm/k02_smem_fma.cuh"

namespace tessel::gemm_kernels::f03 {

using k02::kBK;
using k02::kBM;
using k02::kBN;
using k02::kThreads;

/// Words of padding after each row of 16 floats.
inline constexpr int kPad = 1;

/// The shared-memory layouts of f03: K-major fp32 tiles with padded rows, (128,16):(17,1).
struct SmemPaddedF32 {
  static constexpr Layout a = make_layout(make_shape(kBM, kBK), make_stride(kBK + kPad, 1));
  static constexpr Layout b = make_layout(make_shape(kBN, kBK), make_stride(kBK + kPad, 1));
};

/// The fp32 kernel: k02's, with float A and B and the padded tiles.
template <MajorA MA, MajorB MB>
inline constexpr auto kernel = &k02::gemm_smem_fma<float, MA, MB, SmemPaddedF32>;

namespace detail {
using MmaLayouts = k02::Mma<float>;
template <OperandMajor Major>
using Load = k02::GmemLoad<float, Major>;
}  // namespace detail

// f02 (k02's layout with 4-byte elements): A reads 8-way, M/N-major stores 16-way.
static_assert(bank_conflict_ways(detail::MmaLayouts::kPartA<k02::SmemKMajor::a>, 4) == 8);
static_assert(bank_conflict_ways(detail::MmaLayouts::kPartB<k02::SmemKMajor::b>, 4) == 1);
static_assert(bank_conflict_ways(detail::Load<OperandMajor::k>::kPartition<k02::SmemKMajor::a>, 4) == 1);
static_assert(bank_conflict_ways(detail::Load<OperandMajor::mn>::kPartition<k02::SmemKMajor::a>, 4) == 16);
// f03: the reads and the M/N-major stores conflict-free, the K-major stores 2-way.
static_assert(bank_conflict_ways(detail::MmaLayouts::kPartA<SmemPaddedF32::a>, 4) == 1);
static_assert(bank_conflict_ways(detail::MmaLayouts::kPartB<SmemPaddedF32::b>, 4) == 1);
static_assert(bank_conflict_ways(detail::Load<OperandMajor::mn>::kPartition<SmemPaddedF32::a>, 4) == 1);
static_assert(bank_conflict_ways(detail::Load<OperandMajor::k>::kPartition<SmemPaddedF32::a>, 4) == 2);

}  // namespace tessel::gemm_kernels::f03
