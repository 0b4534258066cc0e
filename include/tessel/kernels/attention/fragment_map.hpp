// tessel/kernels/attention/fragment_map.hpp — where a thread's accumulator
// values sit, for the fused attention steps (a02 on mma.sync, a03-a06 on
// wgmma), which of them form the A fragment of P V, and which work a CTA
// takes in a06's order.  Plain functions, so
// that a CPU test holds them to the atoms' ownership layouts
// (tests/attention_fragments_test.cpp).
//
// A thread's share of an accumulator of 16 rows a warp (the m16n8 tile, or a
// warp's 16 rows of the m64nN tile) is value v = 4 n + 2 r + c: n-tile n,
// row g + 8 r (g = lane / 4), column 8 n + 2 (lane % 4) + c.  E.g. lane 5,
// value 6: row 1 + 8 = 9, column 8 + 2 + 0 = 10.
#pragma once

#include "tessel/core/config.hpp"

namespace tessel::attention_kernels {

/// Row of accumulator value v of `lane` within its warp's 16 rows.
TESSEL_HD constexpr int acc_row(int lane, int v) { return lane / 4 + 8 * ((v / 2) % 2); }

/// Column of accumulator value v of `lane` (a key of the block, or an element of d).
TESSEL_HD constexpr int acc_col(int lane, int v) { return 8 * (v / 4) + 2 * (lane % 4) + v % 2; }

/// A CTA's work under a06's longest-first order: row block m of head h of
/// sequence b.
struct CtaWork {
  int m, h, b;
};

/// The work of the CTA at place `launched` of a grid of blocks_m x heads x
/// batch: sections of `section` (head, sequence) pairs in turn, each
/// section's row blocks from the last to the first and its pairs in turn
/// within a row block (a bijection on the grid).  E.g. blocks_m 3, heads 2,
/// batch 1, section 2: places 0..5 take (m, h) = (2,0) (2,1) (1,0) (1,1)
/// (0,0) (0,1).
TESSEL_HD constexpr CtaWork longest_first(int launched, int blocks_m, int heads, int batch, int section) {
  const int first = launched / (blocks_m * section) * section;  // the section's first pair
  const int pairs = heads * batch - first < section ? heads * batch - first : section;
  const int at = launched % (blocks_m * section), pair = first + at % pairs;
  return {blocks_m - 1 - at / pairs, pair % heads, pair / heads};
}

/// The place (in longest_first's order) of round r of persistent CTA c of
/// `grid`: rounds alternate direction (a snake), so that over places of
/// falling work each CTA's sum stays within about one tile of the others'.
/// E.g. grid 3: CTA 0 takes places 0, 5, 6, 11; CTA 2 takes 2, 3, 8, 9.
TESSEL_HD constexpr int snake_place(int c, int r, int grid) { return r * grid + (r % 2 == 0 ? c : grid - 1 - c); }

/// a07's section under the causal mask: `section` (a06's, sized for the L2)
/// rounded down to whole pairs of snake rounds (a multiple of 2 grid tiles),
/// at least one such pair and at most every pair: each section's tiles, longest
/// first, then fill whole round pairs, which the snake balances.
/// E.g. section 32, blocks_m 8, 512 pairs, grid 132: 33 pairs (264 tiles).
TESSEL_HD constexpr int snake_section(int section, int blocks_m, int pairs, int grid) {
  int a = blocks_m, b = 2 * grid;
  while (b != 0) {  // a = gcd(blocks_m, 2 grid)
    const int t = a % b;
    a = b;
    b = t;
  }
  const int q = 2 * grid / a, s = section / q * q;
  const int r = s < q ? q : s;
  return r < pairs ? r : pairs;
}

/// The accumulator value that is value i (0..7) of the A fragment of keys
/// 16 k .. 16 k + 15 (mma m16n8k16 and wgmma RS alike): 8 k + i, so P packs
/// values (8 k + 2 j, 8 k + 2 j + 1) into A register j.
TESSEL_HD constexpr int p_value(int k, int i) { return 8 * k + i; }

}  // namespace tessel::attention_kernels
