// tessel::plan_k13 (tessel/gemm_plan.hpp): the heuristic's choices, on the
// CPU, for the rules docs/heuristics.md states and on shapes outside the suite.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tessel/gemm_model.hpp"
#include "tessel/gemm_plan.hpp"
#include "tessel/gemm_tune.hpp"

namespace tessel {
namespace {

constexpr bool same(GemmTuning a, GemmTuning b) {
  return a.tile_n == b.tile_n && a.splits == b.splits && a.swap_ab == b.swap_ab && a.tile_m == b.tile_m;
}
constexpr SwapAB kOff = SwapAB::off, kOn = SwapAB::on;

// The header's examples, at compile time.
static_assert(same(plan_k13(4096, 4096, 4096, 132), {256, 1, kOff}));
static_assert(same(plan_k13(16, 8192, 8192, 132), {16, 1, kOn, 8, GemmJit::off, 64}));
static_assert(same(plan_k13(16, 4096, 4096, 132), {16, 4, kOn}));
static_assert(planned_tile_m({}, {16, 1, kOn, 8, GemmJit::off, 64}) == 64);
static_assert(planned_tile_m({16, 0, SwapAB::plan}, {16, 1, kOn, 8, GemmJit::off, 64}) == 0);  // a forced width
static_assert(planned_tile_m({0, 0, SwapAB::plan, 0, GemmJit::off, 128}, {16, 1, kOn, 8, GemmJit::off, 64}) == 128);
static_assert(split_k_for(64, 128, 132) == 2);
// Rule 4 alone: the swapped problem's tile is 128 (N) x {16, 32, 64} (M).
static_assert(swap_ab_for(64, 128) && !swap_ab_for(65, 8192) && !swap_ab_for(16, 127));
static_assert(swapped_tile_for(1) == 16 && swapped_tile_for(17) == 32 && swapped_tile_for(33) == 64);

// Rule 1 where A's rows straddle 128-byte lines (lda a multiple of 8, not of
// 64): 128 x 128, not 128 x 64 (1000^3: 0.84 of cuBLASLt against 0.70).
static_assert(same(plan_k13(1000, 1000, 1000, 132, 0, SwapAB::plan, false), {128, 1, kOff}));
static_assert(same(plan_k13(1024, 1024, 1000, 132, 0, SwapAB::plan, false), {128, 1, kOff}));
static_assert(same(plan_k13(1000, 1000, 1024, 132, 0, SwapAB::plan, true),
                   {128, 1, kOff, 8, GemmJit::off, 64}));  // rule 1b
// Rule 1b needs B's rows whole lines too; else rule 1's 128 x 64.
static_assert(same(plan_k13(1000, 1000, 1024, 132, 0, SwapAB::plan, true, false, false), {64, 1, kOff}));
static_assert(rows_whole_lines(1024) && !rows_whole_lines(1000) && rows_whole_lines(999) && rows_whole_lines(64));
// With a fused epilogue rule 1 keeps 128 x 64 (the one-warpgroup tiles have no fused instance).
static_assert(same(plan_k13(1024, 1024, 1024, 132, 0, SwapAB::plan, true, true), {64, 1, kOff}));
// k14's tile: the caller's, else the unswapped plan's (rule 1b's 64 x 128 at 1024^3).
static_assert(same(k14_tile(1024, 1024, 1024, 132, {}), {128, 0, SwapAB::plan, 0, GemmJit::off, 64}));
static_assert(same(k14_tile(1024, 1024, 1024, 132, {64, 0, SwapAB::plan}), {64, 0, SwapAB::plan}));
static_assert(same(k14_tile(4096, 4096, 4096, 132, {0, 0, SwapAB::plan, 0, GemmJit::off, 64}),
                   {128, 0, SwapAB::plan, 0, GemmJit::off, 64}));
static_assert(k14_tile(4096, 4096, 4096, 132, {}).tile_n == 256 && k14_tile(4096, 4096, 4096, 132, {}).tile_m == 0);
// Larger grids are rule 2's, whatever A's rows.
static_assert(same(plan_k13(4000, 4000, 4000, 132, 0, SwapAB::plan, false), plan_k13(4000, 4000, 4000, 132)));

// The measured best of docs/heuristics.md (H100, 132 SMs): the plan picks it,
// or names the shape as its known miss.
TEST(GemmPlan, MeasuredChoices) {
  struct Row {
    index_t m, n, k;
    GemmTuning want;
  };
  for (const Row& r : std::vector<Row>{{4096, 4096, 4096, {256, 1, kOff}},
                                       {8192, 8192, 8192, {256, 1, kOff}},
                                       {6144, 6144, 6144, {256, 1, kOff}},
                                       {3072, 3072, 3072, {192, 1, kOff}},
                                       {2048, 2048, 2048, {256, 1, kOff}},
                                       {2560, 2560, 2560, {256, 1, kOff}},
                                       {1536, 1536, 1536, {192, 1, kOff}},
                                       {1024, 1024, 1024, {128, 1, kOff, 8, GemmJit::off, 64}},  // rule 1b: 64 x 128
                                       {512, 512, 512, {128, 1, kOff, 8, GemmJit::off, 64}},
                                       {4096, 6144, 4096, {256, 1, kOff}},
                                       {8192, 8192, 1024, {256, 1, kOff}},
                                       {8192, 8192, 256, {256, 1, kOff}},
                                       // Rule 4's swaps; at N = 8192 rule 4b's unsplit 64-row
                                       // tiles (H100: 0.995 and 0.962 against 0.943 and
                                       // 0.936 with 128-row tiles).
                                       {16, 8192, 8192, {16, 1, kOn, 8, GemmJit::off, 64}},
                                       {64, 8192, 8192, {64, 1, kOn, 8, GemmJit::off, 64}},
                                       {32, 4096, 4096, {32, 4, kOn}},
                                       {256, 4096, 4096, {128, 1, kOff, 8, GemmJit::off, 64}},
                                       {512, 4096, 4096, {128, 1, kOff}},
                                       {200, 14336, 4096, {256, 1, kOff}}})
    EXPECT_TRUE(same(plan_k13(r.m, r.n, r.k, 132), r.want))
        << r.m << "x" << r.n << "x" << r.k << ": got " << plan_k13(r.m, r.n, r.k, 132).tile_n << "/"
        << plan_k13(r.m, r.n, r.k, 132).splits;
  EXPECT_TRUE(same(plan_k13(128, 8192, 8192, 132), {128, 1, kOff, 8, GemmJit::off, 64}));
  // Rule 3b: rule 1b's 64 x 128 tile at M <= 128 is not split from 7/15 of
  // the SMs on (62 tiles of 132); below that and above M = 128, rule 3's
  // splits (measured on an H100 at M = 96 and 128, N = 2048..4096).
  EXPECT_TRUE(same(plan_k13(128, 4096, 8192, 132), {128, 1, kOff, 8, GemmJit::off, 64}));  // 64 tiles
  EXPECT_TRUE(same(plan_k13(96, 4096, 8192, 132), {128, 1, kOff, 8, GemmJit::off, 64}));
  EXPECT_TRUE(same(plan_k13(128, 4096, 4096, 132), {128, 1, kOff, 8, GemmJit::off, 64}));
  EXPECT_TRUE(same(plan_k13(128, 3072, 8192, 132), {128, 2, kOff, 8, GemmJit::off, 64}));  // 48 tiles
  EXPECT_TRUE(same(plan_k13(128, 2560, 8192, 132), {128, 3, kOff, 8, GemmJit::off, 64}));
  EXPECT_TRUE(same(plan_k13(256, 2048, 8192, 132), {128, 2, kOff, 8, GemmJit::off, 64}));  // M = 256: 1.14 split
  EXPECT_EQ(plan_k13(128, 3968, 8192, 132).splits, 1);  // 31 tile columns, 62 tiles: 15 * 62 >= 7 * 132
  EXPECT_EQ(plan_k13(128, 3840, 8192, 132).splits, 2);  // 30 columns, 60 tiles
  EXPECT_EQ(plan_k13(128, 3648, 8192, 132).splits, 2);  // 58 tiles: measured 0.87 split, 0.85 unsplit
  EXPECT_NEAR(plan_detail::wave_efficiency(288, 132), 288.0 / 396.0, 1e-12);
  EXPECT_EQ(split_k_unless_filled(64, 128, 132, 7, 15), 1);  // rule 3b's 7/15 of 132: 62 tiles
  EXPECT_EQ(split_k_unless_filled(56, 128, 132, 7, 15), 2);
  EXPECT_EQ(split_k_unless_filled(33, 128, 132, 1, 4), 1);  // rule 4's quarter
  EXPECT_EQ(split_k_unless_filled(32, 128, 132, 1, 4), 4);
  EXPECT_EQ(split_k_for(67, 128, 132), 1);  // more than half the SMs busy: no split
  EXPECT_EQ(split_k_for(1, 63, 132), 1);    // K below 4096: no split
  EXPECT_EQ(split_k_for(1, 1000, 132), 4);  // at most 4
}

// Rule 9: the fp32 step by how full the 128 x 256 tile's waves are, and
// whether f11 can share the tiles of a partial wave (measured choices, H100).
TEST(GemmPlan, Fp32Step) {
  // The last wave partial: f11 shares it (both A layouts).
  EXPECT_EQ(fp32_step_for(4096, 4096, 4096, 132), GemmImpl::f11_stream_k);  // 512 tiles: last wave 116 of 132
  EXPECT_EQ(fp32_step_for(8192, 8192, 8192, 132), GemmImpl::f11_stream_k);  // 2048 tiles: last wave 68
  EXPECT_EQ(fp32_step_for(3072, 3072, 3072, 132), GemmImpl::f11_stream_k);  // 288 tiles: 73 %
  EXPECT_EQ(fp32_step_for(1536, 1536, 1536, 132), GemmImpl::f11_stream_k);  // 72 tiles: 55 %
  EXPECT_EQ(fp32_step_for(1024, 1024, 1024, 132), GemmImpl::f11_stream_k);  // 32 tiles x 64 k-tiles
  // Whole waves, or the last one at least 95 % full: f11 would share nothing; f10.
  EXPECT_EQ(fp32_step_for(2048, 2048, 2048, 132), GemmImpl::f10_tma_loads);  // 128 tiles: 97 %
  EXPECT_EQ(fp32_step_for(512, 8192, 1024, 132), GemmImpl::f10_tma_loads);   // 128 tiles
  EXPECT_EQ(fp32_step_for(4224, 4096, 4096, 132), GemmImpl::f10_tma_loads);  // 528 tiles: 4 whole waves
  EXPECT_EQ(fp32_step_for(1024, 1024, 1024, 16), GemmImpl::f10_tma_loads);   // 32 tiles on 16 SMs: 2 whole waves
  EXPECT_EQ(fp32_step_for(1024, 1024, 1024, 0), GemmImpl::f10_tma_loads);    // no device to ask
  // Not f10's TMA kernel: f10 (its f08 path) where waves are 90 % full, else f07.
  EXPECT_EQ(fp32_step_for(8192, 8192, 8192, 132, false), GemmImpl::f10_tma_loads);
  EXPECT_EQ(fp32_step_for(3072, 3072, 3072, 132, false), GemmImpl::f07_two_ctas_per_sm);
  // Not shareable (32 x 4 k-tiles < 8 per SM): f07.
  EXPECT_EQ(fp32_step_for(1024, 1024, 64, 132), GemmImpl::f07_two_ctas_per_sm);
  EXPECT_EQ(fp32_step_for(256, 256, 256, 132), GemmImpl::f07_two_ctas_per_sm);
  EXPECT_EQ(fp32_step_for(1, 1, 1, 132), GemmImpl::f07_two_ctas_per_sm);
  // An operand to copy (A K-major: copy_a; B K-major: copy_b): f12 where the
  // copy pays (A's: N >= 768 and 2^32 flops; B's: M >= 192) and f11 or f10 would run.
  EXPECT_EQ(fp32_step_for(4096, 4096, 4096, 132, true, true), GemmImpl::f12_operand_copies);
  EXPECT_EQ(fp32_step_for(8192, 8192, 8192, 132, false, false, true), GemmImpl::f12_operand_copies);
  EXPECT_EQ(fp32_step_for(2048, 2048, 2048, 132, false, true, true), GemmImpl::f12_operand_copies);  // full wave
  EXPECT_EQ(fp32_step_for(3072, 3072, 3072, 132, true, true), GemmImpl::f12_operand_copies);         // shares
  EXPECT_EQ(fp32_step_for(1536, 1536, 1536, 132, true, true), GemmImpl::f12_operand_copies);         // 7 GFLOP
  EXPECT_EQ(fp32_step_for(6144, 1024, 2048, 132, true, true), GemmImpl::f12_operand_copies);         // N = 1024
  EXPECT_EQ(fp32_step_for(1024, 1024, 1024, 132, true, true), GemmImpl::f11_stream_k);               // A's: 2 GFLOP
  EXPECT_EQ(fp32_step_for(8192, 512, 8192, 132, true, true), GemmImpl::f10_tma_loads);  // A's: N = 512 (128 tiles: f10)
  EXPECT_EQ(fp32_step_for(1000, 1000, 8192, 132, true, true), GemmImpl::f12_operand_copies);          // 16 GFLOP
  EXPECT_EQ(fp32_step_for(1000, 1000, 8192, 132, false, false, true), GemmImpl::f12_operand_copies);  // B's: M = 1000
  EXPECT_EQ(fp32_step_for(1024, 1024, 1024, 132, false, false, true), GemmImpl::f12_operand_copies);  // B's: M = 1024
  EXPECT_EQ(fp32_step_for(128, 8192, 8192, 132, false, false, true),
            GemmImpl::f07_two_ctas_per_sm);  // B's: M = 128: f07
  EXPECT_EQ(fp32_step_for(200, 6000, 3000, 132, false, false, true), GemmImpl::f12_operand_copies);  // B's: M = 200
  EXPECT_EQ(fp32_step_for(256, 256, 256, 132, true, true), GemmImpl::f07_two_ctas_per_sm);  // too small to share
}

// f11's split (stream_k_split): the documented examples, then its promises
// on a sweep of grids: the data-parallel tiles are whole waves, the shared
// ones the remainder (with the last full wave only where the remainder alone
// would give slices too short), every slice at least kMinSliceKTiles k-tiles
// and at most one CTA per SM, and the slices (f11_stream_k.cuh's begin(c))
// cover every shared k-tile once, with sizes differing by at most one.
TEST(GemmPlan, StreamKSplit) {
  EXPECT_EQ(stream_k_split(512, 256, 132), (StreamKSplit{396, 116, 132}));   // 4096^3
  EXPECT_EQ(stream_k_split(528, 256, 132), (StreamKSplit{528, 0, 0}));       // whole waves
  EXPECT_EQ(stream_k_split(2048, 512, 132), (StreamKSplit{1980, 68, 132}));  // 8192^3
  EXPECT_EQ(stream_k_split(263, 256, 132), (StreamKSplit{263, 0, 0}));       // last wave 131/132 full: not worth it
  EXPECT_EQ(stream_k_split(32, 63, 132), (StreamKSplit{0, 32, 132}));        // 1000^3: every tile shared
  EXPECT_EQ(stream_k_split(133, 16, 132), (StreamKSplit{0, 133, 132}));      // 1 tile left: the last wave shared too
  EXPECT_EQ(stream_k_split(3, 3, 132), (StreamKSplit{3, 0, 0}));             // slices too short
  EXPECT_EQ(stream_k_split(100, 100, 0), (StreamKSplit{100, 0, 0}));         // no SM count
  for (int sms : {1, 7, 78, 132, 144})
    for (index_t tiles : {1, 2, 5, 77, 131, 133, 200, 264, 300, 1000, 2048, 4099})
      for (index_t k_tiles : {1, 2, 7, 8, 64, 65, 513}) {
        const StreamKSplit sp = stream_k_split(tiles, k_tiles, sms);
        ASSERT_EQ(sp.dp_tiles + sp.sk_tiles, tiles);
        if (sp.sk_ctas == 0) {
          ASSERT_EQ(sp.sk_tiles, 0);
          continue;
        }
        ASSERT_EQ(sp.sk_ctas, sms);
        ASSERT_EQ(sp.dp_tiles % sms, 0);
        ASSERT_EQ(sp.sk_tiles % sms, tiles % sms);
        ASSERT_LT(sp.sk_tiles, 2 * sms) << tiles;
        if (sp.sk_tiles > sms) {  // the fallback only
          ASSERT_LT((tiles % sms) * k_tiles, kMinSliceKTiles * sms) << tiles;
        }
        ASSERT_NE(tiles % sms, 0);
        const index_t iters = sp.sk_tiles * k_tiles;
        index_t covered = 0, prev_end = 0;
        for (int c = 0; c < sp.sk_ctas; ++c) {
          const index_t b = iters * c / sp.sk_ctas, e = iters * (c + 1) / sp.sk_ctas;
          ASSERT_EQ(b, prev_end);
          ASSERT_GE(e - b, kMinSliceKTiles) << tiles << " " << k_tiles << " " << sms;
          ASSERT_LE(e - b, iters / sp.sk_ctas + 1);
          covered += e - b;
          prev_end = e;
        }
        ASSERT_EQ(covered, iters);
      }
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
          const bool swapped = t.swap_ab == SwapAB::on;
          ASSERT_EQ(swapped, m <= 64 && n >= 128) << m << ' ' << n << ' ' << k;
          if (swapped)
            ASSERT_TRUE(t.tile_n == 16 || t.tile_n == 32 || t.tile_n == 64) << m << ' ' << n << ' ' << k;
          else
            ASSERT_TRUE(t.tile_n == 64 || t.tile_n == 128 || t.tile_n == 192 || t.tile_n == 256)
                << m << ' ' << n << ' ' << k;
          const index_t k_tiles = (k + 63) / 64;
          // The kernel's tiles: (N, M) for a swapped problem.
          const index_t rows = swapped ? n : m, cols = swapped ? m : n;
          const index_t tiles = ((rows + 127) / 128) * ((cols + t.tile_n - 1) / t.tile_n);
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
  // With the plan's swap, a forced 64..256 keeps a small M unswapped (the
  // widths' meaning before the swap); 16 and 32, only the swapped kernel's,
  // swap a large one.
  EXPECT_TRUE(same(plan_k13(16, 8192, 8192, 132, 128), {128, 2, kOff}));
  EXPECT_TRUE(same(plan_k13(16, 8192, 8192, 132, 64), {64, 1, kOff}));
  EXPECT_TRUE(same(plan_k13(16, 8192, 8192, 132, 64, kOn), {64, 1, kOn}));  // 64 tiles of 64 wide: no split
  EXPECT_TRUE(same(plan_k13(64, 4096, 4096, 132), {64, 4, kOn}));           // 32 tiles: rule 3's four
  EXPECT_TRUE(same(plan_k13(4096, 4096, 4096, 132, 64), {64, 1, kOff}));
  EXPECT_TRUE(same(plan_k13(4096, 4096, 4096, 132, 16), {16, 1, kOn}));
}

// Rule 5: k14 for short K (4..16 k-tiles) on grids of at least 8 waves of
// unsplit, unswapped 128 x 256 tiles.
TEST(GemmPlan, ShortKClusters) {
  const auto k14 = [](index_t m, index_t n, index_t k) { return k14_for(m, n, k, 132, plan_k13(m, n, k, 132)); };
  EXPECT_TRUE(k14(8192, 8192, 256));
  EXPECT_TRUE(k14(16384, 8192, 256));
  EXPECT_TRUE(k14(8192, 8192, 512));
  EXPECT_TRUE(k14(8192, 8192, 1024));
  EXPECT_FALSE(k14(4096, 4096, 256));    // 512 tiles: fewer than 8 waves
  EXPECT_FALSE(k14(16384, 16384, 128));  // 2 k-tiles
  EXPECT_FALSE(k14(8192, 8192, 2048));   // 32 k-tiles: k13 (a tie from K = 4096 up; 2048 unmeasured)
  EXPECT_FALSE(k14(8192, 8192, 8192));
  EXPECT_FALSE(k14(16, 8192, 256));                             // swapped
  EXPECT_FALSE(k14_for(8192, 8192, 256, 132, {192, 1, kOff}));  // not 128 x 256
  EXPECT_FALSE(k14_for(8192, 8192, 256, 132, {256, 2, kOff}));  // split
}
static_assert(k14_for(8192, 8192, 256, 132, {256, 1, SwapAB::off}));

// Rule 10: k15 (pingpong) where its 128 x 128 tiles fill >= 90 % of 2 x SMs
// slots over their waves, at most 2 x 10^12 flops, beta = 0, unsplit and
// unswapped: the suite's measured winners and losers (docs/heuristics.md).
TEST(GemmPlan, PingpongRule) {
  const auto k15 = [](index_t m, index_t n, index_t k, float beta = 0.0f) {
    return k15_for(m, n, k, 132, plan_k13(m, n, k, 132), beta);
  };
  EXPECT_TRUE(k15(2048, 2048, 2048));         // 256 tiles on 264 slots: 0.97
  EXPECT_TRUE(k15(4096, 4096, 4096));         // 1024 on 4 x 264: 0.97
  EXPECT_TRUE(k15(6144, 6144, 6144));         // 4.6 x 10^11 flops
  EXPECT_TRUE(k15(8192, 8192, 8192));         // 1.1 x 10^12
  EXPECT_TRUE(k15(4096, 14336, 4096));        // 3584 tiles: 0.97
  EXPECT_TRUE(k15(8192, 8192, 256));          // before rule 5 (k14)
  EXPECT_TRUE(k15(4095, 4095, 4095));         // the padded copies: still 1024 tiles
  EXPECT_FALSE(k15(4096, 4096, 4096, 1.0f));  // C: k15 reads none
  EXPECT_FALSE(k15(3072, 3072, 3072));        // 576 tiles fill 0.73 of 3 x 264
  EXPECT_FALSE(k15(4097, 4097, 4097));        // 1089 tiles fill 0.82 of 5 x 264
  EXPECT_FALSE(k15(1024, 1024, 1024));        // 64 tiles
  EXPECT_FALSE(k15(8192, 28672, 8192));       // 3.9 x 10^12 flops: the power cap
  EXPECT_FALSE(k15(8192, 8192, 28672));
  EXPECT_FALSE(k15(16384, 16384, 16384));
  EXPECT_FALSE(k15(16, 8192, 8192));                                   // swapped and split (rule 4)
  EXPECT_FALSE(k15(128, 8192, 8192));                                  // 64 tiles
  EXPECT_FALSE(k15_for(4096, 4096, 4096, 132, {256, 2, kOff}, 0.0f));  // split
}
static_assert(k15_for(4096, 4096, 4096, 132, {256, 1, SwapAB::off}, 0.0f));

// Rule 10b: the GEMM (plain or fused) stays k13's where k15, run alone, meets the
// power cap (more than 4 x 10^10 flops with K > 1024; each kernel alone
// on an H100); below it, and at short K, k15 keeps rule 10.
TEST(GemmPlan, PingpongPowerCapRule) {
  EXPECT_TRUE(k15_meets_cap(4096, 4096, 4096));    // k15 0.939 at 1574 MHz, k13 1.000 at 1625
  EXPECT_TRUE(k15_meets_cap(4096, 4096, 2048));    // 6.9 x 10^10: 0.986 / 0.998
  EXPECT_TRUE(k15_meets_cap(2048, 2048, 8192));    // 0.930 / 1.000
  EXPECT_TRUE(k15_meets_cap(4096, 14336, 4096));   // 0.952 / 0.983
  EXPECT_TRUE(k15_meets_cap(8192, 8192, 8192));    // 0.951 / 0.977
  EXPECT_FALSE(k15_meets_cap(2048, 2048, 2048));   // 1.7 x 10^10, 1980 MHz: 1.008 / 0.996
  EXPECT_FALSE(k15_meets_cap(4096, 4096, 1024));   // K = 1024, 1967 MHz: 0.999 / 0.994
  EXPECT_FALSE(k15_meets_cap(8192, 8192, 256));    // skinny K: the epilogue's share, not the cap
  EXPECT_FALSE(k15_meets_cap(16384, 16384, 128));  // 6.9 x 10^10 flops at K = 128
  // The rule only narrows rule 10: where k15_for says no, the cap changes nothing.
  const auto k15_alone = [](index_t m, index_t n, index_t k) {
    return k15_for(m, n, k, 132, plan_k13(m, n, k, 132), 0.0f) && !k15_meets_cap(m, n, k);
  };
  EXPECT_TRUE(k15_alone(2048, 2048, 2048));
  EXPECT_TRUE(k15_alone(8192, 8192, 256));
  EXPECT_FALSE(k15_alone(4096, 4096, 4096));
  EXPECT_FALSE(k15_alone(3072, 3072, 3072));  // rule 10 already said no (ragged waves)
}
static_assert(k15_meets_cap(4096, 4096, 4096) && !k15_meets_cap(8192, 8192, 256));

// Rule 12: where the plan gives one wave of 128 x 128 tiles, k15 runs it
// (beta = 0), whether or not A's rows are whole lines.
TEST(GemmPlan, OneWaveRule) {
  const auto in = [](index_t m, index_t n, index_t k, index_t lda, float beta = 0.0f) {
    const bool whole = lda % 8 != 0 || lda % 64 == 0;
    return one_wave_for(m, n, 132, plan_k13(m, n, k, 132, 0, SwapAB::plan, whole), beta);
  };
  EXPECT_TRUE(in(1000, 1000, 1000, 1000));         // 64 tiles; rule 1 kept 128 x 128 (A rows not whole lines)
  EXPECT_TRUE(in(1000, 2000, 1000, 1000));         // 128 tiles
  EXPECT_TRUE(in(200, 1000, 2000, 2000));          // 16 tiles
  EXPECT_TRUE(in(2048, 1024, 1024, 1024));         // 128 tiles of whole lines: rule 1's 128 x 128
  EXPECT_TRUE(in(1408, 1536, 2048, 2048));         // 132 tiles: one full wave
  EXPECT_TRUE(in(1000, 1000, 8008, 8008));         // rule 3's split plan: the model weighs it too
  EXPECT_FALSE(in(1000, 1000, 1000, 1000, 1.0f));  // C: k15 reads none, the model was measured without
  EXPECT_FALSE(in(1024, 1024, 1024, 1024));        // 64 tiles of whole lines: rule 1's 128 x 64 stays
  EXPECT_FALSE(in(1000, 1000, 1000, 1001));        // lda % 8 != 0: the padded copy's whole lines, 128 x 64
  EXPECT_FALSE(in(2000, 2000, 2000, 2000));        // 256 tiles: rule 2's grid
  EXPECT_FALSE(in(1536, 1536, 1536, 1536));        // 144 tiles: more than a wave
  EXPECT_FALSE(in(16, 1000, 1000, 1000));          // swapped (rule 4)
}
static_assert(one_wave_for(1000, 1000, 132, {128, 1, SwapAB::off}, 0.0f));
static_assert(!one_wave_for(1000, 1000, 132, {128, 1, SwapAB::off, 8, GemmJit::off, 64}, 0.0f));

// Rule 12's model against what was measured on one wave (H200, same run, k15 against the model's choice): the
// wider tile split where the grid's operand bytes hold 128 x 128 back, k15 where the wider tiles lost or nothing
// timed ran faster.
static_assert(one_wave_plan(400, 2304, 13800, 132, 1) == TailPlan{256, 3});  // 1.49x k15's speed
static_assert(one_wave_plan(759, 1920, 14424, 132, 1) == TailPlan{192, 2});  // 1.16x
static_assert(one_wave_plan(5408, 384, 5568, 132, 1) == TailPlan{128, 1});   // 128 x 192: 0.77x
static_assert(one_wave_plan(440, 2880, 4160, 132, 1) == TailPlan{128, 1});   // tuned: nothing faster
static_assert(one_wave_plan(300, 3520, 6080, 132, 1) == TailPlan{128, 1});   // tuned: nothing faster
static_assert(one_wave_plan(448, 4160, 5120, 132, 1) == TailPlan{128, 1});   // k15 0.996 of cuBLASLt
TEST(GemmModel, OneWaveTimeFollowsTheBoundThatHolds) {
  // 44 tiles of 448 x 1296: the tensor cores bind (~310 ns a k-step, 229 k-steps); split 4 ways L2 does.
  const double mma = model_family({GemmImpl::k13_wgmma_in_flight, 128, 128, 1, false})->mma_ns;
  EXPECT_NEAR(one_wave_time(448, 1296, 14624, 128, 1), 229 * mma, 1.0);
  const double bytes = 4.0 * (11 * 448 + 4 * 1296) * 128.0;
  EXPECT_NEAR(one_wave_time(448, 1296, 14624, 128, 4),
              58 * (bytes / kOneWaveCost.l2_bytes_per_ns) + (4 + 3.5 * 4) * mma, 1.0);
  // No candidate leaves the one wave.
  for (index_t n : {1024, 2048, 4096, 8192})
    for (index_t m : {256, 640, 1024}) {
      if (plan_detail::tile_count(m, n) > 132) continue;
      const TailPlan p = one_wave_plan(m, n, 8192, 132, 1);
      EXPECT_LE(ceil_div(m, index_t{128}) * ceil_div(n, index_t{p.tile_n}) * p.splits, 132) << m << "x" << n;
    }
}

// Rule 13: where B's rows straddle lines and the 64 x 128 tiles' pairs fit
// one wave of clusters (with two to spare), k14 runs them, with or without
// C; every row measured for the rule, and the measured misses on each side.
TEST(GemmPlan, StraddlingBClustersRule) {
  // B:n, as the suite: lda = K, ldb = N.
  const auto k14 = [](index_t m, index_t n, index_t k) {
    const bool a_whole = rows_whole_lines(k), b_whole = rows_whole_lines(n);
    return k14_straddle_for(m, n, 132, plan_k13(m, n, k, 132, 0, SwapAB::plan, a_whole, false, b_whole), b_whole);
  };
  EXPECT_TRUE(k14(1000, 1000, 1000));   // 64 pairs: 0.914-0.934 against k15's 0.889-0.896
  EXPECT_TRUE(k14(1000, 1000, 4000));   // 0.903 against 0.852
  EXPECT_TRUE(k14(1000, 1000, 8000));   // A's rows whole lines: 0.905 against k13's 0.712
  EXPECT_TRUE(k14(1024, 1000, 1024));   // only B's straddle: 0.971 against 0.839
  EXPECT_TRUE(k14(800, 1000, 1000));    // 56 pairs: 0.932 against 0.839
  EXPECT_TRUE(k14(520, 1000, 1000));    // 40 pairs: 0.849 against 0.70
  EXPECT_TRUE(k14(200, 1000, 2000));    // 16 pairs: 0.873 against 0.579
  EXPECT_TRUE(k14(1000, 1000, 520));    // 0.920 against 0.886
  EXPECT_TRUE(k14(1016, 1016, 1016));   // 0.887 against 0.884
  EXPECT_FALSE(k14(1024, 1024, 1000));  // only A's straddle: k15 0.947 against 0.909
  EXPECT_FALSE(k14(1000, 2000, 1000));  // 128 pairs: k15 0.849 against 0.750
  EXPECT_FALSE(k14(1088, 1000, 1000));  // 17 tile rows: 72 pairs, past 66 - 2
  EXPECT_FALSE(k14(1024, 1024, 1024));  // whole lines: rule 1b's k13 64 x 128
  EXPECT_FALSE(k14(1000, 1001, 1000));  // ldb % 8 != 0: the padded copy's rows are whole lines
  EXPECT_FALSE(k14(16, 1000, 1000));    // swapped (rule 4)
  EXPECT_FALSE(k14(64, 120, 1000));     // M <= 64
  // The rules split K there (few tiles, long K), where the unsplit pairs lost to them (docs/heuristics.md, rule 13).
  EXPECT_FALSE(k14(640, 600, 13056));   // 128 x 64 in 2
  EXPECT_FALSE(k14(1016, 616, 13592));  // 128 x 128 in 3
  EXPECT_FALSE(k14(448, 1296, 14624));  // 128 x 128 in 3
}
static_assert(k14_straddle_for(1000, 1000, 132, {128, 1, SwapAB::off}, false));
static_assert(!k14_straddle_for(1000, 1000, 132, {128, 1, SwapAB::off}, true));

// Rule 13b: where rule 1b's 64 x 128 tiles leave the second tile row at
// most 18 rows (M 65..82), at beta = 0, k14's pairs run them; every
// row measured for the rule on both sides.
TEST(GemmPlan, ThinSecondTileRowClustersRule) {
  const auto k14 = [](index_t m, index_t n, index_t k, float beta = 0.0f) {
    const bool a_whole = rows_whole_lines(k), b_whole = rows_whole_lines(n);
    return k14_thin_pair_for(m, n, 132, plan_k13(m, n, k, 132, 0, SwapAB::plan, a_whole, false, b_whole), beta);
  };
  EXPECT_TRUE(k14(65, 8192, 8192));         // 0.884 against k13's 0.756
  EXPECT_TRUE(k14(72, 8192, 8192));         // 0.927 against 0.790
  EXPECT_TRUE(k14(80, 8192, 8192));         // 0.961 against 0.834 (0.968 against 0.917)
  EXPECT_TRUE(k14(80, 8192, 4096));         // 0.958 against 0.860
  EXPECT_TRUE(k14(80, 6144, 8192));         // 0.963 against 0.916
  EXPECT_FALSE(k14(88, 8192, 8192));        // 0.979 against 0.984
  EXPECT_FALSE(k14(96, 8192, 8192));        // 0.991 against 0.993
  EXPECT_FALSE(k14(96, 8192, 4096));        // 0.977 against 0.986
  EXPECT_FALSE(k14(128, 8192, 8192));       // 0.986 against 0.999
  EXPECT_FALSE(k14(64, 8192, 8192));        // M <= 64: swapped (rule 4)
  EXPECT_FALSE(k14(80, 16384, 8192));       // 128 pairs: past one wave of clusters
  EXPECT_FALSE(k14(80, 8192, 8192, 1.0f));  // C: not measured
}
static_assert(k14_thin_pair_for(80, 8192, 132, {128, 1, SwapAB::off, 0, GemmJit::off, 64}, 0.0f));
static_assert(!k14_thin_pair_for(80, 8192, 132, {128, 2, SwapAB::off, 0, GemmJit::off, 64}, 0.0f));

// Rule 11: a strided batch runs k15's batched kernel where its 128 x 128
// tiles over every batch pass rule 10's test and beta = 0.
TEST(GemmPlan, BatchedPingpongRule) {
  EXPECT_TRUE(k15_batched_for(512, 512, 128, 32, 132, 0.0f));      // 512 tiles on 2 x 264: 0.97
  EXPECT_TRUE(k15_batched_for(2048, 2048, 128, 32, 132, 0.0f));    // 8192 tiles: 0.97
  EXPECT_FALSE(k15_batched_for(2048, 2048, 128, 32, 132, 1.0f));   // C: k15 reads none
  EXPECT_FALSE(k15_batched_for(512, 512, 128, 8, 132, 0.0f));      // 128 tiles: under half the slots
  EXPECT_FALSE(k15_batched_for(512, 512, 128, 20, 132, 0.0f));     // 320 tiles fill 0.61 of 2 x 264
  EXPECT_TRUE(k15_batched_for(4096, 4096, 4096, 8, 132, 0.0f));    // 1.1 x 10^12 flops in all
  EXPECT_FALSE(k15_batched_for(4096, 4096, 4096, 16, 132, 0.0f));  // 2.2 x 10^12: the power cap
  EXPECT_FALSE(k15_batched_for(512, 512, 128, 0, 132, 0.0f));      // no batch
  // One batch is rule 10's own test.
  EXPECT_EQ(k15_batched_for(4096, 4096, 4096, 1, 132, 0.0f), k15_for(4096, 4096, 4096, 132, {256, 1, kOff}, 0.0f));
}
static_assert(k15_batched_for(512, 512, 128, 32, 132, 0.0f));

// Rule 11b: the batched kernel's raster runs along N (group 1) where one
// batch has at least a 128 x 128 tile per SM, else rule 6's group 8.
TEST(GemmPlan, BatchedRasterRule) {
  EXPECT_EQ(batched_raster_group_for(2048, 2048, 132), 1);  // 256 tiles a batch
  EXPECT_EQ(batched_raster_group_for(1024, 4096, 132), 1);  // 256, wide D
  EXPECT_EQ(batched_raster_group_for(4096, 4096, 132), 1);  // 1024
  EXPECT_EQ(batched_raster_group_for(2048, 1024, 132), 8);  // 128: under a tile per SM
  EXPECT_EQ(batched_raster_group_for(1024, 1024, 132), 8);  // 64
  EXPECT_EQ(batched_raster_group_for(512, 512, 132), 8);    // 16
  EXPECT_EQ(batched_raster_group_for(1408, 1536, 132), 1);  // 11 x 12 = 132: exactly a tile per SM
  EXPECT_EQ(batched_raster_group_for(1408, 1536, 133), 8);  // one short on a 133-SM part
  EXPECT_EQ(batched_raster_group_for(1409, 1408, 132), 1);  // a partial tile row counts: 12 x 11
}
static_assert(batched_raster_group_for(2048, 2048, 132) == 1);

// Rule 6: the 128 x 256 tile's raster groups 16 tile rows (the fewest DRAM
// bytes on 132 SMs, and measured faster alone at the power cap); the other
// tiles keep 8.
TEST(GemmPlan, RasterRule) {
  EXPECT_EQ(raster_group_for(32, 16, 256, 132), 16);
  EXPECT_EQ(raster_group_for(32, 32, 128, 132), 8);
  EXPECT_EQ(plan_k13(4096, 4096, 4096, 132).raster_group, 16);   // 128 x 256
  EXPECT_EQ(plan_k13(4096, 4096, 14336, 132).raster_group, 16);  // the llm row it was measured on
  EXPECT_EQ(plan_k13(8192, 28672, 8192, 132).raster_group, 16);
  EXPECT_EQ(plan_k13(3072, 3072, 3072, 132).raster_group, 8);                         // 128 x 192
  EXPECT_EQ(plan_k13(4096, 4096, 4096, 132, 128).raster_group, 8);                    // a forced 128
  EXPECT_EQ(plan_k13(16, 8192, 8192, 132).raster_group, 8);                           // swapped
  EXPECT_EQ(plan_k13(1000, 1000, 1024, 132, 0, SwapAB::plan, true).raster_group, 8);  // rule 1b's 64 x 128
}
static_assert(raster_group_for(32, 16, 256, 132) == 16 && raster_group_for(32, 32, 128, 132) == 8);

// Rule 11c: 3 stages for short units (K <= 128) where a batch has a tile per
// SM and a wave spans four tile rows; 4 elsewhere.
TEST(GemmPlan, BatchedStagesRule) {
  EXPECT_EQ(batched_stages_for(2048, 2048, 128, 132), 3);  // 256 tiles, 16 columns
  EXPECT_EQ(batched_stages_for(4096, 4096, 128, 132), 3);  // 32 columns: 4 x 32 <= 132
  EXPECT_EQ(batched_stages_for(2048, 2048, 96, 132), 3);   // two k-tiles, the second partial
  EXPECT_EQ(batched_stages_for(2048, 2048, 65, 132), 3);
  EXPECT_EQ(batched_stages_for(2048, 2048, 64, 132), 3);   // one k-tile
  EXPECT_EQ(batched_stages_for(2048, 2048, 129, 132), 4);  // three k-tiles
  EXPECT_EQ(batched_stages_for(2048, 2048, 256, 132), 4);
  EXPECT_EQ(batched_stages_for(4096, 8192, 128, 132), 4);  // 64 columns: a wave spans two tile rows
  EXPECT_EQ(batched_stages_for(4096, 4224, 128, 132), 3);  // 33 columns: 4 x 33 = 132
  EXPECT_EQ(batched_stages_for(4096, 4352, 128, 132), 4);  // 34 columns: 4 x 34 > 132
  EXPECT_EQ(batched_stages_for(1024, 2048, 128, 132), 4);  // 128 tiles: under a tile per SM
  EXPECT_EQ(batched_stages_for(512, 512, 128, 132), 4);
  EXPECT_EQ(batched_stages_for(1408, 1536, 128, 132), 3);  // 11 x 12 = 132 tiles
  EXPECT_EQ(batched_stages_for(1408, 1536, 128, 133), 4);
}
static_assert(batched_stages_for(2048, 2048, 128, 132) == 3 && batched_stages_for(4096, 8192, 128, 132) == 4);

// Rule 4: M <= 64 with N >= 128 swaps, with the smallest width of 16, 32, 64
// that holds M and rule 3's splits of the swapped tiles (ceil(N/128) x 1).
TEST(GemmPlan, SmallMSwaps) {
  constexpr GemmJit kNoJit = GemmJit::off;
  EXPECT_TRUE(same(plan_k13(1, 8192, 8192, 132), {16, 1, kOn, 8, kNoJit, 64}));  // rule 4b: 128 tiles of 64 rows
  EXPECT_TRUE(same(plan_k13(1, 6144, 8192, 132), {16, 1, kOn, 8, kNoJit, 64}));  // 96 of 64 rows, not 48 x 2 splits
  EXPECT_TRUE(same(plan_k13(1, 4224, 8192, 132), {16, 4, kOn}));  // 66 tiles of 64 rows, not more than half: rule 3
  EXPECT_TRUE(same(plan_k13(1, 4288, 8192, 132), {16, 1, kOn, 8, kNoJit, 64}));  // 67 of 64 rows, 34 of 128
  EXPECT_TRUE(same(plan_k13(1, 8448, 8192, 132), {16, 1, kOn, 8, kNoJit, 64}));  // 132 of 64 rows: one wave
  EXPECT_TRUE(same(plan_k13(1, 8512, 8192, 132), {16, 1, kOn}));   // 67 tiles of 128 rows: more than half, unsplit
  EXPECT_TRUE(same(plan_k13(16, 4096, 4096, 132), {16, 4, kOn}));  // 32 tiles: 4 splits
  EXPECT_TRUE(same(plan_k13(17, 8192, 8192, 132), {32, 1, kOn, 8, kNoJit, 64}));  // the next width, rule 4b
  EXPECT_TRUE(same(plan_k13(48, 14336, 4096, 132), {64, 1, kOn}));                // 112 tiles: more than half the SMs
  EXPECT_TRUE(same(plan_k13(16, 8192, 1024, 132), {16, 1, kOn, 8, kNoJit, 64}));  // short K: rule 4b too
  EXPECT_TRUE(same(plan_k13(16, 8192, 8192, 132, 16), {16, 2, kOn}));             // a forced width: 128 rows, rule 3
  EXPECT_TRUE(same(plan_k13(64, 127, 8192, 132), {128, 4, kOff}));                // N < 128: unswapped (rule 1, then 3)
  EXPECT_TRUE(same(plan_k13(65, 8192, 8192, 132), {128, 1, kOff, 8, kNoJit, 64}));  // M > 64: unswapped, rule 1b
  EXPECT_TRUE(same(plan_k13(16, 8192, 8192, 132, 0, kOff), {128, 2, kOff}));        // forced off: the old plan
  EXPECT_TRUE(same(plan_k13(1000, 8192, 8192, 132, 0, kOn), {64, 1, kOn}));         // forced on, M > 64: 128 x 64
}

// Small M streams the weights: one tile row is cut into enough units (narrow
// tiles, 64-row tiles, then splits of K) that at least half the SMs stream
// (the decode shapes, M <= 128); the 64-wide swapped tile of 128 rows, a
// quarter (rule 4: unsplit it streams faster once it fills a quarter); the
// unswapped 64 x 128 tile, 7/15 (rule 3b).
TEST(GemmPlan, SmallMFillsHalfTheSMs) {
  for (index_t m : {1, 16, 64, 128})
    for (index_t nk : {4096, 8192}) {
      const GemmTuning t = plan_k13(m, nk, nk, 132);
      const bool swapped = t.swap_ab == SwapAB::on;
      const index_t rows = swapped ? nk : m, cols = swapped ? m : nk;
      const index_t tile_m = t.tile_m == 64 ? 64 : 128;
      const index_t tiles = ((rows + tile_m - 1) / tile_m) * ((cols + t.tile_n - 1) / t.tile_n);
      // Rule 3b: the unswapped 64 x 128 tile (M <= 128) streams unsplit from 7/15 of the SMs.
      const index_t least = swapped && t.tile_n == 64 && tile_m == 128 ? 132 / 4
                            : !swapped && tile_m == 64                 ? (7 * 132 + 14) / 15
                                                                       : 132 / 2;
      EXPECT_GE(tiles * t.splits, least) << m << " " << nk;
    }
}

// A wider tile is never chosen when it leaves more SM slots idle and is not
// faster per wave: the score is monotone in the busy share.
TEST(GemmPlan, FullWavesPreferred) {
  // 132 tiles of 128 x 256 (M = 128 * 12, N = 256 * 11): exactly one wave.
  EXPECT_EQ(plan_k13(128 * 12, 256 * 11, 4096, 132).tile_n, 256);
}

// Rule 17: straddled B rows over 10^10 flops go to k14's pairs at k13's width; whole lines, a split, the swap and
// 64-row tiles stay, and so do 4168 x 928 x 1712 at 128 x 256 (132 tiles one wave, 17 x 4 pairs two) and 640 x 2480 x
// 3376 at 128 x 128 (5 tile rows: a fifth of the pairs' tiles idle).
static_assert(k14_shares_straddled_b(8192, 4040, 4096, 132, GemmTuning{256, 1}, false) &&
              !k14_shares_straddled_b(8192, 4096, 4096, 132, GemmTuning{256, 1}, true) &&
              !k14_shares_straddled_b(8192, 4040, 4096, 132, GemmTuning{256, 2}, false) &&
              !k14_shares_straddled_b(8192, 4040, 4096, 132, GemmTuning{256, 1, SwapAB::on}, false) &&
              !k14_shares_straddled_b(8192, 4040, 4096, 132, GemmTuning{128, 1, SwapAB::off, 0, GemmJit::off, 64},
                                      false) &&
              !k14_shares_straddled_b(4168, 928, 1712, 132, GemmTuning{256, 1}, false) &&
              k14_shares_straddled_b(4096, 928, 1712, 132, GemmTuning{256, 1}, false) &&
              !k14_shares_straddled_b(640, 2480, 3376, 132, GemmTuning{128, 1}, false) &&
              k14_shares_straddled_b(2176, 2480, 3376, 132, GemmTuning{128, 1}, false) &&
              !k14_shares_straddled_b(1024, 1016, 1024, 132, GemmTuning{128, 1}, false));
// k13 named runs plan_k13's tile for the fields left to the plan, the caller's where set.
static_assert(k13_tuning({}, 2048, 8192, 1024, 132).tile_n == 256 &&
              k13_tuning({}, 2048, 8192, 1024, 132).splits == 1 &&
              k13_tuning({}, 2048, 8192, 1024, 132).raster_group == 16 &&
              k13_tuning({}, 2048, 8192, 1024, 132).swap_ab == SwapAB::off &&
              k13_tuning({}, 16, 8192, 8192, 132).swap_ab == SwapAB::on &&
              k13_tuning({}, 16, 8192, 8192, 132).tile_n == 16 &&
              k13_tuning({128, 2}, 2048, 8192, 1024, 132).tile_n == 128 &&
              k13_tuning({128, 2}, 2048, 8192, 1024, 132).splits == 2 &&
              k13_tuning({128, 2}, 2048, 8192, 1024, 132).raster_group == 8);
// Rule 10c: k15 steps aside over A's straddled rows, over B's past 8 k-tiles, keeps B's at short K and whole lines.
static_assert(k15_straddled(800, true, false) && k15_straddled(928, false, true) && k15_straddled(336, true, false) &&
              !k15_straddled(336, false, true) && !k15_straddled(4096, false, false));
// Rules 2 and 14 under straddled rows: whole lines change nothing; A's rows straddling slow a full wave of 128 x 128
// by its L2 requests (507 ns against 338), 128 x 256 less (676 against its tensor work's 609).
static_assert(plan_detail::straddle_slowdown(128, 132, false, false) == 1.0 &&
              plan_detail::straddle_slowdown(256, 132, false, false) == 1.0);
static_assert(plan_detail::straddle_slowdown(128, 132, true, false) > 1.49 &&
              plan_detail::straddle_slowdown(128, 132, true, false) < 1.51);
static_assert(plan_detail::straddle_slowdown(256, 132, true, false) > 1.10 &&
              plan_detail::straddle_slowdown(256, 132, true, false) < 1.12);
static_assert(plan_detail::tile_speed(192) == 0.96 && plan_detail::tile_speed(256, true, false) < 1.0);
TEST(GemmPlan, StraddledRowsTakeWiderTiles) {
  // 4384 x 1024 x 14424: with whole lines rule 2 keeps 128 x 192's and 128 x 128's scores close; with A's rows
  // straddling (lda = 14424) the narrow tile's requests cost it, and no plan runs 128 x 128 there.
  const GemmTuning whole = plan_k13(4384, 1024, 14424, 132, 0, SwapAB::plan, true, false, true);
  const GemmTuning straddled = plan_k13(4384, 1024, 14424, 132, 0, SwapAB::plan, false, false, true);
  EXPECT_GE(straddled.tile_n, whole.tile_n);
  EXPECT_NE(split_tail_plan(4384, 1024, 14424, 132, straddled.tile_n, false, true, false).tile_n, 128);
}
// Rule 14: the header's examples, and where it declines.
static_assert(split_tail_whole(192, 132) == 132 && split_tail_whole(100, 132) == 0 &&
              split_tail_whole(264, 132) == 264);
static_assert(split_tail_plan(4096, 1088, 10240, 132, 192, false) == TailPlan{192, 2});
TEST(GemmPlan, SplitTailRule) {
  // Whole waves of the plan's width: nothing to share.
  EXPECT_EQ(split_tail_plan(128 * 12, 256 * 11, 8192, 132, 256, false), (TailPlan{256, 1}));
  // Short K: the reduction outweighs the tail (4096 x 1088 x 512).
  EXPECT_EQ(split_tail_plan(4096, 1088, 512, 132, 192, false).splits, 1);
  // The fused set has no 192.
  EXPECT_NE(split_tail_plan(4096, 1088, 10240, 132, 128, true).tile_n, 192);
  // Measured on the H200 (rule 14's table): the choice is within 3 % of the best configuration timed.
  EXPECT_EQ(split_tail_plan(640, 7168, 12992, 132, 192, false).splits > 1, true);
  EXPECT_EQ(split_tail_plan(6464, 2048, 2240, 132, 192, false).splits, 1);  // 0.95-1.03 measured: not worth it
  // The choice is never predicted slower than the plan's width unsplit, and keeps >= 8 k-tiles a split.
  for (index_t m : {index_t{300}, index_t{1136}, index_t{2920}, index_t{5696}})
    for (index_t n : {index_t{1088}, index_t{2048}, index_t{7168}})
      for (index_t k : {index_t{256}, index_t{2240}, index_t{7872}, index_t{13888}})
        for (int w : {128, 192, 256}) {
          const TailPlan t = split_tail_plan(m, n, k, 132, w, false);
          const index_t kt = ceil_div(k, index_t{64});
          const auto tiles = [&](int x) { return ceil_div(m, index_t{128}) * ceil_div(n, index_t{x}); };
          ASSERT_LE(tail_time(tiles(t.tile_n), kt, 132, t.tile_n, t.splits), tail_time(tiles(w), kt, 132, w, 1) + 1e-9);
          ASSERT_TRUE(t.splits == 1 || 8 * t.splits <= kt) << m << "x" << n << "x" << k;
          if (t.splits == 1) {
            ASSERT_EQ(t.tile_n, w);
          }
        }
}

// Rule 7: with a fused epilogue the plan stays on k13's fused instances
// (unswapped 128 x {64, 128, 256}) unless the caller forced something else.
static_assert(k13_fused_instance({256, 2, SwapAB::off}) && !k13_fused_instance({192, 1, SwapAB::off}));
// The one-warpgroup tiles have no fused instance: their calls take the unfused path.
static_assert(!k13_fused_instance({128, 1, SwapAB::off, 8, GemmJit::off, 64}));
// The unswapped one-warpgroup tile is 64 x 128 whatever width the plan chose; a caller's width stays.
static_assert(planned_tile_n({0, 0, SwapAB::off, 0, GemmJit::off, 64}, 64, {64, 1, SwapAB::off, 8}) == 128);
static_assert(planned_tile_n({0, 0, SwapAB::plan, 0, GemmJit::off, 64}, 64, {32, 1, SwapAB::on, 8}) == 32);
static_assert(planned_tile_n({256, 0, SwapAB::off, 0, GemmJit::off, 0}, 128, {64, 1, SwapAB::off, 8}) == 256);
static_assert(planned_tile_n({}, 128, {64, 1, SwapAB::off, 8}) == 64);
static_assert(k13_fused_instance({64, 1, SwapAB::off}) && !k13_fused_instance({64, 1, SwapAB::on}));
static_assert(same(plan_k13(4096, 4096, 4096, 132, 0, SwapAB::plan, true, true), {256, 1, kOff}));
TEST(GemmPlan, FusedEpilogueKeepsToFusedInstances) {
  const std::vector<index_t> ms{1, 16, 64, 100, 128, 129, 1000, 1536, 3072, 4095, 8192};
  const std::vector<index_t> ns{1, 64, 256, 1000, 1536, 3072, 4096, 8192, 28672};
  const std::vector<index_t> ks{1, 64, 1024, 4097, 8192};
  for (int sms : {1, 78, 132})
    for (index_t m : ms)
      for (index_t n : ns)
        for (index_t k : ks) {
          const GemmTuning t = plan_k13(m, n, k, sms, 0, SwapAB::plan, true, true);
          ASSERT_TRUE(k13_fused_instance(t)) << m << ' ' << n << ' ' << k << ' ' << sms << ": " << t.tile_n;
          EXPECT_NE(t.swap_ab, kOn);
          // Splits as for the same tile unfused (rule 3 does not depend on the epilogue).
          const GemmTuning same_tile = plan_k13(m, n, k, sms, t.tile_n, kOff);
          EXPECT_EQ(t.splits, same_tile.splits) << m << ' ' << n << ' ' << k;
          // Where the plain plan is already fused-capable, the fused plan is the same.
          const GemmTuning plain = plan_k13(m, n, k, sms);
          if (k13_fused_instance(plain)) {
            EXPECT_TRUE(same(t, plain)) << m << ' ' << n << ' ' << k << ' ' << sms;
          }
        }
  // 3072^3: rule 2 between 256 and 128 only (192 has no fused instance).
  EXPECT_EQ(plan_k13(3072, 3072, 3072, 132).tile_n, 192);
  EXPECT_EQ(plan_k13(3072, 3072, 3072, 132, 0, SwapAB::plan, true, true).tile_n, 128);
  // Small M: unswapped 128 x 128 with rule 3's splits.
  EXPECT_TRUE(same(plan_k13(16, 8192, 8192, 132, 0, SwapAB::plan, true, true), {128, 2, kOff}));
  // A forced swap or width without a fused instance is kept (the call then runs unfused).
  EXPECT_FALSE(k13_fused_instance(plan_k13(16, 8192, 8192, 132, 0, kOn, true, true)));
  EXPECT_FALSE(k13_fused_instance(plan_k13(16, 8192, 8192, 132, 16, SwapAB::plan, true, true)));
  EXPECT_EQ(plan_k13(4096, 4096, 4096, 132, 192, SwapAB::plan, true, true).tile_n, 192);
}

// Run-time compiled epilogues (GemmJit, docs/design.md §6): which path a k13
// call with an epilogue takes.  off keeps k13_fuses' two paths; on compiles
// what the ahead-of-time fused instance does not serve (C or aux) on a width
// that has fused instances; always compiles every such call; without a
// compiler (jit_ready false) the ahead-of-time path stands.
constexpr GemmTuning with_jit(int w, SwapAB swap, GemmJit j) { return GemmTuning{w, 1, swap, 8, j}; }
static_assert(GemmTuning{}.jit == GemmJit::off);
static_assert(!k13_wants_jit(with_jit(256, kOff, GemmJit::off), 1.0f, true));
static_assert(k13_wants_jit(with_jit(256, kOff, GemmJit::on), 1.0f, false));
static_assert(k13_wants_jit(with_jit(128, kOff, GemmJit::on), 0.0f, true));
static_assert(!k13_wants_jit(with_jit(64, kOff, GemmJit::on), 0.0f, false));  // the AOT instance fuses it
static_assert(k13_wants_jit(with_jit(64, kOff, GemmJit::always), 0.0f, false));
static_assert(!k13_wants_jit(with_jit(192, kOff, GemmJit::always), 1.0f, true));  // no fused width
static_assert(!k13_wants_jit(with_jit(32, kOn, GemmJit::always), 1.0f, true));    // swapped
static_assert(k13_epilogue_path({256, 1, SwapAB::off, 8, GemmJit::on}, 1.0f, false, true) ==
              EpiloguePath::jit_specialized);  // the header's example
TEST(GemmPlan, EpiloguePathWithAndWithoutRunTimeCompilation) {
  using P = EpiloguePath;
  for (int w : {64, 128, 256})
    for (float beta : {0.0f, 1.0f})
      for (bool aux : {false, true}) {
        const bool aot = beta == 0.0f && !aux;
        for (bool ready : {false, true}) {
          EXPECT_EQ(k13_epilogue_path(with_jit(w, kOff, GemmJit::off), beta, aux, ready),
                    aot ? P::aot_fused : P::unfused);
          EXPECT_EQ(k13_epilogue_path(with_jit(w, kOff, GemmJit::on), beta, aux, ready), aot     ? P::aot_fused
                                                                                         : ready ? P::jit_specialized
                                                                                                 : P::unfused);
          EXPECT_EQ(k13_epilogue_path(with_jit(w, kOff, GemmJit::always), beta, aux, ready), ready ? P::jit_specialized
                                                                                             : aot ? P::aot_fused
                                                                                                   : P::unfused);
        }
      }
  // Tunings without a fused instance stay unfused whatever is asked.
  for (GemmJit j : {GemmJit::off, GemmJit::on, GemmJit::always}) {
    EXPECT_EQ(k13_epilogue_path(with_jit(192, kOff, j), 0.0f, false, true), P::unfused);
    EXPECT_EQ(k13_epilogue_path(with_jit(16, kOn, j), 1.0f, true, true), P::unfused);
  }
  EXPECT_STREQ(name(P::aot_fused), "aot fused epilogue");
  EXPECT_STREQ(name(P::jit_specialized), "jit specialized epilogue");
  EXPECT_STREQ(name(P::unfused), "unfused epilogue");
  // k13_fuses, the ahead-of-time rule, does not look at jit.
  EXPECT_FALSE(k13_fuses(with_jit(256, kOff, GemmJit::always), 1.0f, false));
  EXPECT_TRUE(k13_fuses(with_jit(256, kOff, GemmJit::always), 0.0f, false));
}

}  // namespace
}  // namespace tessel

namespace tessel {
namespace {

// Rule 8: one width for a batched or grouped launch, chosen over all its tiles.
TEST(GemmPlan, BatchedAndGroupedWidths) {
  // 32 x 512 x 512: 256 tiles of 128 x 256 (two waves, 0.97 busy) beat 512 of 128 x 128 (0.97 x 0.89).
  EXPECT_EQ(plan_batched_tile(512, 512, 4096, 32, 132), 256);
  EXPECT_EQ(plan_batched_tile(2048, 2048, 4096, 32, 132), 256);
  // K of at most 4 k-tiles: the 128-wide tile (measured at K = 128).
  EXPECT_EQ(plan_batched_tile(512, 512, 128, 32, 132), 128);
  EXPECT_EQ(plan_batched_tile(2048, 2048, 256, 32, 132), 128);
  EXPECT_EQ(plan_batched_tile(2048, 2048, 257, 32, 132), 256);
  // 3 x 128 x 384: 6 tiles of 256 use 0.75 of their columns; 9 of 128 use all of them.
  EXPECT_EQ(plan_batched_tile(128, 384, 4096, 3, 132), 128);
  // 128 x 256 x 140 batches: 140 tiles of 256 (two waves, 0.53 busy) against 280 of 128 (three, 0.71 x 0.89).
  EXPECT_EQ(plan_batched_tile(128, 256, 4096, 140, 132), 128);
  // The MoE group: N = 4096, M in {64, ..., 2048}.
  const index_t moe[] = {64, 128, 256, 512, 768, 1024, 1536, 2048};
  const int bn = plan_group_tile(
      [&](int w, index_t& tiles, double& used, double& computed) {
        tiles = 0, used = computed = 0.0;
        for (index_t m : moe) {
          const index_t t = (m + 127) / 128 * ((4096 + w - 1) / w);
          tiles += t;
          used += static_cast<double>(m) * 4096.0;
          computed += static_cast<double>(t) * 128.0 * w;
        }
      },
      132);
  EXPECT_EQ(bn, 256);
}

// ------------------------------------------------------------------ measured tuning's candidates

static_assert(candidate_matches({GemmImpl::k13_wgmma_in_flight, 128, 192, 1, false}, {192}));
static_assert(!candidate_matches({GemmImpl::k13_wgmma_in_flight, 128, 192, 1, false}, {256}));
static_assert(!candidate_matches({GemmImpl::k13_wgmma_in_flight, 128, 64, 2, true}, {0, 0, SwapAB::off}));
static_assert(candidate_matches({GemmImpl::k15_pingpong, 128, 128, 1, false}, {0, 1}));

TEST(GemmTune, NamesRoundTrip) {
  EXPECT_EQ(candidate_name({GemmImpl::k13_wgmma_in_flight, 64, 32, 2, true}), "k13:64x32:s2:swap");
  EXPECT_EQ(candidate_name({GemmImpl::k14_cluster_multicast, 64, 128, 1, false}), "k14:64x128");
  EXPECT_EQ(candidate_name({GemmImpl::k14_cluster_multicast, 64, 128, 3, false}), "k14:64x128:s3");
  for (index_t m : {1, 17, 100, 1000, 8192})
    for (const GemmCandidate& c : gemm_candidates(m, 4096, 16384, 132, false, false)) {
      const std::optional<GemmCandidate> back = parse_candidate(candidate_name(c));
      ASSERT_TRUE(back) << candidate_name(c);
      EXPECT_EQ(*back, c) << candidate_name(c);
    }
  for (const char* bad : {"",
                          "k13",
                          "k13:128x192",
                          "k13:128x100:s1",
                          "k13:128x192:s0",
                          "k13:128x192:s1:x",
                          "k12:128x128",
                          "k15:128x256",
                          "k14:64x64",
                          "k13:64x256:s1",
                          "k13:64x128:s1:swap",
                          "k13:99999x128:s1",
                          "k13:128x192:s1 ",
                          "k13:64x48:s1",
                          "k13:128x72:s1:swap",
                          "k13:128x272:s1:swap",
                          "k13:64x112:s1:swap",
                          "k14:64x96",
                          "k14:128x192:s2",
                          "k14:64x128:s1",
                          "k14:64x128:s",
                          "k14:128x128:s2:swap",
                          "k08:128x128"})
    EXPECT_FALSE(parse_candidate(bad)) << bad;
}

// The swapped widths between the powers of two (64 x 48, 80, 96): listed where A is K-major, M > 32 and the problem
// is in the model's domain, and they round-trip by name.
TEST(GemmTune, SwappedWidthsBetweenThePowersOfTwo) {
  const auto wide = [](const std::vector<GemmCandidate>& cs) -> int {
    int n = 0;
    for (const GemmCandidate& c : cs) {
      if (!swapped_only_width(c.tile_n) || c.tile_m == 128) continue;  // not the 128-row tiles of these widths
      ++n;
      EXPECT_TRUE(c.swap && c.tile_m == 64 && c.impl == GemmImpl::k13_wgmma_in_flight) << candidate_name(c);
      const std::optional<GemmCandidate> back = parse_candidate(candidate_name(c));
      EXPECT_TRUE(back && *back == c) << candidate_name(c);
    }
    return n;
  };
  EXPECT_GE(wide(gemm_candidates(896, 320, 2368, 132, false, false)), 3);         // unsplit, and split where few tiles
  EXPECT_EQ(wide(gemm_candidates(896, 320, 2368, 132, false, false, false)), 0);  // A M-major
  EXPECT_EQ(wide(gemm_candidates(32, 4096, 4096, 132, false, false)), 0);         // M <= 32: 16 and 32 hold it
  EXPECT_EQ(wide(gemm_candidates(4096, 4096, 4096, 132, false, false)), 0);       // above the model's domain
  EXPECT_EQ(wide(gemm_candidates(896, 320, 2368, 132, true, false)), 0);          // fused: unswapped instances only
  // Every listed width has the model's constants, but the model leaves them to measured tuning unless asked.
  for (const GemmCandidate& c : gemm_candidates(896, 320, 2368, 132, false, false))
    EXPECT_NE(model_family(c), nullptr) << candidate_name(c);
  PlanProblem p;
  p.m = 896, p.n = 320, p.k = 2368, p.lda = 2368, p.ldb = 320;
  GemmCandidate c;
  double us = 0;
  ASSERT_TRUE(model_choice(p, 132, c, us));
  EXPECT_FALSE(swapped_only_width(c.tile_n)) << candidate_name(c);
  p.asked = GemmTuning{80, 0, SwapAB::on, 0, GemmJit::off, 64};
  ASSERT_TRUE(model_choice(p, 132, c, us));
  EXPECT_EQ(candidate_name(c).substr(0, 9), "k13:64x80");
}

TEST(GemmTune, Candidates) {
  // 4096^3: k13's four widths and 64 x 128 unsplit (even 128 x 256 makes 512 tiles), the twelve swapped 128-row
  // widths and (kFittedVerified) the nine unswapped ones between the powers of two (each the narrowest for its count
  // of tile columns), k14's four tiles, k15.
  const std::vector<GemmCandidate> big = gemm_candidates(4096, 4096, 4096, 132, false, false);
  const std::size_t fitted = kFittedVerified ? 9 : 0;  // the unswapped ones, while they are switched on
  EXPECT_EQ(big.size(), 22u + fitted);
  for (const GemmCandidate& c : big) EXPECT_EQ(c.splits, 1);
  // beta != 0: no k15 (it does not read C).
  EXPECT_EQ(gemm_candidates(4096, 4096, 4096, 132, false, true).size(), 21u + fitted);
  // A M-major: no swapped 128-row widths (their M side is read K-major).
  EXPECT_EQ(gemm_candidates(4096, 4096, 4096, 132, false, false, false).size(), 10u + fitted);
  // A fused epilogue: k13's fused instances only.
  for (const GemmCandidate& c : gemm_candidates(4096, 4096, 4096, 132, true, false)) {
    EXPECT_EQ(c.impl, GemmImpl::k13_wgmma_in_flight);
    EXPECT_TRUE(k13_fused_instance(c.tuning()));
  }
  // Few tiles over a long K: splits while the split grid stays within two
  // waves and each split keeps 8 k-tiles; small M gets the swapped tiles.
  const std::vector<GemmCandidate> thin = gemm_candidates(128, 128, 65536, 132, false, false);
  int splits16 = 0, swapped = 0;
  for (const GemmCandidate& c : thin) {
    splits16 += c.splits == 16;
    swapped += c.swap;
    if (c.splits > 1) {
      const index_t tiles = c.swap ? (128 + c.tile_m - 1) / c.tile_m * ((128 + c.tile_n - 1) / c.tile_n)
                                   : (128 + c.tile_m - 1) / c.tile_m * ((128 + c.tile_n - 1) / c.tile_n);
      EXPECT_LE(tiles * c.splits, 264) << candidate_name(c);
      EXPECT_GE(1024 / c.splits, 8) << candidate_name(c);
    }
  }
  EXPECT_GT(splits16, 0);
  EXPECT_GT(swapped, 0);
  // k14 splits its 64 x 128 and 128 x 128 pairs as k13 splits where the tile rows pair evenly (448 rows: 7 of 64, 4
  // of 128, so only 128 x 128); the model leaves those to measured tuning.
  int k14_split = 0;
  for (const GemmCandidate& c : gemm_candidates(448, 576, 7040, 132, false, false))
    if (c.impl == GemmImpl::k14_cluster_multicast && c.splits > 1) {
      ++k14_split;
      EXPECT_EQ(c.tile_n, 128);
      EXPECT_EQ(c.tile_m, 128) << candidate_name(c);
      EXPECT_LE(4 * 5 * c.splits, 264) << candidate_name(c);  // 4 x 5 tiles
    }
  EXPECT_GT(k14_split, 0);
  PlanProblem p448{448, 576, 7040, 7040, 576};
  GemmCandidate chosen;
  double us = 0;
  ASSERT_TRUE(model_choice(p448, 132, chosen, us));
  EXPECT_FALSE(chosen.impl == GemmImpl::k14_cluster_multicast && chosen.splits > 1) << candidate_name(chosen);
  // Swapped widths hold M in at most four tiles and are not twice M: M = 10 takes 16 only.
  for (const GemmCandidate& c : gemm_candidates(10, 4096, 4096, 132, false, false))
    if (c.swap) {
      EXPECT_EQ(c.tile_n, 16);
    }
}

// ------------------------------------------------------------------ the model (tessel/gemm_model.hpp)

static_assert(model_detail::smooth_max(3.0, 0.0) > 2.999 && model_detail::smooth_max(3.0, 0.0) < 3.001);
static_assert(model_detail::smooth_max(1.0, 1.0) > 1.189 && model_detail::smooth_max(1.0, 1.0) < 1.190);  // 2^(1/4)
static_assert(model_detail::straddles(1000) && !model_detail::straddles(1024) && !model_detail::straddles(999));
static_assert(in_model_domain(1024, 1024, 1024) && !in_model_domain(4096, 4096, 4096));
// The header's example: at M = 1 the swapped one-warpgroup tile beats the widest unswapped one.
static_assert(predicted_us({1, 4096, 4096, 4096, 4096}, {GemmImpl::k13_wgmma_in_flight, 64, 16, 4, true}, 132) <
              predicted_us({1, 4096, 4096, 4096, 4096}, {GemmImpl::k13_wgmma_in_flight, 128, 256, 1, false}, 132));

TEST(GemmModel, EveryCandidateHasAFamily) {
  for (index_t m : {1, 20, 100, 300, 4096})
    for (const GemmCandidate& c : gemm_candidates(m, 4096, 4096, 132, false, false))
      EXPECT_NE(model_family(c), nullptr) << candidate_name(c);
}

TEST(GemmModel, PredictionsFollowTheWork) {
  const GemmCandidate c{GemmImpl::k13_wgmma_in_flight, 128, 128, 1, false};
  const PlanProblem small{512, 512, 512, 512, 512}, deep{512, 512, 8192, 8192, 512};
  EXPECT_LT(predicted_us(small, c, 132), predicted_us(deep, c, 132));
  // Rows that straddle lines cost more; rows TMA cannot read pay the padded copy.
  EXPECT_LT(predicted_us(deep, c, 132), predicted_us({512, 512, 8192, 8200, 512}, c, 132));
  EXPECT_LT(predicted_us(deep, c, 132), predicted_us({512, 512, 8192, 8193, 512}, c, 132));
  // A fixed cost below which nothing runs.
  EXPECT_GT(predicted_us({1, 256, 256, 256, 256}, c, 132), kModelShared.fixed_us);
}

TEST(GemmModel, KeepsTheCallersKnobs) {
  PlanProblem p{64, 4096, 4096, 4096, 4096};
  GemmCandidate c;
  double us = 0;
  ASSERT_TRUE(model_choice(p, 132, c, us));
  p.asked.tile_n = 192;
  ASSERT_TRUE(model_choice(p, 132, c, us));
  EXPECT_EQ(c.tile_n, 192);
  p.asked = GemmTuning{0, 2, SwapAB::off};
  ASSERT_TRUE(model_choice(p, 132, c, us));
  EXPECT_EQ(c.splits, 2);
  EXPECT_FALSE(c.swap);
  p.asked = GemmTuning{16, 0, SwapAB::off};  // no unswapped 16-wide tile: nothing agrees
  EXPECT_FALSE(model_choice(p, 132, c, us));
}

// At most kModelNarrowM rows, M goes on a swapped tile's narrow side: the
// unswapped 64 x 128 the constants alone preferred at 8 x 14272 x 3168 ran
// 29.7 us against 26.7 for the swapped 128 x 16 (seed 606, H200).  A caller
// who turns the swap off still gets an unswapped tile.
TEST(GemmModel, FewRowsTakeSwappedTiles) {
  for (index_t m : {1, 8, 16}) {
    PlanProblem p{m, 14272, 3168, 3168, 14272};
    GemmCandidate c;
    double us = 0;
    ASSERT_TRUE(model_choice(p, 132, c, us));
    EXPECT_TRUE(c.swap) << "M = " << m << ": " << candidate_name(c);
    p.asked = GemmTuning{0, 0, SwapAB::off};
    ASSERT_TRUE(model_choice(p, 132, c, us));
    EXPECT_FALSE(c.swap) << "M = " << m << " with the swap off";
  }
}

// k15's straddle terms: past one wave k15 ran 1.2-1.4x its prediction where
// A's or B's rows straddle lines (H200 tuning logs), so the model leaves it
// there for the wider unsplit tiles that ran faster (7680 x 448 x 776: k15
// 20.5 us, k13 128 x 256 18.6; 7424 x 968 x 400: 25.6, k14 128 x 256 23.2;
// H100), and keeps it where the same problem's rows are whole lines.
TEST(GemmModel, PingpongLeavesStraddledRows) {
  struct Case {
    index_t m, n, k;
    bool k15;
  };
  for (const Case& t : {Case{7680, 448, 776, false}, Case{7680, 448, 768, true}, Case{7424, 968, 400, false},
                        Case{7424, 960, 384, true}}) {
    const PlanProblem p{t.m, t.n, t.k, t.k, t.n};  // A:k, B:n: lda = K, ldb = N
    GemmCandidate c;
    double us = 0;
    ASSERT_TRUE(model_choice(p, 132, c, us));
    EXPECT_EQ(c.impl == GemmImpl::k15_pingpong, t.k15)
        << t.m << " x " << t.n << " x " << t.k << ": " << candidate_name(c);
  }
}

// The table of problems and the choice measured best for each
// (tests/data/plan_cases.tsv: held-out random problems where the model's
// choice was timed within 2 % of the fastest configuration on an H200).
TEST(GemmModel, ChoosesWhatWasMeasuredFastest) {
  std::ifstream f(std::string(TESSEL_TEST_DATA) + "/plan_cases.tsv");
  ASSERT_TRUE(f) << "tests/data/plan_cases.tsv";
  std::string line;
  int rows = 0;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    PlanProblem p;
    std::string want;
    ASSERT_TRUE(in >> p.m >> p.n >> p.k >> p.lda >> p.ldb >> want) << line;
    ASSERT_TRUE(in_model_domain(p.m, p.n, p.k)) << line;
    p.d_tma = p.n % 8 == 0;  // D is M x N with ldd = N, as the bench makes it
    GemmCandidate c;
    double us = 0;
    ASSERT_TRUE(model_choice(p, 132, c, us)) << line;
    EXPECT_EQ(candidate_name(c), want) << line;
    ++rows;
  }
  EXPECT_GE(rows, 40);
}

// The stages in flight of a streaming tile (stages_in_flight): few CTAs
// fill as many stages as one SM's loads need (up to what fits), the grid's
// full CTAs keep the measured cap, and the count never leaves [cap, fit].
TEST(DepthModel, FewCtasFillMoreStagesAFullGridKeepsTheCap) {
  // The swapped 64 x 16 tile: 10 KB stages, 8 with 128 CTAs, 22 fit.
  EXPECT_EQ(stages_in_flight(14, 10240, 8, 22), 19);  // 192 KB a CTA
  EXPECT_EQ(stages_in_flight(128, 10240, 8, 22), 8);  // 9 MB / 128 = 69 KB: below the cap
  EXPECT_EQ(stages_in_flight(1, 10240, 8, 12), 12);   // what fits
  // The swapped 128 x 16 tile: 18 KB stages, 4 with 128 CTAs.
  EXPECT_EQ(stages_in_flight(128, 18432, 4, 12), 4);
  EXPECT_EQ(stages_in_flight(30, 18432, 4, 12), 11);  // 192 KB / 18 KB
  EXPECT_EQ(stages_in_flight(64, 18432, 4, 12), 8);   // 9 MB / 64 = 141 KB
  // Never fewer than the cap or more than fit, whatever the grid says.
  for (index_t ctas : {0, 1, 7, 66, 132, 1000})
    for (int cap : {2, 4, 8}) {
      const int d = stages_in_flight(ctas, 10240, cap, 16);
      EXPECT_GE(d, cap) << ctas;
      EXPECT_LE(d, 16) << ctas;
    }
  // Non-increasing in the CTAs.
  for (index_t c = 1; c < 200; ++c) EXPECT_GE(stages_in_flight(c, 12288, 4, 16), stages_in_flight(c + 1, 12288, 4, 16));
}
static_assert(stages_in_flight(14, 10240, 8, 22) == 19 && stages_in_flight(128, 10240, 8, 22) == 8);

// The straddled-row copy (straddled_copy_repays), on problems measured on
// the H200: each decision below matched the faster of copied and not.
TEST(StraddleModel, CopiesAnNMajorBReadByManyTileRows) {
  // 3000 x 5000 x 7000, B:n (ldb 5000: rows 16 bytes into a line), 24 tile
  // rows of 128: 509.6 us as it is, 357.5 us with B copied.
  EXPECT_TRUE(straddled_copy_repays(0, 5000, 5000 * 7000, 24, true));
  // 10944 x 1192 x 13760: 86 tile rows; 777 -> 640 us.
  EXPECT_TRUE(straddled_copy_repays(0, 1192, 1192 * 13760, 86, true));
}

TEST(StraddleModel, LeavesWhatTheCopyDoesNotRepay) {
  // 128 x 12184 x 6208: B read by one tile row; the copy cost 78 us.
  EXPECT_FALSE(straddled_copy_repays(0, 12184, 12184 * 6208, 1, true));
  // 448 x 5640 x 10432: four tile rows; the copy cost 40 us.
  EXPECT_FALSE(straddled_copy_repays(0, 5640, 5640 * 10432, 4, true));
  // 3712 x 2976 x 14976: rows 64 bytes into a line (ldb 2976) straddle
  // without cost; copying them cost 42 us.  2560 x 2160 x 3776: rows that
  // start on a sector (ldb 2160, 32 bytes into a line); copying cost 14 %.
  EXPECT_FALSE(straddled_copy_repays(0, 2976, 2976 * 14976, 29, true));
  EXPECT_FALSE(straddled_copy_repays(0, 2160, 2160 * 3776, 20, true));
  // 14656 x 3520 x 8504, A:k (K-major, lda 8504): copying A cost 96 us.
  EXPECT_FALSE(straddled_copy_repays(0, 8504, 14656 * 8504, 14, false));
  // Rows of whole lines are never copied, however often read.
  EXPECT_FALSE(straddled_copy_repays(0, 4096, 4096 * 4096, 1000, true));
}

TEST(StraddleModel, AMisalignedBaseStraddlesToo) {
  // ldb a multiple of 64 elements, but the base 16 bytes off a sector.
  EXPECT_FALSE(straddled_copy_repays(0, 5056, 5056 * 7000, 24, true));
  EXPECT_TRUE(straddled_copy_repays(16, 5056, 5056 * 7000, 24, true));
  EXPECT_FALSE(straddled_copy_repays(32, 5056, 5056 * 7000, 24, true));
  static_assert(!straddled_copy_repays(0, 5000, 5000 * 7000, 1, true));
}

// The small-M kernel's split of K (small_m_splits): the CTAs of every SM's
// two slots (one above 32 rows), never a split below two k-tiles, at most 64.
TEST(SmallMSplits, FillTheSlotsWithoutTinySplits) {
  EXPECT_EQ(small_m_splits(16, 8192, 8192, 132), 4);  // 64 column tiles x 4 = 256 of 264 slots
  EXPECT_EQ(small_m_splits(64, 8192, 8192, 132), 2);  // one slot an SM: 132 / 64
  EXPECT_EQ(small_m_splits(3, 400, 9368, 132), 64);   // 4 tiles: the cap
  EXPECT_EQ(small_m_splits(1, 752, 200, 132), 2);     // 4 k-tiles: splits of two
  EXPECT_EQ(small_m_splits(1, 752, 100, 132), 1);     // 2 k-tiles: no split
  EXPECT_EQ(small_m_splits(8, 40000, 4096, 132), 1);  // 313 tiles fill the SMs
  for (index_t n : {1, 128, 1000, 20000})
    for (index_t k : {1, 64, 640, 65536}) {
      const int s = small_m_splits(5, n, k, 132);
      EXPECT_GE(s, 1);
      EXPECT_LE(s, 64);
      if (s > 1) {
        EXPECT_GE((k + 63) / 64 / s, 2) << n << " " << k;
      }
    }
}
static_assert(small_m_splits(16, 8192, 8192, 132) == 4 && small_m_splits(3, 400, 9368, 132) == 64);

// Rule 15 (small_m_for): the small-M kernel where k13 would copy B first (ldb
// not a multiple of 8): up to 32 rows of A, 33-64 where B holds 14 M elements or more.
TEST(SmallMRule, OnlyWhereBNeedsACopyThatOutweighsTheStream) {
  EXPECT_TRUE(small_m_for(4, 7762, 6848, 7762));
  EXPECT_TRUE(small_m_for(1, 401, 9368, 401));      // 64 splits of 1 row
  EXPECT_TRUE(small_m_for(16, 917, 10632, 917));    // 33 splits of 16 rows
  EXPECT_TRUE(small_m_for(24, 4462, 3928, 4462));   // 35 tiles x 7 splits
  EXPECT_TRUE(small_m_for(21, 1525, 15552, 1525));  // 22 splits: 30.5 us against k13's 52.0
  EXPECT_TRUE(small_m_for(7, 128, 640, 131));       // a padded ldb decides, not N
  EXPECT_TRUE(small_m_for(64, 6974, 4032, 6974));   // 28 M elements of B: 52.6 us against 67.4
  EXPECT_TRUE(small_m_for(36, 13122, 2736, 13122));
  EXPECT_FALSE(small_m_for(37, 1417, 8768, 1417));  // 12 M: 36.7 us against 33.8
  EXPECT_FALSE(small_m_for(44, 516, 1024, 516));    // 23.9 us against 12.8
  EXPECT_FALSE(small_m_for(65, 6974, 4032, 6974));  // no instance past 64 rows
  EXPECT_FALSE(small_m_for(4, 7760, 6848, 7760));   // TMA reads B: k13
  EXPECT_FALSE(small_m_for(7, 131, 640, 136));
  EXPECT_FALSE(small_m_for(0, 401, 9368, 401));
  EXPECT_EQ(small_m_splits(32, 1530, 10992, 132), 22);
  EXPECT_EQ(small_m_splits(24, 4462, 3928, 132), 7);
}
static_assert(small_m_for(4, 7762, 6848, 7762) && !small_m_for(4, 7760, 6848, 7760));

// The 128-row swapped widths (128 of N by W of M, W = 80..256 by 16): listed only as the narrowest W for its count of
// tile columns, each with the model's linear constants, round-tripping by name; rule 16 (wave_fill_choice) takes one
// only where it predicts 10 % less time than the rules' choice.
TEST(GemmTune, WideSwappedWidthsAndWaveFill) {
  int listed = 0;
  for (const GemmCandidate& c : gemm_candidates(300, 4096, 4096, 132, false, false)) {
    if (!c.swap || c.tile_m != 128 || c.tile_n <= 64) continue;
    ++listed;
    EXPECT_TRUE(swapped_wide_width(c.tile_n)) << candidate_name(c);
    if (c.tile_n > 80) {
      EXPECT_LT(ceil_div(index_t{300}, index_t{c.tile_n}), ceil_div(index_t{300}, c.tile_n - 16));
    }
    ASSERT_NE(model_family(c), nullptr) << candidate_name(c);
    EXPECT_DOUBLE_EQ(model_family(c)->mma_ns, 2.3 * c.tile_n + 20.0);
    const std::optional<GemmCandidate> back = parse_candidate(candidate_name(c));
    EXPECT_TRUE(back && *back == c) << candidate_name(c);
  }
  EXPECT_EQ(listed, 3);  // M = 300: 80 (4 tile columns), 112 (3), 160 (2)
  // 6832 x 640 x 1344: 128 x 192 makes 216 tiles (1.6 waves); 128 x 144 swapped 240 (1.8): rule 16 takes it.
  const auto fill = [](index_t m, index_t n, index_t k, const GemmCandidate& rules, GemmCandidate& out) {
    return wave_fill_choice(PlanProblem{m, n, k, k, n}, 132, rules, out);
  };
  GemmCandidate w;
  ASSERT_TRUE(fill(6832, 640, 1344, {GemmImpl::k13_wgmma_in_flight, 128, 192, 1, false}, w));
  EXPECT_EQ(candidate_name(w), "k13:128x144:s1:swap");
  // Whole waves already: 4096^3 on 128 x 256 (512 tiles, 3.9 waves), 8192^3, the llm shapes: no change.
  for (auto [m, n, k] : {std::tuple<index_t, index_t, index_t>{4096, 4096, 4096},
                         {8192, 8192, 8192},
                         {8192, 28672, 8192},
                         {4096, 14336, 4096},
                         {4096, 6144, 4096}})
    EXPECT_FALSE(fill(m, n, k, {GemmImpl::k13_wgmma_in_flight, 128, 256, 1, false}, w)) << m << "x" << n << "x" << k;
  EXPECT_FALSE(fill(8192, 8192, 256, {GemmImpl::k15_pingpong, 128, 128, 1, false}, w));
  // A's rows straddling lines: the wide tiles read a copy in whole lines, and the prediction carries the copy.
  static_assert(!wide_copies_a(0, 4096) && wide_copies_a(0, 4104) && wide_copies_a(64, 4096));
  const GemmCandidate w208{GemmImpl::k13_wgmma_in_flight, 128, 208, 1, true};
  const double whole = predicted_us(PlanProblem{832, 12408, 8128, 8128, 12408}, w208, 132);
  const double straddled = predicted_us(PlanProblem{832, 12408, 8080, 8080, 12408}, w208, 132);
  EXPECT_GT(straddled, whole * 8080.0 / 8128.0 + 2.0);  // the copy's launch and its 13 MB read and written
  ASSERT_TRUE(fill(832, 12408, 8080, {GemmImpl::k13_wgmma_in_flight, 128, 256, 1, false}, w));
  EXPECT_EQ(candidate_name(w), "k13:128x208:s1:swap");  // H200: 1.43x the 128 x 256 tile's speed
  // A caller's forced width is kept.
  PlanProblem forced{6832, 640, 1344, 1344, 640};
  forced.asked.tile_n = 192;
  EXPECT_FALSE(wave_fill_choice(forced, 132, {GemmImpl::k13_wgmma_in_flight, 128, 192, 1, false}, w));
}

}  // namespace
}  // namespace tessel
