// tessel::plan_k13 (tessel/gemm_plan.hpp): the heuristic's choices, on the
// CPU, for the rules docs/heuristics.md states and on shapes outside the suite.
#include <gtest/gtest.h>

#include <vector>

#include "tessel/gemm_plan.hpp"

namespace tessel {
namespace {

constexpr bool same(GemmTuning a, GemmTuning b) { return a.tile_n == b.tile_n && a.splits == b.splits; }

// The header's examples, at compile time.
static_assert(same(plan_k13(4096, 4096, 4096, 132), {256, 1}));
static_assert(same(plan_k13(16, 8192, 8192, 132), {256, 4}));

TEST(GemmPlan, HeaderAndDocExamples) {
  EXPECT_TRUE(same(plan_k13(4096, 4096, 4096, 132), {256, 1}));
  EXPECT_TRUE(same(plan_k13(8192, 8192, 8192, 132), {256, 1}));
  // 288 tiles of 128 x 256 fill 0.73 of three waves; 384 of 128 x 192, 0.97.
  EXPECT_TRUE(same(plan_k13(3072, 3072, 3072, 132), {192, 1}));
  // 1024^3: 32 tiles of 128 x 256 and four splits of K fill 128 of 132 SMs.
  EXPECT_TRUE(same(plan_k13(1024, 1024, 1024, 132), {256, 4}));
  static_assert(split_k_for(32, 128, 132) == 4);
  EXPECT_EQ(split_k_for(67, 128, 132), 1);   // more than half the SMs busy: no split
  EXPECT_EQ(split_k_for(1, 8, 132), 2);      // at least 4 k-tiles per split
  EXPECT_EQ(split_k_for(1, 1000, 132), 16);  // at most 16
  EXPECT_NEAR(plan_detail::wave_efficiency(288, 132), 288.0 / 396.0, 1e-12);
}

TEST(GemmPlan, ChoicesStayInRange) {
  const std::vector<index_t> ms{1, 16, 100, 128, 129, 256, 1000, 3072, 4095, 8192, 30000};
  const std::vector<index_t> ns{1, 64, 256, 1000, 4096, 8192, 28672};
  const std::vector<index_t> ks{1, 63, 64, 255, 256, 1024, 4097, 8192, 65536};
  for (int sms : {1, 78, 114, 132, 144})
    for (index_t m : ms)
      for (index_t n : ns)
        for (index_t k : ks) {
          const GemmTuning t = plan_k13(m, n, k, sms);
          ASSERT_TRUE(t.tile_n == 128 || t.tile_n == 192 || t.tile_n == 256) << m << ' ' << n << ' ' << k;
          const index_t k_tiles = (k + 63) / 64;
          const index_t tiles = ((m + 127) / 128) * ((n + t.tile_n - 1) / t.tile_n);
          ASSERT_GE(t.splits, 1);
          ASSERT_LE(t.splits, 16);
          ASSERT_LE(t.splits, k_tiles);  // no empty split
          if (t.splits > 1) {
            // Split only when the tiles alone fill at most half the SMs, never
            // into more units than SMs, and with at least 4 k-tiles per split.
            EXPECT_LE(2 * tiles, sms) << m << ' ' << n << ' ' << k << ' ' << sms;
            EXPECT_LE(tiles * t.splits, sms);
            EXPECT_GE(k_tiles / t.splits, 4);
          }
        }
}

TEST(GemmPlan, ForcedTileWidthIsKept) {
  for (int bn : {128, 192, 256}) {
    EXPECT_EQ(plan_k13(4096, 4096, 4096, 132, bn).tile_n, bn);
    EXPECT_EQ(plan_k13(64, 8192, 8192, 132, bn).tile_n, bn);
  }
}

// Small M streams the weights: a single tile row is split until the units
// cover the SMs (the decode shapes, M <= 256).
TEST(GemmPlan, SmallMSplitsK) {
  for (index_t m : {1, 16, 64, 128, 256}) {
    const GemmTuning t = plan_k13(m, 8192, 8192, 132);
    const index_t tiles = ((m + 127) / 128) * ((8192 + t.tile_n - 1) / t.tile_n);
    EXPECT_GT(t.splits, 1) << m;
    EXPECT_GE(tiles * t.splits, 132 / 2) << m;  // at least half the SMs stream
  }
}

// A wider tile is never chosen when it leaves more SM slots idle and is not
// faster per wave: the score is monotone in the busy share.
TEST(GemmPlan, FullWavesPreferred) {
  // 132 tiles of 128 x 256 (M = 128 * 12, N = 256 * 11): exactly one wave.
  EXPECT_EQ(plan_k13(128 * 12, 256 * 11, 4096, 132).tile_n, 256);
}

}  // namespace
}  // namespace tessel
