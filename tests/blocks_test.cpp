// Host-side logic of the kernels' building blocks (kernels/blocks/): the
// pipeline state's stage/phase walk and the persistent tile scheduler's
// coverage and order.  The GPU side of the pipeline is tests/cuda/pipeline_test.cu.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "tessel/kernels/blocks/pipeline_state.hpp"
#include "tessel/kernels/blocks/tile_scheduler.hpp"

using namespace tessel;
using namespace tessel::blocks;

// The state after i increments is stage i mod S and parity (i / S) mod 2:
// the round's parity, which is the mbarrier phase a consumer waits for.
template <int S>
void walk() {
  PipelineState<S> st;
  for (int i = 0; i < 10 * S + 3; ++i, ++st) {
    ASSERT_EQ(st.index(), i % S) << "S=" << S << " i=" << i;
    ASSERT_EQ(st.phase(), static_cast<std::uint32_t>((i / S) & 1)) << "S=" << S << " i=" << i;
  }
}
TEST(Blocks, PipelineStateWalksTheRing) {
  walk<1>();
  walk<2>();
  walk<3>();
  walk<4>();
  walk<7>();
}

static_assert([] {
  PipelineState<4> st;
  for (int i = 0; i < 5; ++i) ++st;
  return st.index() == 1 && st.phase() == 1;
}());

// Every tile is handed out exactly once over all CTAs, each CTA's tiles come
// in the order of the linear index, and the raster is a bijection.
TEST(Blocks, PersistentSchedulerCoversEveryTileOnce) {
  for (const auto& [tm, tn] :
       std::vector<std::pair<index_t, index_t>>{{1, 1}, {4, 3}, {9, 7}, {32, 16}, {33, 17}, {5, 100}}) {
    for (index_t ctas : {index_t{1}, index_t{3}, index_t{132}, tm * tn, tm * tn + 5}) {
      std::set<std::pair<index_t, index_t>> seen;
      index_t handed = 0;
      for (index_t b = 0; b < ctas; ++b) {
        PersistentScheduler<GroupedRaster<8>> s(tm, tn, b, ctas);
        index_t expected_linear = b;
        for (TileCoord t; s.next(t); expected_linear += ctas) {
          ++handed;
          ASSERT_GE(t.m, 0);
          ASSERT_LT(t.m, tm);
          ASSERT_GE(t.n, 0);
          ASSERT_LT(t.n, tn);
          index_t m = 0, n = 0;
          GroupedRaster<8>::tile_of(expected_linear, tm, tn, m, n);
          ASSERT_EQ(t.m, m);
          ASSERT_EQ(t.n, n);
          ASSERT_TRUE(seen.insert({t.m, t.n}).second) << "tile (" << t.m << "," << t.n << ") twice";
        }
      }
      EXPECT_EQ(handed, tm * tn) << tm << "x" << tn << " tiles over " << ctas << " CTAs";
      EXPECT_EQ(static_cast<index_t>(seen.size()), tm * tn);
    }
  }
}

// The documented order: tiles (4, 3) in groups of 2 tile rows.
TEST(Blocks, GroupedRasterOrder) {
  const std::vector<std::pair<index_t, index_t>> want = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2},
                                                         {2, 0}, {3, 0}, {2, 1}, {3, 1}, {2, 2}, {3, 2}};
  for (index_t b = 0; b < 12; ++b) {
    index_t m = 0, n = 0;
    GroupedRaster<2>::tile_of(b, 4, 3, m, n);
    EXPECT_EQ(std::make_pair(m, n), want[static_cast<std::size_t>(b)]) << b;
  }
  // A short last group (5 rows in groups of 2): the fifth row alone, down its columns.
  index_t m = 0, n = 0;
  GroupedRaster<2>::tile_of(12, 5, 3, m, n);
  EXPECT_EQ(std::make_pair(m, n), std::make_pair(index_t{4}, index_t{0}));
  GroupedRaster<2>::tile_of(14, 5, 3, m, n);
  EXPECT_EQ(std::make_pair(m, n), std::make_pair(index_t{4}, index_t{2}));
}
