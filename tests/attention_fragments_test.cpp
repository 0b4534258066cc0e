// The fused attention steps' index arithmetic (kernels/attention/fragment_map.hpp)
// against the atoms' ownership layouts (atom/layouts_sm80.hpp, layouts_sm90.hpp,
// themselves checked against tests/data/atom_layouts.tsv): where a thread's
// accumulator value sits (the mask, the softmax's rows), and that the values
// P packs are exactly the A fragment of the next MMA (a02's m16n8k16, a03's
// wgmma RS).  No GPU needed: a wrong map here is a wrong attention there.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

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

/// a06's order is a bijection on the grid; within a section the row blocks
/// never increase (longest first) and the sections follow the pairs in order.
TEST(AttentionOrder, LongestFirstCoversTheGridOnceSectionBySection) {
  using tessel::attention_kernels::CtaWork;
  using tessel::attention_kernels::longest_first;
  static_assert(longest_first(1, 3, 2, 1, 2).m == 2 && longest_first(1, 3, 2, 1, 2).h == 1);
  static_assert(longest_first(4, 3, 2, 1, 2).m == 0 && longest_first(4, 3, 2, 1, 2).h == 0);
  for (int blocks_m : {1, 2, 7, 64})
    for (int heads : {1, 3, 32})
      for (int batch : {1, 2, 5})
        for (int section : {1, 2, 4, 5, 32, heads * batch}) {
          if (section > heads * batch) continue;
          const int total = blocks_m * heads * batch;
          std::vector<int> seen(static_cast<std::size_t>(total), 0);
          int last_m = blocks_m, last_first = -1;
          for (int i = 0; i < total; ++i) {
            const CtaWork w = longest_first(i, blocks_m, heads, batch, section);
            ASSERT_TRUE(w.m >= 0 && w.m < blocks_m && w.h >= 0 && w.h < heads && w.b >= 0 && w.b < batch) << i;
            ++seen[static_cast<std::size_t>(w.m + blocks_m * (w.h + heads * w.b))];
            const int first = i / (blocks_m * section) * section, pair = w.h + heads * w.b;
            ASSERT_TRUE(pair >= first && pair < first + section) << i << ": outside its section";
            if (first != last_first) last_m = blocks_m, last_first = first;
            ASSERT_LE(w.m, last_m) << i << ": a shorter row block before a longer one in a section";
            last_m = w.m;
          }
          for (int c : seen) ASSERT_EQ(c, 1) << blocks_m << "x" << heads << "x" << batch << " section " << section;
        }
}

/// a07's rounds give every place below the tile count to exactly one CTA, and
/// over places of falling work (longest_first under the causal mask in
/// snake_section's sections) the snake keeps the CTAs' sums within one tile's
/// work of each other.
TEST(AttentionOrder, SnakeCoversEveryPlaceOnceAndBalancesFallingWork) {
  using tessel::attention_kernels::longest_first;
  using tessel::attention_kernels::snake_place;
  using tessel::attention_kernels::snake_section;
  static_assert(snake_place(0, 1, 3) == 5 && snake_place(2, 1, 3) == 3 && snake_place(2, 2, 3) == 8);
  static_assert(snake_section(32, 8, 512, 132) == 33 && snake_section(4, 64, 32, 132) == 32);
  for (int grid : {1, 7, 132})
    for (int tiles : {1, 6, 131, 132, 133, 1000, 2048}) {
      if (grid > tiles) continue;
      std::vector<int> seen(static_cast<std::size_t>(tiles), 0);
      for (int c = 0; c < grid; ++c)
        for (int r = 0; r * grid < tiles; ++r) {
          const int place = snake_place(c, r, grid);
          ASSERT_TRUE(place >= r * grid && place < (r + 1) * grid) << c << " " << r;
          if (place < tiles) ++seen[static_cast<std::size_t>(place)];
        }
      for (int n : seen) ASSERT_EQ(n, 1) << grid << " CTAs, " << tiles << " tiles";
    }
  for (int blocks_m : {8, 16, 64})
    for (int heads : {8, 32, 512}) {
      const int tiles = blocks_m * heads, grid = 132;
      // a06's sections (16 MiB of K and V of 128 rows a block at d = 128) rounded to round pairs
      const int section = snake_section((16 << 20) / (blocks_m * 128 * 512), blocks_m, heads, grid);
      std::vector<long> sum(grid, 0);
      for (int c = 0; c < grid; ++c)
        for (int r = 0; r * grid < tiles; ++r)
          if (const int place = snake_place(c, r, grid); place < tiles)
            sum[static_cast<std::size_t>(c)] += longest_first(place, blocks_m, heads, 1, section).m + 1;
      const auto [lo, hi] = std::minmax_element(sum.begin(), sum.end());
      EXPECT_LE(*hi - *lo, blocks_m) << blocks_m << " row blocks, " << heads << " heads";
    }
}
