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
static_assert(same(plan_k13(16, 8192, 8192, 132), {128, 2}));
static_assert(split_k_for(64, 128, 132) == 2);

// The measured best of docs/heuristics.md (H100, 132 SMs): the plan picks it,
// or names the shape as its known miss.
TEST(GemmPlan, MeasuredChoices) {
  struct Row {
    index_t m, n, k;
    GemmTuning want;
  };
  for (const Row& r : std::vector<Row>{{4096, 4096, 4096, {256, 1}},
                                       {8192, 8192, 8192, {256, 1}},
                                       {6144, 6144, 6144, {256, 1}},
                                       {3072, 3072, 3072, {192, 1}},
                                       {2048, 2048, 2048, {256, 1}},
                                       {2560, 2560, 2560, {256, 1}},
                                       {1536, 1536, 1536, {192, 1}},
                                       {1024, 1024, 1024, {64, 1}},
                                       {512, 512, 512, {64, 1}},
                                       {4096, 6144, 4096, {256, 1}},
                                       {8192, 8192, 1024, {256, 1}},
                                       {8192, 8192, 256, {256, 1}},
                                       {16, 8192, 8192, {128, 2}},
                                       {64, 8192, 8192, {128, 2}},
                                       {32, 4096, 4096, {128, 4}},
                                       {256, 4096, 4096, {64, 1}},
                                       {512, 4096, 4096, {128, 1}},
                                       {200, 14336, 4096, {256, 1}}})
    EXPECT_TRUE(same(plan_k13(r.m, r.n, r.k, 132), r.want))
        << r.m << "x" << r.n << "x" << r.k << ": got " << plan_k13(r.m, r.n, r.k, 132).tile_n << "/"
        << plan_k13(r.m, r.n, r.k, 132).splits;
  EXPECT_TRUE(same(plan_k13(128, 8192, 8192, 132), {64, 1}));
  EXPECT_NEAR(plan_detail::wave_efficiency(288, 132), 288.0 / 396.0, 1e-12);
  EXPECT_EQ(split_k_for(67, 128, 132), 1);  // more than half the SMs busy: no split
  EXPECT_EQ(split_k_for(1, 63, 132), 1);    // K below 4096: no split
  EXPECT_EQ(split_k_for(1, 1000, 132), 4);  // at most 4
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
          ASSERT_TRUE(t.tile_n == 64 || t.tile_n == 128 || t.tile_n == 192 || t.tile_n == 256)
              << m << ' ' << n << ' ' << k;
          const index_t k_tiles = (k + 63) / 64;
          const index_t tiles = ((m + 127) / 128) * ((n + t.tile_n - 1) / t.tile_n);
          ASSERT_GE(t.splits, 1);
          ASSERT_LE(t.splits, 4);
          ASSERT_LE(t.splits, k_tiles);  // no empty split
          if (t.splits > 1) {
            // Split only when the tiles alone fill at most half the SMs, never
            // into more units than SMs, and only a K of 64 k-tiles or more.
            EXPECT_LE(2 * tiles, sms) << m << ' ' << n << ' ' << k << ' ' << sms;
            EXPECT_LE(tiles * t.splits, sms);
            EXPECT_GE(k_tiles, 64);
          }
        }
}

TEST(GemmPlan, ForcedTileWidthIsKept) {
  for (int bn : {64, 128, 192, 256}) {
    EXPECT_EQ(plan_k13(4096, 4096, 4096, 132, bn).tile_n, bn);
    EXPECT_EQ(plan_k13(64, 8192, 8192, 132, bn).tile_n, bn);
  }
}

// Small M streams the weights: one tile row is cut into enough units (narrow
// tiles, then splits of K) that at least half the SMs stream (the decode
// shapes, M <= 128).
TEST(GemmPlan, SmallMFillsHalfTheSMs) {
  for (index_t m : {1, 16, 64, 128})
    for (index_t nk : {4096, 8192}) {
      const GemmTuning t = plan_k13(m, nk, nk, 132);
      const index_t tiles = ((m + 127) / 128) * ((nk + t.tile_n - 1) / t.tile_n);
      EXPECT_GE(tiles * t.splits, 132 / 2) << m << " " << nk;
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
