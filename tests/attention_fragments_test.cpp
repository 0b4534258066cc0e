// The fused attention steps' index arithmetic (kernels/attention/fragment_map.hpp)
// against the atoms' ownership layouts (atom/layouts_sm80.hpp, layouts_sm90.hpp,
// themselves checked against tests/data/atom_layouts.tsv): where a thread's
// accumulator value sits (the mask, the softmax's rows), and that the values
// P packs are exactly the A fragment of the next MMA (a02's m16n8k16, a03's
// wgmma RS).  No GPU needed: a wrong map here is a wrong attention there.
#include <gtest/gtest.h>

#include "tessel/atom/layouts_sm80.hpp"
#include "tessel/atom/layouts_sm90.hpp"
#include "tessel/kernels/attention/fragment_map.hpp"

using namespace tessel;
using namespace tessel::atom_layouts;
using tessel::attention_kernels::acc_col;
using tessel::attention_kernels::acc_row;
using tessel::attention_kernels::p_value;

namespace {

/// (row, column) of element `offset` of a column-major tile with `rows` rows.
struct RowCol {
  index_t row, col;
  bool operator==(const RowCol&) const = default;
};
RowCol at(index_t offset, index_t rows) { return {offset % rows, offset / rows}; }

}  // namespace

TEST(AttentionFragments, WgmmaAccumulatorValuesSitWhereTheMapSays) {
  for (int n : {64, 128, 256}) {  // the S (keys) and O (d) widths a03 uses
    const Layout c = wgmma_c(n);  // (thread, value) -> offset in the (64, n) tile
    for (int t = 0; t < 128; ++t)
      for (int v = 0; v < n / 2; ++v) {
        const int warp = t / 32, lane = t % 32;
        const RowCol want{16 * warp + acc_row(lane, v), acc_col(lane, v)};
        ASSERT_EQ(at(c(t, v), 64), want) << "N " << n << " thread " << t << " value " << v;
      }
  }
}

TEST(AttentionFragments, PackedWgmmaScoresAreTheRsAFragment) {
  const Layout c = wgmma_c(128), a = wgmma_a;  // A: (thread, value) -> offset in the (64, 16) tile
  for (int t = 0; t < 128; ++t)
    for (int k = 0; k < 8; ++k)  // keys 16 k .. 16 k + 15 of a block of 128
      for (int i = 0; i < 8; ++i) {
        const RowCol s = at(c(t, p_value(k, i)), 64), want = at(a(t, i), 64);
        ASSERT_EQ((RowCol{s.row, s.col - 16 * k}), want) << "thread " << t << " slice " << k << " value " << i;
      }
}

TEST(AttentionFragments, MmaSyncAccumulatorAndAFragment) {
  // a02 keeps s[n-tile][4] flat: value 4 n + e is m16n8 C value e of n-tile n.
  const Layout c = mma_m16n8k16_bf16_c, a = mma_m16n8k16_bf16_a;  // (16,8) and (16,16) tiles
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < 32; ++v) {  // eight n-tiles: a block of 64 keys
      const RowCol e = at(c(lane, v % 4), 16);
      ASSERT_EQ((RowCol{e.row, e.col + 8 * (v / 4)}), (RowCol{acc_row(lane, v), acc_col(lane, v)}))
          << "lane " << lane << " value " << v;
    }
  for (int lane = 0; lane < 32; ++lane)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 8; ++i) {
        const int v = p_value(k, i);
        const RowCol want = at(a(lane, i), 16);
        ASSERT_EQ((RowCol{acc_row(lane, v), acc_col(lane, v) - 16 * k}), want)
            << "lane " << lane << " slice " << k << " value " << i;
      }
}
