// tessel/atom/bank_conflicts.hpp — shared-memory bank conflicts of a
// partition, computed at compile time from its layout.
//
// Shared memory has 32 banks of 4-byte words: word w lives in bank w % 32.
// One warp-wide access of at most 4 bytes per thread is served in as many
// passes ("wavefronts") as the busiest bank has *distinct* words requested;
// threads that read the same word share a pass (broadcast), so two threads
// reading the two halves of one word do not conflict.
//
// A partition (TiledCopy::kPartition<L>, TiledMma::kPartA<L>, ...) is a
// layout (T, V...) -> element offset; the instruction that moves value v
// does so for all threads at once, so warp w's access of value v is the 32
// offsets P(32w + lane, v).
#pragma once

#include "tessel/core/algebra.hpp"

namespace tessel {

/// The largest number of distinct words that one bank serves in one
/// warp-wide access, over every warp and value of partition P (thread mode
/// first, then the values, as partitions are laid out), for elements of
/// `elem_bytes` bytes (1, 2 or 4).  1 means conflict-free; d means the
/// worst access takes d passes.
/// C++ example: for 16-bit elements, P = (32,1):(16,0) (lane t at element
///   16t: words 8t, banks 0, 8, 16, 24 eight times each) gives 8.
constexpr int bank_conflict_ways(const Layout& P, int elem_bytes) {
  // P(t, v) = P(t, 0) + P(0, v) (a layout is linear over its top-level
  // modes): tabulate the thread offsets once and evaluate each value's
  // offset once, on the flat leaves (the thread mode's come first).
  const int thread_leaves = mode(P, 0).shape.nleaf;
  const auto eval = [&P](index_t i, int first, int last) {
    index_t off = 0;
    for (int k = first; k < last; ++k) {
      off += (i % P.shape.val[k]) * P.stride.val[k];
      i /= P.shape.val[k];
    }
    return off;
  };
  const index_t threads = size(mode(P, 0));
  const index_t values = size(P) / threads;
  if (threads > 1024) return -1;  // more threads than a CTA has
  index_t thread_off[1024]{};
  for (index_t t = 0; t < threads; ++t) thread_off[t] = eval(t, 0, thread_leaves);

  int worst = 1;
  index_t words[32][32]{};  // words[b][0..n[b]): the distinct words asked of bank b
  for (index_t v = 0; v < values; ++v) {
    const index_t value_off = eval(v, thread_leaves, P.shape.nleaf);
    for (index_t w = 0; w * 32 < threads; ++w) {
      int n[32]{};
      for (index_t t = w * 32; t < w * 32 + 32 && t < threads; ++t) {
        const index_t word = (thread_off[t] + value_off) * elem_bytes / 4;
        const int b = static_cast<int>(word % 32);
        bool seen = false;
        for (int i = 0; i < n[b]; ++i) seen = seen || words[b][i] == word;
        if (!seen) {
          words[b][n[b]++] = word;
          if (n[b] > worst) worst = n[b];
        }
      }
    }
  }
  return worst;
}

}  // namespace tessel
