// tessel/gemm_plan.hpp — how tessel::gemm chooses kernel, tile and splits under `--impl auto`, without CUDA so that the
// CPU tests every rule (tests/gemm_plan_test.cpp); the measurements are in docs/heuristics.md's rules table, by rule
// number.  gemm_plan() (src/kernels/gemm.cu) applies the rules in this order, the first that applies winning:
//   1. fp32 inputs: rule 9 (fp32_step_for), on any device.  Not sm_90: k08.
//   2. Measured tuning (GemmTuning::tune), where asked and the call is a single 16-bit problem.
//   3. batch > 1: rule 11 (k15_batched_for; 11b, 11c), else rule 8 (plan_batched_tile) where the caller's tuning
//      allows one launch (width 128 or 256, unsplit, unswapped, two warpgroups); else one k13 launch per batch.
//   4. Untuned single calls without an epilogue: rule 15 (small_m_for); below 10^10 flops the model (gemm_model.hpp).
//   5. plan_k13: rules 4, 4b (swap), 1, 1b, 3b (small grids), 2 (width), 3 (split), 7 (fused), 6 (raster group).
//   6. Untuned single calls: rules 10, 10b, 10c (k15_for, k15_meets_cap, k15_straddled), 6b, 13, 13b (k14_straddle_for,
//      k14_thin_pair_for), 12 (one_wave_for), 5 (k14_for), 14 (split_tail_plan), 17 (k14_shares_straddled_b).
#pragma once
#include <initializer_list>
#include <string>

#include "tessel/core/config.hpp"
#include "tessel/core/integer.hpp"
#include "tessel/gemm_types.hpp"

namespace tessel {
namespace plan_detail {
using tessel::ceil_div;  // core/integer.hpp's (a second copy here was ambiguous beside it)
constexpr double flops(index_t m, index_t n, index_t k, index_t batch = 1) {  // 2 x M x N x K x batch
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(batch);
}
constexpr index_t tile_count(index_t m, index_t n, index_t bm = 128, index_t bn = 128) {  // bm x bn tiles of M x N
  return ceil_div(m, bm) * ceil_div(n, bn);
}
/// The share of the SMs' tile slots that hold work, over all waves (288 tiles on 132 SMs: 288 / 396).
constexpr double wave_efficiency(index_t units, int sms) {
  const index_t waves = ceil_div(units, sms);
  return static_cast<double>(units) / static_cast<double>(waves * sms);
}
/// A 128-row tile's tensor time a k-step at width w, ns: 2.3 a column + 20 (about 88 % of the tensor cores' rate at
/// 1,980 MHz; fitted to the swapped wide tiles, gemm_model.hpp's wide_family).
constexpr double tile128_mma_ns(int w) { return 2.3 * w + 20.0; }
/// Where A's (B's) rows straddle 128-byte lines a TMA box row costs two line requests, and a full wave's requests,
/// sms x (128 a + w b) a k-step at ~100 a ns (12.9 TB/s of whole lines on an H100), outlast its tensor work
/// (tile128_mma_ns): that k-step's time over the whole-line one.  128 x 128, A straddling: 1.50; 128 x 256: 1.11.
constexpr double straddle_slowdown(int w, int sms, bool a_straddles, bool b_straddles) {
  const double mma = tile128_mma_ns(w), lines = sms / 100.0;
  const double whole = lines * (128 + w), req = lines * (128.0 * (a_straddles ? 2 : 1) + w * (b_straddles ? 2 : 1));
  return (req > mma ? req : mma) / (whole > mma ? whole : mma);
}
/// A full wave's speed against 128 x 256 (rule 2): narrower tiles read more operand bytes per flop; straddled rows.
constexpr double tile_speed(int tile_n, bool sa = false, bool sb = false, int sms = 132) {
  return (tile_n == 256 ? 1.0 : tile_n == 192 ? 0.96 : 0.89) / straddle_slowdown(tile_n, sms, sa, sb);
}
/// Rule 2's score of width `w`: busy share of the slots x full-wave speed x `used` share of the computed columns.
constexpr double width_score(index_t tiles, int w, double used, int sms, bool sa = false, bool sb = false) {
  return wave_efficiency(tiles, sms) * tile_speed(w, sa, sb, sms) * used;
}
/// The first of `widths` (widest first) with the highest score(w); `none` where no score beats -1.
template <class Score>
constexpr int best_width(std::initializer_list<int> widths, int none, const Score& score) {
  int bn = none;
  double best = -1.0;
  for (int w : widths) {
    const double s = score(w);
    if (s > best + 1e-9) best = s, bn = w;
  }
  return bn;
}
/// Rule 10's test: `tiles` 128 x 128 warpgroup tiles fill ≥ 90 % of 2 x SMs slots over their waves, ≤ 2e12 flops.
constexpr bool pingpong_fits(index_t tiles, double flops, int sms) {
  const index_t slots = 2 * static_cast<index_t>(sms);
  return tiles * 10 >= slots * ceil_div(tiles, slots) * 9 && flops <= 2e12;
}
/// Rules 13, 13b: k14's 64 x 128 M-neighbour pairs fit one wave with two to spare (an odd GPC leaves an SM unpaired).
constexpr bool k14_pairs_fit_one_wave(index_t m, index_t n, int sms) {
  return ceil_div(ceil_div(m, 64), 2) * ceil_div(n, 128) <= static_cast<index_t>(sms / 2 - 2);
}
}  // namespace plan_detail
/// Do rows of leading dimension `ld` reach TMA as whole 128-byte lines (multiples of 64; or not of 8: padded copy)?
constexpr bool rows_whole_lines(index_t ld) { return ld % 8 != 0 || ld % 64 == 0; }
/// Rule 3: tiles over ≤ half the SMs with K ≥ 64 k-tiles split K min(SMs / tiles, 4) ways: idle SMs repay it on long K.
constexpr int split_k_for(index_t tiles, index_t k_tiles, int sms) {
  if (2 * tiles > sms || k_tiles < 64) return 1;
  const index_t s = sms / tiles;
  return s > 4 ? 4 : static_cast<int>(s);
}
/// Rule 3 for a tile that streams best unsplit once its tiles fill num/den of the SMs: one split there, else rule 3.
constexpr int split_k_unless_filled(index_t tiles, index_t k_tiles, int sms, int num, int den) {
  return den * tiles >= num * static_cast<index_t>(sms) ? 1 : split_k_for(tiles, k_tiles, sms);
}
constexpr bool swap_ab_for(index_t m, index_t n) { return m <= 64 && n >= 128; }        // rule 4: N fills the box rows
constexpr int swapped_tile_for(index_t m) { return m <= 16 ? 16 : m <= 32 ? 32 : 64; }  // the width that holds M
constexpr bool swapped_only_width(int w) { return w == 48 || w == 80 || w == 96; }      // 64 x 48, 80, 96 swapped, A:k
inline constexpr int kWideFirst = 80, kWideLast = 256, kWideStep = 16;  // 128 x w swapped, A:k; a unit each (CMake)
constexpr bool swapped_wide_width(int w) { return w % kWideStep == 0 && w >= kWideFirst && w <= kWideLast; }
constexpr bool fitted_width(int w) { return swapped_wide_width(w) && w % 64 != 0; }  // 128 x w unswapped, B:n or B:k
inline constexpr bool kFittedVerified = false;  // tier 1 passes, but with B:n they ran at half speed: off
/// The tile rows a call runs: the caller's where it set the tile (tile_m, tile_n or splits), else the plan's.
constexpr int planned_tile_m(const GemmTuning& asked, const GemmTuning& plan) {
  return asked.tile_m != 0 || asked.tile_n != 0 || asked.splits != 0 ? asked.tile_m : plan.tile_m;
}
/// The tile width a call runs: the caller's, else 128 for the unswapped 64-row tile (only 64 x 128), else the plan's.
constexpr int planned_tile_n(const GemmTuning& asked, int tile_m, const GemmTuning& plan) {
  if (asked.tile_n != 0) return asked.tile_n;
  return tile_m == 64 && plan.swap_ab != SwapAB::on ? 128 : plan.tile_n;
}
/// Rule 6: 16 tile rows a raster group for 128 x 256, the fewest DRAM bytes a wave (g ≈ sqrt(SMs x BN / 128)); else 8.
constexpr int raster_group_for(index_t /*tiles_m*/, index_t /*tiles_n*/, int tile_n, int /*sms*/) {
  return tile_n == 256 ? 16 : 8;
}
/// k13's tuning for M x N x K on `sms` SMs, keeping a forced width or swap; lines: rows_whole_lines(lda), (ldb).
/// Rule 4 (unfused): swapped; rule 4b: 64-row tiles unsplit where they fill half to one wave (two splits' CTAs without
///   their fixed cost); else rule 3, the 64-wide tile unsplit from 1/4 of the SMs.  Forced 16, 32 swap; 64..256 do not.
/// Rule 1, ≤ one wave of 128 x 128: 128 x 64 (twice the CTAs) at ≤ half the SMs, M > 64 and A's rows whole lines
///   (else it reads A twice as often, bound by L2's request rate), else 128 x 128.  Rule 1b: that 128 x 64, unfused,
///   B's rows whole, runs as 64 x 128 on one warpgroup (one m64n128 wgmma per k16 reads 6 KB of shared memory, two
///   m64n64 8 KB), unsplit at M ≤ 128 from 7/15 of the SMs (rule 3b: B's stream already keeps them busy).
/// Else rule 2 (best_width); rule 7 (fused): no swap, no 192, lacking fused instances.  Then rules 3 and 6.
constexpr GemmTuning plan_k13(index_t m, index_t n, index_t k, int sms, int force_tile_n = 0,
                              SwapAB force_swap = SwapAB::plan, bool a_rows_whole_lines = true, bool fused = false,
                              bool b_rows_whole_lines = true) {
  using namespace plan_detail;
  const index_t k_tiles = ceil_div(k, 64);
  const bool swap = force_swap == SwapAB::on ||
                    (force_swap == SwapAB::plan &&
                     (force_tile_n == 16 || force_tile_n == 32 || (force_tile_n == 0 && !fused && swap_ab_for(m, n))));
  if (swap) {
    const int w = force_tile_n != 0 ? force_tile_n : swapped_tile_for(m);
    const index_t tiles = tile_count(n, m, 128, w), tiles64 = tile_count(n, m, 64, w);
    if (force_tile_n == 0 && 2 * tiles <= sms && 2 * tiles64 > sms && tiles64 <= sms)  // rule 4b
      return GemmTuning{w, 1, SwapAB::on, raster_group_for(ceil_div(n, 64), ceil_div(m, w), w, sms), GemmJit::off, 64};
    const int splits = w == 64 ? split_k_unless_filled(tiles, k_tiles, sms, 1, 4) : split_k_for(tiles, k_tiles, sms);
    return GemmTuning{w, splits, SwapAB::on, raster_group_for(ceil_div(n, 128), ceil_div(m, w), w, sms)};
  }
  const index_t tiles_m = ceil_div(m, 128);
  int bn = force_tile_n;
  if (bn == 0 && tile_count(m, n) <= sms) {  // rule 1
    const bool narrow = 2 * tile_count(m, n) <= sms && m > 64 && a_rows_whole_lines;
    if (narrow && !fused && b_rows_whole_lines) {  // rule 1b, with rule 3b's split
      const index_t tiles = tile_count(m, n, 64, 128);
      const int splits =
          m <= 128 ? split_k_unless_filled(tiles, k_tiles, sms, 7, 15) : split_k_for(tiles, k_tiles, sms);
      return GemmTuning{
          128, splits, SwapAB::off, raster_group_for(ceil_div(m, 64), ceil_div(n, 128), 128, sms), GemmJit::off, 64};
    }
    bn = narrow ? 64 : 128;
  }
  if (bn == 0) {  // rule 2, counting only the columns inside N
    const auto score = [&](int w) {
      return width_score(tiles_m * ceil_div(n, w), w, static_cast<double>(n) / static_cast<double>(ceil_div(n, w) * w),
                         sms, !a_rows_whole_lines, !b_rows_whole_lines);
    };
    bn = fused ? best_width({256, 128}, 0, score) : best_width({256, 192, 128}, 0, score);
  }
  return GemmTuning{bn, split_k_for(tiles_m * ceil_div(n, bn), k_tiles, sms), SwapAB::off,
                    raster_group_for(tiles_m, ceil_div(n, bn), bn, sms)};
}
/// What k13 runs when named (GemmImpl::k13_wgmma_in_flight): the caller's tuning, each field left to the plan taken
/// from plan_k13 (rules 1-4, 6, 7; none of the later rules, which choose between steps). C++ example: at 2048 x 8192
/// x 1024 on 132 SMs, k13_tuning({}, 2048, 8192, 1024, 132) is 128 x 256 unsplit, raster group 16.
constexpr GemmTuning k13_tuning(const GemmTuning& asked, index_t m, index_t n, index_t k, int sms,
                                bool a_rows_whole_lines = true, bool fused = false, bool b_rows_whole_lines = true) {
  GemmTuning t = asked;
  if (t.tile_n != 0 && t.splits != 0 && t.swap_ab != SwapAB::plan && t.raster_group != 0) return t;
  const GemmTuning plan = plan_k13(m, n, k, sms, t.tile_n, t.swap_ab, a_rows_whole_lines, fused, b_rows_whole_lines);
  t.tile_m = planned_tile_m(asked, plan);
  t.tile_n = planned_tile_n(asked, t.tile_m, plan);
  if (t.splits == 0) t.splits = plan.splits;
  if (t.raster_group == 0) t.raster_group = plan.raster_group;
  t.swap_ab = plan.swap_ab;
  return t;
}
/// k14's tile (it neither swaps nor splits): the caller's tile_m, tile_n where set, else the unswapped plan's.
constexpr GemmTuning k14_tile(index_t m, index_t n, index_t k, int sms, const GemmTuning& asked) {
  const GemmTuning plan = plan_k13(m, n, k, sms, asked.tile_n, SwapAB::off);
  GemmTuning t = asked;  // tile_m ignores `asked.splits`: k14's launcher sets 1, not a tile the caller chose
  t.tile_m = planned_tile_m({asked.tile_n, 0, SwapAB::plan, 0, GemmJit::off, asked.tile_m}, plan);
  t.tile_n = planned_tile_n(asked, t.tile_m, plan);
  return t;
}
/// k13's fused instances: unswapped two-warpgroup 128 x 64, 128, 256 (192 is picked too rarely to pay nvcc time).
constexpr bool k13_fused_instance(const GemmTuning& t) {
  return t.swap_ab != SwapAB::on && t.tile_m != 64 && (t.tile_n == 64 || t.tile_n == 128 || t.tile_n == 256);
}
/// k13 fuses ahead of time with an instance, beta = 0 and no aux (with C or aux the fused epilogue spilled).
constexpr bool k13_fuses(const GemmTuning& t, float beta, bool aux) {
  return k13_fused_instance(t) && beta == 0.0f && !aux;
}
/// The paths of a k13 call with an epilogue: fused ahead of time, run-time compiled, or the kernel, then the epilogue.
enum class EpiloguePath : unsigned char { aot_fused, jit_specialized, unfused };
/// Run-time compilation is wanted on a fused instance's tile: GemmJit::always, or GemmJit::on where k13 cannot fuse.
constexpr bool k13_wants_jit(const GemmTuning& t, float beta, bool aux) {
  return k13_fused_instance(t) && (t.jit == GemmJit::always || (t.jit == GemmJit::on && !k13_fuses(t, beta, aux)));
}
/// The call's path: jit_specialized if wanted and `jit_ready` (nvcc found), else aot_fused if k13_fuses, else unfused.
constexpr EpiloguePath k13_epilogue_path(const GemmTuning& t, float beta, bool aux, bool jit_ready) {
  if (jit_ready && k13_wants_jit(t, beta, aux)) return EpiloguePath::jit_specialized;
  return k13_fuses(t, beta, aux) ? EpiloguePath::aot_fused : EpiloguePath::unfused;
}
/// "aot fused epilogue", "jit specialized epilogue", "unfused epilogue".
constexpr const char* name(EpiloguePath p) {
  constexpr const char* names[] = {"aot fused epilogue", "jit specialized epilogue", "unfused epilogue"};
  return static_cast<unsigned>(p) < 3 ? names[static_cast<unsigned>(p)] : "unknown";
}

/// Rule 5: the plan's unsplit unswapped 128 x 256 `t`, ≥ 8 waves, K 256..1024: k14, whose pairs read a third less L2.
constexpr bool k14_for(index_t m, index_t n, index_t k, int sms, const GemmTuning& t) {
  const index_t k_tiles = ceil_div(k, 64);
  return t.tile_n == 256 && t.splits == 1 && t.swap_ab != SwapAB::on && k_tiles >= 4 && k_tiles <= 16 &&
         plan_detail::tile_count(m, n, 128, 256) >= 8 * static_cast<index_t>(sms);
}
/// Rule 10: unsplit unswapped `t`, beta = 0, pingpong_fits: k15, one warpgroup's epilogue under the other's wgmmas.
constexpr bool k15_for(index_t m, index_t n, index_t k, int sms, const GemmTuning& t, float beta) {
  if (beta != 0.0f || t.splits != 1 || t.swap_ab == SwapAB::on) return false;
  return plan_detail::pingpong_fits(plan_detail::tile_count(m, n), plan_detail::flops(m, n, k), sms);
}
/// Rule 10c: not over A's straddled rows, nor B's past 8 k-tiles: k15's 128 x 128 tiles then ask 1.5x the line
/// requests of their tensor work (straddle_slowdown), and the main loop, not the epilogue k15 hides, is the time; with
/// A's rows straddling that holds at short K too (the rules table, 10c).
constexpr bool k15_straddled(index_t k, bool a_straddles, bool b_straddles) {
  return a_straddles || (b_straddles && ceil_div(k, 64) > 8);
}
/// Rule 10b: past 4e10 flops with K > 1024 a GEMM alone meets the power cap, where k15 (more L2 bytes) clocks lower.
constexpr bool k15_meets_cap(index_t m, index_t n, index_t k) { return plan_detail::flops(m, n, k) > 4e10 && k > 1024; }
/// Rule 12's domain: an unswapped two-warpgroup 128 x 128 `t` (split or not) on one wave, beta = 0 (one_wave_plan).
constexpr bool one_wave_for(index_t m, index_t n, int sms, const GemmTuning& t, float beta) {
  if (beta != 0.0f || t.tile_n != 128 || t.tile_m == 64 || t.swap_ab == SwapAB::on) return false;
  return plan_detail::tile_count(m, n) <= static_cast<index_t>(sms);
}
/// Rule 13: B's rows straddling lines, M > 64, unswapped, unsplit (k14's pairs are): the pairs multicast B's rows.
constexpr bool k14_straddle_for(index_t m, index_t n, int sms, const GemmTuning& t, bool b_rows_whole_lines) {
  return !b_rows_whole_lines && t.swap_ab != SwapAB::on && t.splits == 1 && m > 64 &&
         plan_detail::k14_pairs_fit_one_wave(m, n, sms);
}
/// Rule 13b: rule 1b's unsplit 64 x 128 `t`, M 65..82, beta = 0: k14, whose pairs share the B k13's thin row re-reads.
constexpr bool k14_thin_pair_for(index_t m, index_t n, int sms, const GemmTuning& t, float beta) {
  if (beta != 0.0f || t.swap_ab == SwapAB::on || t.tile_m != 64 || t.tile_n != 128 || t.splits != 1) return false;
  return m > 64 && m <= 82 && plan_detail::k14_pairs_fit_one_wave(m, n, sms);
}
/// Rule 17: B's rows straddling, >= 10^10 flops, k13's unsplit unswapped 128 x 128..256 or k15's `t`: k14's pairs
/// sharing B halve each CTA's straddled requests; not where odd tile rows idle > 1/16 of them or take more waves.
constexpr bool k14_shares_straddled_b(index_t m, index_t n, index_t k, int sms, const GemmTuning& t, bool b_whole) {
  if (b_whole || plan_detail::flops(m, n, k) < 1e10 || t.splits != 1 || t.split_tail || t.swap_ab == SwapAB::on ||
      t.tile_m == 64 || t.tile_n < 128)
    return false;
  const index_t rows = ceil_div(m, 128), cols = ceil_div(n, index_t{t.tile_n});
  return rows % 2 * 16 <= rows &&
         ceil_div(ceil_div(rows, 2) * cols, index_t{sms / 2}) <= ceil_div(rows * cols, index_t{sms});
}
/// Rule 11: a batch at beta = 0 passing pingpong_fits runs k15 batched, hiding the epilogue a short-K batch is made of.
constexpr bool k15_batched_for(index_t m, index_t n, index_t k, index_t batch, int sms, float beta) {
  if (beta != 0.0f || batch < 1) return false;
  return plan_detail::pingpong_fits(batch * plan_detail::tile_count(m, n), plan_detail::flops(m, n, k, batch), sms);
}
/// Rule 11b: tiles along N first (raster group 1) where one batch has a tile per SM, the only place it gained; else 8.
constexpr int batched_raster_group_for(index_t m, index_t n, int sms) {
  return plan_detail::tile_count(m, n) >= static_cast<index_t>(sms) ? 1 : 8;
}
/// Rule 11c: 3 stages, not 4, at K ≤ 128 where a batch has a tile per SM and a wave spans ≥ 4 tile rows (measured).
constexpr int batched_stages_for(index_t m, index_t n, index_t k, int sms) {
  const bool short_units = ceil_div(k, 64) <= 2;
  const bool wave_spans_rows = ceil_div(n, 128) * 4 <= static_cast<index_t>(sms);
  return short_units && plan_detail::tile_count(m, n) >= static_cast<index_t>(sms) && wave_spans_rows ? 3 : 4;
}
/// Rule 8: k13 grouped's one width, 256 or 128, by rule 2's score; `tiles_and_used(w, tiles, used, computed)` adds up
/// the launch's tiles and used and computed elements of D.
template <class Shapes>
constexpr int plan_group_tile(const Shapes& tiles_and_used, int sms) {
  return plan_detail::best_width({256, 128}, 256, [&](int w) {
    index_t tiles = 0;
    double used = 0.0, computed = 0.0;
    tiles_and_used(w, tiles, used, computed);
    return plan_detail::width_score(tiles, w, computed > 0.0 ? used / computed : 1.0, sms);
  });
}
/// Rule 8 for a strided batch: 128 where K ≤ 4 k-tiles (a tile is then mostly epilogue), else plan_group_tile.
constexpr int plan_batched_tile(index_t m, index_t n, index_t k, index_t batch, int sms) {
  if (ceil_div(k, 64) <= 4) return 128;
  return plan_group_tile(
      [&](int w, index_t& tiles, double& used, double& computed) {
        tiles = batch * plan_detail::tile_count(m, n, 128, w);
        used = static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n);
        computed = static_cast<double>(tiles) * 128.0 * w;
      },
      sms);
}

/// f11's split: full waves whole (`dp_tiles`), the rest (and a wave, for slices ≥ kMinSliceKTiles) along K by `sk_ctas`
/// CTAs unless ≥ 95 % of a wave; only the rest, because CTAs on slices of unrelated k read operands from DRAM.
struct StreamKSplit {
  index_t dp_tiles = 0, sk_tiles = 0;
  int sk_ctas = 0;
  constexpr bool operator==(const StreamKSplit&) const = default;
};
inline constexpr index_t kMinSliceKTiles = 8;
constexpr StreamKSplit stream_k_split(index_t tiles, index_t k_tiles, int sms) {
  const StreamKSplit whole{tiles, 0, 0};
  if (sms <= 0 || tiles <= 0 || tiles % sms == 0 || 20 * (tiles % sms) >= 19 * sms) return whole;
  const index_t rest = tiles % sms;
  if (rest * k_tiles >= kMinSliceKTiles * sms) return {tiles - rest, rest, sms};
  if (tiles > sms && (rest + sms) * k_tiles >= kMinSliceKTiles * sms) return {tiles - rest - sms, rest + sms, sms};
  return whole;
}

/// Rule 9 (fp32, any device; 128 x 256 tiles): f12 where an operand needs a copy, the copy pays (A's, ~53 / N of the
/// product: N ≥ 768 and 2^32 flops; B's, replacing a slower kernel: M ≥ 192) and f11 or f10 would run; else f11 where
/// stream_k_split shares and `tma_kernel`; else f10 at ≥ 90 % full waves; else f07.
constexpr GemmImpl fp32_step_for(index_t m, index_t n, index_t k, int sms, bool tma_kernel = true, bool copy_a = false,
                                 bool copy_b = false) {
  if (sms <= 0) return GemmImpl::f10_tma_loads;
  const index_t tiles = plan_detail::tile_count(m, n, 128, 256);
  const bool shares = stream_k_split(tiles, ceil_div(k, 16), sms).sk_ctas > 0;
  const bool full = 10 * tiles >= 9 * (ceil_div(tiles, sms) * sms);
  const bool a_pays = n >= 768 && plan_detail::flops(m, n, k) >= 4294967296.0;  // 2^32 flops
  if ((copy_a || copy_b) && (!copy_a || a_pays) && (!copy_b || m >= 192) && (shares || full))
    return GemmImpl::f12_operand_copies;
  if (tma_kernel && shares) return GemmImpl::f11_stream_k;
  return full ? GemmImpl::f10_tma_loads : GemmImpl::f07_two_ctas_per_sm;
}
}  // namespace tessel
