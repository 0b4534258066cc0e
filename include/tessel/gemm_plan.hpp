// tessel/gemm_plan.hpp — how tessel::gemm chooses, when the caller names no
// implementation (`--impl auto`): which kernel, which tile, how many splits of
// K.  Pure host arithmetic on the problem and the device's SM count, with no
// CUDA, so that every rule is unit-tested on the CPU (tests/gemm_plan_test.cpp)
// and the measurements behind it are in docs/heuristics.md.
#pragma once

#include <string>

#include "tessel/core/config.hpp"
#include "tessel/core/integer.hpp"
#include "tessel/gemm_types.hpp"

namespace tessel {

/// Whether k13 computes D^T = B^T A^T instead of D = A B (A and B swapped,
/// C and D read and written transposed), so that a small M becomes the
/// tile's narrow side (wgmma's N) instead of mostly empty rows of a 128-row
/// box.  `plan`: the plan decides (swap_ab_for).
enum class SwapAB : unsigned char { plan = 0, off = 1, on = 2 };

/// Run-time compilation of k13's fused epilogue (docs/design.md §6;
/// tessel/host/jit.hpp): an instance with the call's activation, bias kind,
/// C and aux as compile-time constants, compiled by nvcc on the first call of
/// that configuration (seconds to a minute) and cached on disk.
///   off     the ahead-of-time kernels only (the default)
///   on      compiled where the ahead-of-time set has no fused kernel for the
///           call: an epilogue with C (beta != 0) or aux, on a tile width
///           with fused instances (k13_fused_instance); every other call as
///           with off
///   always  every call with an epilogue on such a tile width (also those
///           the ahead-of-time fused instance serves): tests and comparisons
/// Where it is asked for and cannot run (no nvcc, a failed compile, a driver
/// without cudaLibraryLoadData), the call takes the ahead-of-time path and
/// says so (k13_epilogue_path, the Status's message, jit_last_message).
enum class GemmJit : unsigned char { off = 0, on = 1, always = 2 };

/// k13's knobs: the tile's width (128 rows by 64, 128, 192 or 256 columns;
/// with the swap, 128 rows of N by 16, 32 or 64 of M), the number of ranges K
/// is split into (1: no split) and the swap.  0 (SwapAB::plan) in a caller's
/// GemmTuning means "let the plan choose".
/// `raster_group`: the tile rows per group of the grouped raster in which
/// the persistent CTAs take their tiles (rule 6); 0 is the plan's.
/// `jit`: run-time compiled epilogues (GemmJit); the plan keeps the caller's.
/// `tile_m`: the tile's rows (of N, swapped): 0 or 128 (two consumer
/// warpgroups), or 64 (one consumer warpgroup): swapped 64 x 16, 32 or 64
/// (twice the CTAs without splitting K; docs/heuristics.md, rule 4b), or
/// unswapped 64 x 128 (tile_n 0 or 128; small problems, rule 1b).
/// `tune`: measured tuning for GemmImpl::automatic (also TESSEL_TUNE=1 in
/// the environment): the first call of a problem times the configurations
/// of tessel/gemm_tune.hpp that agree with the knobs set above, and the
/// fastest runs this call and every later one, kept in memory and in an
/// on-disk cache (docs/heuristics.md, "Measured tuning").
struct GemmTuning {
  int tile_n = 0;
  int splits = 0;
  SwapAB swap_ab = SwapAB::plan;
  int raster_group = 0;
  GemmJit jit = GemmJit::off;
  int tile_m = 0;
  bool tune = false;
};

/// What the plan chose and, in words, why (the bench's `note` column).
struct GemmPlan {
  GemmImpl impl = GemmImpl::k13_wgmma_in_flight;
  GemmTuning tuning{256, 1, SwapAB::off, 8};
  std::string why;
};

namespace plan_detail {

using tessel::ceil_div;  // core/integer.hpp's (a second copy here was ambiguous beside it)

/// The share of the SMs' tile slots that hold work, over all waves: tiles
/// 288 on 132 SMs run 3 waves of 132 slots, 288 / 396 = 0.73 of them busy.
constexpr double wave_efficiency(index_t units, int sms) {
  const index_t waves = ceil_div(units, sms);
  return static_cast<double>(units) / static_cast<double>(waves * sms);
}

/// Relative throughput of a full wave of each tile width against 128 x 256
/// (narrower tiles read more operand bytes per flop from L2 and shared
/// memory): k13 at 6144^3 on an H100, 678 / 651 / 604 TFLOP/s
/// (docs/heuristics.md).
constexpr double tile_speed(int tile_n) { return tile_n == 256 ? 1.0 : tile_n == 192 ? 0.96 : 0.89; }

/// Rule 10's test on `tiles` warpgroup tiles of 128 x 128 and `flops`: they
/// fill at least 90 % of the 2 x SMs slots over their waves, and the flops
/// are at most 2 x 10^12.
constexpr bool pingpong_fits(index_t tiles, double flops, int sms) {
  const index_t slots = 2 * static_cast<index_t>(sms);
  const index_t waves = ceil_div(tiles, slots);
  return tiles * 10 >= slots * waves * 9 && flops <= 2e12;
}
/// Do k14's 64 x 128 tiles of an M x N problem, paired with their
/// M-neighbour in clusters of two, fit one wave of clusters with two to
/// spare (rules 13 and 13b)?  A GPC with an odd SM count leaves an SM
/// unpaired, so at most sms / 2 - 2 pairs.  1000 x 1000: 8 x 8 = 64 pairs.
constexpr bool k14_pairs_fit_one_wave(index_t m, index_t n, int sms) {
  const index_t pairs = ceil_div(ceil_div(m, 64), 2) * ceil_div(n, 128);
  return pairs <= static_cast<index_t>(sms / 2 - 2);
}

}  // namespace plan_detail

/// Do rows of leading dimension `ld` (16-bit elements) reach TMA as whole
/// 128-byte lines?  Yes where ld is a multiple of 64, and where it is not a
/// multiple of 8 (TMA cannot read those rows: the padded copy, whose rows
/// are whole lines, is what the kernel reads).  Rules 1 and 1b read it.
/// C++ example: rows_whole_lines(1024) && !rows_whole_lines(1000) && rows_whole_lines(999).
constexpr bool rows_whole_lines(index_t ld) { return ld % 8 != 0 || ld % 64 == 0; }

/// Rule 3 (split K): a tile grid that fills at most half the SMs, over a K
/// of at least 64 k-tiles (4096), gets its K split into min(SMs / tiles, 4)
/// ranges.  Measured: two splits win 5-8 % at M <= 64, N = K = 8192 and at
/// 256 x 4096 x 4096, four at 32 x 4096 x 4096; more splits, or splits of a
/// short K, lose (the partials' traffic and the serial sum outweigh the SMs
/// gained).  (128 x 8192 x 8192 is the measured exception: one split is 4 %
/// faster than the two this rule gives.)
/// C++ example: split_k_for(64, 128, 132) == 2 (M = 16, N = K = 8192, 128 x 128 tiles).
constexpr int split_k_for(index_t tiles, index_t k_tiles, int sms) {
  if (2 * tiles > sms || k_tiles < 64) return 1;
  const index_t s = sms / tiles;
  return s > 4 ? 4 : static_cast<int>(s);
}

/// Rule 3 for a tile that streams best unsplit once its tiles fill num/den
/// of the SMs (rule 4's 64-wide swapped tile: 1/4; rule 3b's 64 x 128 tile
/// at M <= 128: 7/15): one split from there on, else split_k_for's.
/// C++ example: split_k_unless_filled(64, 128, 132, 7, 15) == 1; split_k_unless_filled(56, 128, 132, 7, 15) == 2.
constexpr int split_k_unless_filled(index_t tiles, index_t k_tiles, int sms, int num, int den) {
  return den * tiles >= num * static_cast<index_t>(sms) ? 1 : split_k_for(tiles, k_tiles, sms);
}

/// Rule 4 (swap A and B): M <= 64 with N >= 128.  k13 then computes D^T =
/// B^T A^T: N takes the tile's 128 rows (whole TMA boxes of B), M its 16, 32
/// or 64 columns (wgmma's N), instead of M filling 16 of A's 128 box rows
/// (the rest zero-filled by TMA into shared memory: at M = 16 each stage
/// writes 32 KB for 16 KB of B).  Below N = 128 the swapped tile would
/// be mostly empty rows in its turn, and the problem is at most 64 x 127:
/// the measured unswapped path stays.  (cuBLASLt runs a swapped 64 x 16 tile
/// at 16 x 8192 x 8192; measurement of this rule pending, docs/heuristics.md.)
constexpr bool swap_ab_for(index_t m, index_t n) { return m <= 64 && n >= 128; }

/// The swapped tile's width: the smallest of 16, 32, 64 that holds M (64 beyond).
constexpr int swapped_tile_for(index_t m) { return m <= 16 ? 16 : m <= 32 ? 32 : 64; }

/// The tile rows a call runs with: the caller's `asked.tile_m` where it set
/// the tile (tile_m, tile_n or splits), else the plan's (rule 4b's 64-row
/// tiles come only with the plan's own width and splits).
/// C++ example: planned_tile_m({}, {16, 1, SwapAB::on, 8, GemmJit::off, 64}) == 64.
constexpr int planned_tile_m(const GemmTuning& asked, const GemmTuning& plan) {
  return asked.tile_m != 0 || asked.tile_n != 0 || asked.splits != 0 ? asked.tile_m : plan.tile_m;
}

/// The tile width a call runs with: the caller's `asked.tile_n` where it set
/// one; else 128 where the call runs the unswapped one-warpgroup tile
/// (`tile_m` 64, from planned_tile_m, on a `plan` that does not swap: that
/// tile is 64 x 128 only); else the plan's.
/// C++ example: planned_tile_n({0, 0, SwapAB::off, 0, GemmJit::off, 64}, 64, {64, 1, SwapAB::off, 8}) == 128.
constexpr int planned_tile_n(const GemmTuning& asked, int tile_m, const GemmTuning& plan) {
  if (asked.tile_n != 0) return asked.tile_n;
  return tile_m == 64 && plan.swap_ab != SwapAB::on ? 128 : plan.tile_n;
}

/// Rule 6 (the raster's group): the tile rows per group of the grouped
/// raster.  The tiles that run at one time (one per SM) cover g tile rows by
/// about SMs / g tile columns; per k-tile they read g x 128 rows of A and
/// (SMs / g) x BN columns of B, each once from DRAM while they stay in step:
/// the g that minimizes the sum, about sqrt(SMs x BN / 128), reads the
/// fewest bytes per wave (16 for BN = 256 on 132 SMs).  Measured on an H100
/// (docs/heuristics.md, rule 6): the bytes follow the model (ncu at 4096 x
/// 4096 x 14336: 653 MB at g = 8, 521 at g = 16, cuBLASLt 529), and at the
/// power cap, each library alone, so does the time on the 128 x 256 tile
/// (4096 x 4096 x 14336 0.990 -> 1.002 of cuBLASLt, 4096^3 1.003 -> 1.005,
/// 8192^3 +1-2 %, the N-long llm shapes equal).  In one interleaved loop,
/// where both libraries share a clock, g did not matter, so the narrower tiles
/// keep k06's 8 (unmeasured alone).
/// C++ example: raster_group_for(32, 16, 256, 132) == 16; raster_group_for(32, 32, 128, 132) == 8.
constexpr int raster_group_for(index_t tiles_m, index_t tiles_n, int tile_n, int sms) {
  (void)tiles_m;
  (void)tiles_n;
  (void)sms;
  return tile_n == 256 ? 16 : 8;
}

/// k13's tile and split for an M x N x K problem on `sms` SMs.
/// Rule 1 (small grids): when even 128 x 128 tiles make at most one wave,
/// a narrow tile runs, for the most CTAs streaming: 128 x 64 (twice the CTAs)
/// where 128 x 128 would fill at most half the SMs and M > 64 (1024^3: 0.87
/// of cuBLAS against 0.76 with 128 x 128 and 0.59 with 128 x 256), else
/// 128 x 128.  At M <= 64 most of A's 128-row box is empty, and 128 x 128
/// with split K (rule 3) keeps more of B in flight per SM than 128 x 64
/// (16 x 8192 x 8192: 0.89 against 0.69; since rule 4, M <= 64 reaches
/// rule 1 only with N < 128 or the swap forced off).
/// Rule 1b: where rule 1 gives 128 x 64 and the call has no fused epilogue, the
/// same count of tiles runs as 64 x 128 on one consumer warpgroup (tile_m =
/// 64).  Each k16 step is then one m64n128 wgmma reading 6 KB of shared memory
/// instead of two m64n64 reading 8 KB.  Measured on an H100 (t_cublas / t, 128
/// x 64 then 64 x 128, two repeats): 1024^3 0.889 / 0.908, 1024 x 1024 x 4096
/// 0.796 / 1.020, 512 x 2048 x 4096 1.090 / 1.203, 768^3 0.854 / 0.885, 512^3
/// 0.823 / 0.876. Where A's rows are not whole lines it loses as 128 x 64 does
/// (1000^3 0.735, k15 0.885): rule 12 keeps those.  Where B's are not
/// (`b_rows_whole_lines` false), 128 x 64 stays: its 64-column box of B
/// straddles half as many lines per CTA (1000 x 1000 x 1024, B:n: 0.865 against
/// 0.786 in one run).
/// Rule 2 (tile): otherwise the width whose busy share of the SM slots,
/// times its full-wave speed, times the share of its columns inside N, is
/// largest wins, the widest on a tie.  3072^3: 288 tiles of 128 x 256 on 132
/// SMs keep 0.73 of three waves busy, 384 of 128 x 192 keep 0.97 of them:
/// 192 wins (0.96 of cuBLAS against 0.79).
/// Rule 1 keeps 128 x 128 where A's rows do not start on 128-byte lines
/// (`a_rows_whole_lines` false: lda a multiple of 8 but not of 64 elements, so
/// that TMA reads A as it is and every 128-byte box row straddles two L2
/// lines): the 128 x 64 tile reads A twice as often and is bound by the L2's
/// request rate there.  Measured on an H100: 1000^3 0.84 of cuBLASLt with 128 x
/// 128 against 0.70 with 128 x 64, 1024 x 1024 x 1000 (lda = 1000) 0.92 against
/// 0.75; with A's rows whole lines and B's not (1000 x 1000 x 1024, 1024 x 1000
/// x 1024) both widths tie (0.89).
/// Rule 4 comes first: a swapped problem gets the swapped width and rule 3 on
/// its (ceil(N/128) x ceil(M/width)) tiles, except the 64-wide tile, which is
/// not split once its tiles fill a quarter of the SMs, and except rule 4b's
/// grids, which run unsplit 64-row tiles (tile_m = 64) instead of splitting
/// 128-row ones; rules 1 and 2 are for unswapped ones.
/// Rule 7 (fused epilogue, `fused`: the call has a GemmEpilogue beyond
/// alpha/beta): k13's fused instances are the unswapped 128 x {64, 128, 256}
/// tiles (k13_fused_instance), so rule 4 does not swap and rule 2 chooses
/// between 256 and 128 only (rules 1 and 3 are unchanged).  A forced swap or
/// a forced width without a fused instance (16, 32, 192) is kept: the call
/// then runs unfused (the plain kernel, then the elementwise epilogue).
/// A forced width (force_tile_n) skips rules 1 and 2; rule 3 still applies.
/// A forced swap (force_swap on/off) skips rule 4.  With the plan's swap, a
/// forced 64, 128, 192 or 256 keeps the problem unswapped (what those widths
/// meant before the swap existed: forced tunings keep testing and timing the
/// unswapped kernel), and 16 or 32, the swapped kernel's only, swap it.
/// C++ example: plan_k13(4096, 4096, 4096, 132) == {256, 1, off}; plan_k13(16, 8192, 8192, 132) == {16, 1, on,
/// tile_m 64}; plan_k13(16, 4096, 4096, 132) == {16, 4, on}.
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
    // The 64-wide swapped tile streams best unsplit once its tiles fill a
    // quarter of the SMs (64 x 8192 x 8192, 64 tiles: 0.95 of cuBLASLt with
    // one split, 0.90 with rule 3's two); the 16- and 32-wide ones gain from
    // rule 3's splits (16 x 8192 x 8192: 0.92 against 0.90).
    const index_t tiles = ceil_div(n, 128) * ceil_div(m, w);
    // Rule 4b: where 128-row tiles fill at most half the SMs and 64-row ones
    // (one consumer warpgroup) fill more than half and at most one wave, the
    // 64-row tiles run unsplit: as many CTAs streaming as two splits give,
    // without split K's 2-2.5 us a call (N = K = 8192: M = 16 0.943 -> 0.995,
    // 32 0.99, 64 0.936 -> 0.962 of cuBLASLt).
    const index_t tiles64 = ceil_div(n, 64) * ceil_div(m, w);
    if (force_tile_n == 0 && 2 * tiles <= sms && 2 * tiles64 > sms && tiles64 <= sms)
      return GemmTuning{w, 1, SwapAB::on, raster_group_for(ceil_div(n, 64), ceil_div(m, w), w, sms), GemmJit::off, 64};
    const int splits = w == 64 ? split_k_unless_filled(tiles, k_tiles, sms, 1, 4) : split_k_for(tiles, k_tiles, sms);
    return GemmTuning{w, splits, SwapAB::on, raster_group_for(ceil_div(n, 128), ceil_div(m, w), w, sms)};
  }
  const index_t tiles_m = ceil_div(m, 128);
  int bn = force_tile_n;
  if (bn == 0 && tiles_m * ceil_div(n, 128) <= sms) {
    const bool narrow = 2 * tiles_m * ceil_div(n, 128) <= sms && m > 64 && a_rows_whole_lines;
    if (narrow && !fused && b_rows_whole_lines) {
      // Rule 1b: the narrow tile is 64 x 128 on one consumer warpgroup (one
      // m64n128 wgmma per k16 step, not two m64n64).
      const index_t tiles = ceil_div(m, 64) * ceil_div(n, 128);
      // Rule 3b: at M <= 128 (both tile rows read all of B), once the tiles
      // fill 7/15 of the SMs the call is B's stream, which the unsplit grid
      // already keeps busy: a split only adds its fp32 partials, counters and
      // reduction (~3 us).  H100, 64 tiles: 128 x 4096 x 8192 0.97 of cuBLASLt
      // unsplit against 0.91 with two splits; 58 tiles (128 x 3648 x 8192) and
      // 48 keep the splits (0.87 against 0.85; 0.81-0.88 against 0.78).
      const int splits =
          m <= 128 ? split_k_unless_filled(tiles, k_tiles, sms, 7, 15) : split_k_for(tiles, k_tiles, sms);
      return GemmTuning{
          128, splits, SwapAB::off, raster_group_for(ceil_div(m, 64), ceil_div(n, 128), 128, sms), GemmJit::off, 64};
    }
    bn = narrow ? 64 : 128;
  }
  if (bn == 0) {
    double best = -1.0;
    for (int w : {256, 192, 128}) {
      if (fused && w == 192) continue;  // rule 7: no fused 192-wide instance
      const index_t tiles = tiles_m * ceil_div(n, w);
      // A tile beyond N's extent is wasted work: count only the columns used.
      const double used = static_cast<double>(n) / static_cast<double>(ceil_div(n, w) * w);
      const double score = wave_efficiency(tiles, sms) * tile_speed(w) * used;
      if (score > best + 1e-9) {
        best = score;
        bn = w;
      }
    }
  }
  return GemmTuning{bn, split_k_for(tiles_m * ceil_div(n, bn), k_tiles, sms), SwapAB::off,
                    raster_group_for(tiles_m, ceil_div(n, bn), bn, sms)};
}

/// k14's tile for a call (k14 neither swaps nor splits): the caller's
/// tile_m and tile_n where set, else the unswapped plan's (rules 1, 1b, 2),
/// with planned_tile_n's one width for the 64-row tile.
/// C++ example: k14_tile(1024, 1024, 1024, 132, {}).tile_m == 64 (rule 1b: 64 x 128).
constexpr GemmTuning k14_tile(index_t m, index_t n, index_t k, int sms, const GemmTuning& asked) {
  const GemmTuning plan = plan_k13(m, n, k, sms, asked.tile_n, SwapAB::off);
  GemmTuning unsplit = asked;  // k14's launcher sets splits = 1: not a tile the caller chose
  unsplit.splits = 0;
  GemmTuning t = asked;
  t.tile_m = planned_tile_m(unsplit, plan);
  t.tile_n = planned_tile_n(asked, t.tile_m, plan);
  return t;
}

/// Does k13 have a fused-epilogue instance for tuning `t` (after the plan)?
/// The unswapped 128 x 64, 128 x 128 and 128 x 256 tiles, any split of K.
/// (192 would be a fourth translation unit of nvcc time for a width the
/// plan picks at few shapes; the swapped tiles write D transposed from
/// registers, a second fused path; the one-warpgroup tiles, tile_m 64, have
/// no fused instance either.)
/// C++ example: k13_fused_instance({256, 2, SwapAB::off}) == true; k13_fused_instance({192, 1, SwapAB::off}) == false.
constexpr bool k13_fused_instance(const GemmTuning& t) {
  return t.swap_ab != SwapAB::on && t.tile_m != 64 && (t.tile_n == 64 || t.tile_n == 128 || t.tile_n == 256);
}

/// Does k13 fuse a call's epilogue ahead of time: a fused instance at tuning
/// `t`, beta = 0 (C not read) and no auxiliary output?  With C or aux the
/// fused epilogue's extra values spilled (80 bytes at BN = 256, in a pass
/// over the accumulators), so those calls take the unfused path (the plain
/// kernel reading C, then the elementwise epilogue writing aux), unless the
/// tuning asks for run-time compilation (GemmJit, k13_epilogue_path below).
/// C++ example: k13_fuses({256, 1, SwapAB::off}, 0.0f, false) == true; k13_fuses({256, 1, SwapAB::off}, 1.0f, false) ==
/// false.
constexpr bool k13_fuses(const GemmTuning& t, float beta, bool aux) {
  return k13_fused_instance(t) && beta == 0.0f && !aux;
}

/// Which path a k13 call with an epilogue takes at tuning `t` (after the
/// plan), in the plan's words (gemm_plan's `why`, the bench's note):
///   aot_fused        the ahead-of-time fused instance (k13_fuses)
///   jit_specialized  a run-time compiled instance (GemmJit; `jit_ready`:
///                    an nvcc and tessel's headers were found)
///   unfused          the plain kernel, then gemm_epilogue_apply over D
/// Run-time compilation applies where k13_fused_instance(t) holds and the
/// tuning asks for it (GemmJit::always; GemmJit::on where k13_fuses does
/// not hold); asked for without `jit_ready`, the call takes the
/// ahead-of-time path.
/// C++ example: k13_epilogue_path({256, 1, SwapAB::off, 8, GemmJit::on}, 1.0f, false, true) ==
/// EpiloguePath::jit_specialized.
enum class EpiloguePath : unsigned char { aot_fused, jit_specialized, unfused };
constexpr bool k13_wants_jit(const GemmTuning& t, float beta, bool aux) {
  return k13_fused_instance(t) && (t.jit == GemmJit::always || (t.jit == GemmJit::on && !k13_fuses(t, beta, aux)));
}
constexpr EpiloguePath k13_epilogue_path(const GemmTuning& t, float beta, bool aux, bool jit_ready) {
  if (jit_ready && k13_wants_jit(t, beta, aux)) return EpiloguePath::jit_specialized;
  return k13_fuses(t, beta, aux) ? EpiloguePath::aot_fused : EpiloguePath::unfused;
}
/// "aot fused epilogue", "jit specialized epilogue", "unfused epilogue".
constexpr const char* name(EpiloguePath p) {
  switch (p) {
    case EpiloguePath::aot_fused:
      return "aot fused epilogue";
    case EpiloguePath::jit_specialized:
      return "jit specialized epilogue";
    case EpiloguePath::unfused:
      return "unfused epilogue";
  }
  return "unknown";
}

/// Rule 5 (k14 for short K; never with a fused epilogue, rule 7: k14 has no
/// fused instance): the plan's k13 tuning `t` runs as k14 (clusters of two CTAs
/// that multicast their shared B tile) when it is 128 x 256 unsplit and
/// unswapped, the grid holds at least 8 waves of tiles and K is 4 to 16 k-tiles
/// (256 to 1024).  There the operand loads are a large share of each tile's
/// time and k14 reads a third fewer bytes from L2.  Measured on an H100, k13 /
/// k14 with interleaved timing: 8192 x 8192 x 256 0.905 / 0.932, 16384 x 8192 x
/// 256 0.891 / 0.931, 8192 x 8192 x 512 0.940 / 0.960, 8192 x 8192 x 1024 0.941
/// / 0.953; k14 loses on a small grid (4096 x 4096 x 256, 512 tiles: 0.933 /
/// 0.907) and at K = 128 (16384 x 16384 x 128: 0.988 / 0.959), and ties with
/// k13 from K = 4096 up.
/// C++ example: k14_for(8192, 8192, 256, 132, {256, 1, SwapAB::off}) == true.
constexpr bool k14_for(index_t m, index_t n, index_t k, int sms, const GemmTuning& t) {
  using namespace plan_detail;
  const index_t k_tiles = ceil_div(k, 64);
  const index_t tiles = ceil_div(m, 128) * ceil_div(n, 256);
  return t.tile_n == 256 && t.splits == 1 && t.swap_ab != SwapAB::on && k_tiles >= 4 && k_tiles <= 16 &&
         tiles >= 8 * static_cast<index_t>(sms);
}

/// Rule 10 (k15, pingpong; checked before rule 5): the plan's k13 tuning `t`
/// runs as k15 (each consumer warpgroup on its own 128 x 128 tile, one's
/// epilogue behind the other's wgmmas) when t is unsplit and unswapped, beta =
/// 0 (k15 reads no C), the 128 x 128 tiles fill at least 90 % of the CTAs' 2 x
/// SMs warpgroup slots over their waves, and the problem is at most 2 x 10^12
/// flops.  Measured on an H100 (t_cublas / t over the suite, auto then k15):
/// 2048^3 0.93 / 1.00, 4096^3 0.98 / 0.99, 6144^3 0.99 / 1.01, 8192^3 1.01 /
/// 1.03, 4096 x 14336 x 4096 0.98 / 1.01, 8192 x 8192 x 256 0.92 (k14) / 1.01;
/// against it where the waves are ragged (3072^3: 576 tiles on 264 slots fill
/// 0.73 of 3 waves, 0.97 / 0.90) and past the flop bound (8192 x 28672 x 8192,
/// 3.9 x 10^12: 1.00 / 0.83; 16384^3 1.02 / 0.88).  The bound is the 700 W cap:
/// at ncu's locked clock k15 is as fast as k13 at 8192 x 28672 x 8192 (5.07 vs
/// 5.11 ms) but executes 1.7x the instructions and reads 1.8x the L2 sectors
/// and 1.18x the DRAM bytes, so in a run long enough to meet the cap its clock
/// falls further (docs/ladder.md, k15).
/// C++ example: k15_for(4096, 4096, 4096, 132, {256, 1, SwapAB::off}, 0.0f) == true.
constexpr bool k15_for(index_t m, index_t n, index_t k, int sms, const GemmTuning& t, float beta) {
  using namespace plan_detail;
  if (beta != 0.0f || t.splits != 1 || t.swap_ab == SwapAB::on) return false;
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return pingpong_fits(ceil_div(m, 128) * ceil_div(n, 128), flops, sms);
}

/// Rule 10b: where the GEMM meets the card's power cap when it runs alone, it
/// stays k13's and k15 does not take it: more than 4 x 10^10 flops with K >
/// 1024.  Each kernel alone (`--order blocks`, H100, four repeats; t_cublas / t
/// and the SM clock, k15 then k13): 4096^3 0.939 at 1574 MHz / 1.000 at 1625,
/// 4096 x 6144 x 4096 0.948 / 0.984, 4096 x 14336 x 4096 0.952 / 0.983, 4096 x
/// 4096 x 14336 0.920 / 0.986, 6144^3 0.945 / 0.989, 8192^3 0.951 / 0.977, 2048
/// x 2048 x 8192 0.930 / 1.000, 4096 x 4096 x 2048 0.986 / 0.998; below the
/// bound k15 stays ahead: 2048^3 1.008 / 0.996 and 4096 x 4096 x 1024 0.999 /
/// 0.994, both at 1967-1980 MHz.  At ncu's locked clock k15 takes fewer cycles
/// than k13 and cuBLASLt at 4096^3 (277.6k, 287.9k, 281.8k per SM), but it
/// reads 1.6 GB from L2 per GEMM against 0.93 GB for k13 and 1.04 GB for
/// cuBLASLt, and alone at the cap it runs 50-110 MHz below k13.  The
/// interleaved loop (ours and cuBLASLt in turn, the bench's default) averages
/// the two kernels' power, so there k15 stays 1-3 % ahead of k13 at the same
/// shapes; the plan follows the kernel run alone, as an application runs it.
/// With a fused bias + GELU at 4096^3, alone against cuBLASLt's GELU_BIAS: k15
/// fused 0.949 at 1572 MHz, k13 fused 0.980-0.994 at 1704-1715.
/// C++ example: k15_meets_cap(4096, 4096, 4096) == true; k15_meets_cap(8192, 8192, 256) == false.
constexpr bool k15_meets_cap(index_t m, index_t n, index_t k) {
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return flops > 4e10 && k > 1024;
}

/// Rule 12 (k15 on a one-wave grid of 128 x 128 tiles; after rule 10): where
/// the plan's k13 tuning `t` is 128 x 128, unsplit and unswapped with its tiles
/// at most the SMs (rule 1: 67..132 tiles, or any count up to the SMs where A's
/// rows are not whole 128-byte lines), and beta = 0 (the caller adds: no
/// epilogue), k15 runs the tiles instead, one per CTA on one of its warpgroups
/// (two m64 atoms along M) rather than k13's two (one m64 atom each).  Measured
/// on an H100 (t_cublas / t, k13 then k15, same runs): A's rows not whole lines
/// (three repeats): 1000^3 0.818 / 0.848, 1000 x 1000 x 4000 0.812 / 0.824,
/// 1000 x 2000 x 1000 0.788 / 0.829, 520 x 1000 x 1000 0.660 / 0.693, 200 x
/// 1000 x 2000 0.539 / 0.556, 1016^3 0.820 / 0.834; whole lines (9 shapes x 2
/// layouts, two repeats): k15 ahead on all 18 rows by 2-9 % (2048 x 1024 x 1024
/// 0.925 / 0.983, 1280^3 0.890 / 0.931, 2048 x 1024 x 8192 0.930 / 0.987, 1024
/// x 1536 x 4096 0.987 / 1.007).  Where rule 1 gives 128 x 64 (aligned rows, at
/// most half the SMs in 128 x 128 tiles) it stays: 1024^3 k13 0.94, k15 0.82.
/// Why one warpgroup on the whole tile beats two on halves was not measured.
/// C++ example: k15_small_grid_for(1000, 1000, 132, {128, 1, SwapAB::off}, 0.0f) == true.
constexpr bool k15_small_grid_for(index_t m, index_t n, int sms, const GemmTuning& t, float beta) {
  using namespace plan_detail;
  if (beta != 0.0f || t.tile_n != 128 || t.tile_m == 64 || t.splits != 1 || t.swap_ab == SwapAB::on) return false;
  return ceil_div(m, 128) * ceil_div(n, 128) <= static_cast<index_t>(sms);
}

/// Rule 13 (k14 on 64 x 128 tiles where B's rows straddle lines; before rule
/// 12): where ldb is a multiple of 8 but not of 64 elements
/// (`b_rows_whole_lines` false: every row of B's TMA box straddles 128-byte
/// lines), the plan's k13 tuning `t` is unswapped, M > 64 (the caller adds: no
/// epilogue, the tuning left to the plan), and the 64 x 128 tiles' pairs of
/// M-neighbours fit one wave of clusters of two with two clusters to spare (a
/// GPC with an odd SM count leaves an SM unpaired: at most sms / 2 - 2 pairs),
/// k14 runs the problem as 64 x 128 tiles on clusters that multicast their
/// shared B tile: each CTA requests half of B's straddling rows from L2.
/// cuBLASLt runs 1000^3 so (`nvjet_sm90_tst_64x128_64x8_2x1_...`).  Measured on
/// an H100 after k14's start and end lost their cluster-wide fence and barrier
/// (t_cublas / t, k14 64 x 128 then the plan before, two repeats): 1000^3 0.914
/// / 0.896 (0.934 / 0.889 in an earlier run; every layout ahead, fp32 D 0.946 /
/// 0.892), 1000 x 1000 x 4000 0.903 / 0.852, 1000 x 1000 x 8000 0.905 / 0.712,
/// 1024 x 1000 x 1024 (only B's rows straddle) 0.971 / 0.839, 800 x 1000 x 1000
/// 0.932 / 0.839, 520 x 1000 x 1000 0.849 / 0.70, 200 x 1000 x 2000 0.873 /
/// 0.579, 1000 x 1000 x 520 0.920 / 0.886, 1016^3 0.887 / 0.884.  With C (beta
/// = 1) 1000^3 0.862 against k13's 0.779.  Not where only A's rows straddle
/// (1024 x 1024 x 1000: 0.909 against k15's 0.947: the cluster shares B, not
/// A), nor past one wave (1000 x 2000 x 1000, 128 pairs: 0.750 against 0.849;
/// 2112 x 512 x 1000, 66 pairs: 0.673, two waves of clusters on this H100,
/// against 0.930 at 2048 x 512 x 1000, 64 pairs).
/// C++ example: k14_straddle_for(1000, 1000, 132, {128, 1, SwapAB::off}, false) == true (64 pairs).
constexpr bool k14_straddle_for(index_t m, index_t n, int sms, const GemmTuning& t, bool b_rows_whole_lines) {
  using namespace plan_detail;
  if (b_rows_whole_lines || t.swap_ab == SwapAB::on || m <= 64) return false;
  return k14_pairs_fit_one_wave(m, n, sms);
}

/// Rule 13b (k14_thin_pair_for, after rule 13): where rule 1b gave the plan's
/// k13 tuning `t` 64 x 128 tiles, unswapped and unsplit, and M is 65..82 (the
/// second tile row holds at most 18 of its 64 rows), beta = 0 (the caller adds:
/// no epilogue, the tuning left to the plan), and the pairs of M-neighbours fit
/// one wave of clusters of two with two to spare (as rule 13), k14 runs the
/// problem as 64 x 128 tiles on clusters that multicast their shared B tile.
/// In k13 the CTAs of the nearly empty second row stream all of B beside the
/// first row's; under ncu at 80 x 8192 x 8192 k13 took 58.1 us at 70 % of DRAM
/// bandwidth, k14 49.9 us and cuBLASLt's 2-CTA-cluster kernel 50.8.  Measured
/// on an H100 (t_cublas / t, three repeats, k13 then k14): 65 x 8192 x 8192
/// 0.756 / 0.884, 72 x 8192 x 8192 0.790 / 0.927, 80 x 8192 x 8192 0.834 /
/// 0.961 (0.917 / 0.968 in another run), 80 x 8192 x 4096 0.860 / 0.958, 80 x
/// 6144 x 8192 0.916 / 0.963.  Not above 80: 88 x 8192 x 8192 0.984 / 0.979, 96
/// x 8192 x 8192 0.993 / 0.991 (0.993 / 0.986 in another run), 96 x 8192 x 4096
/// 0.986 / 0.977, 104..128 level or behind; at the bound (three runs each): 82
/// x 8192 x 8192 0.908-0.925 / 0.960-0.964, 84 x 8192 x 8192 0.965-0.974 /
/// 0.964-0.973 (level).
/// C++ example: k14_thin_pair_for(80, 8192, 132, {128, 1, SwapAB::off, 0, GemmJit::off, 64}, 0.0f) == true.
constexpr bool k14_thin_pair_for(index_t m, index_t n, int sms, const GemmTuning& t, float beta) {
  using namespace plan_detail;
  if (beta != 0.0f || t.swap_ab == SwapAB::on || t.tile_m != 64 || t.tile_n != 128 || t.splits != 1) return false;
  if (m <= 64 || m > 82) return false;
  return k14_pairs_fit_one_wave(m, n, sms);
}

/// Rule 11 (k15 for a strided batch; before rule 8): `batch` problems of M x N
/// x K with beta = 0 and no epilogue run as k15's batched kernel
/// (k15_grouped.cuh: the pingpong warpgroups over k13 grouped's units of
/// (batch, tile)) when their 128 x 128 tiles over every batch pass rule 10's
/// test (90 % of the 2 x SMs slots over the waves, at most 2 x 10^12 flops in
/// all).  Why: a short-K batch is mostly its epilogue, which k13's batched
/// kernel does not overlap (batch 32, K = 128: 0.82 at 512 x 512 and 0.85 at
/// 2048 x 2048 of cuBLASLt strided batched); k15 hides one warpgroup's epilogue
/// behind the other's loads and wgmmas.
/// C++ example: k15_batched_for(512, 512, 128, 32, 132, 0.0f) == true (512 tiles fill 0.97 of 2 x 264).
constexpr bool k15_batched_for(index_t m, index_t n, index_t k, index_t batch, int sms, float beta) {
  using namespace plan_detail;
  if (beta != 0.0f || batch < 1) return false;
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(batch);
  return pingpong_fits(batch * ceil_div(m, 128) * ceil_div(n, 128), flops, sms);
}

/// Rule 11b (the raster of rule 11's batches): tiles along N first (raster
/// group 1) where one batch has at least a tile per SM, else rule 6's 8.
/// Measured on an H100 (k15 batched at 4 stages, group 8 and 1 alternating
/// twice, t_cublas / t): 8 x 4096^2 x 128 1.020 -> 1.034, 32 x 1024 x 4096 x
/// 128 0.967 -> 0.992, 32 x 2048^2 x 128 0.989 -> 0.992 (each a batch of 1024,
/// 256, 256 tiles); where a batch has fewer tiles than SMs group 1 was level or
/// behind: 16 x 2048 x 1024 x 256 (128 tiles) 0.981 -> 0.972, 64 x 1024^2 x 64
/// (64) 0.984 both, 32 x 512^2 x 128 (16) 0.965 -> 0.956.  Why the order
/// matters where every tile of a batch is in flight at once with either group
/// was not measured; the store pattern alone (k15's TMA stores without the
/// math) writes D 0.5 % faster along N.
/// C++ example: batched_raster_group_for(2048, 2048, 132) == 1 (256 tiles a batch).
constexpr int batched_raster_group_for(index_t m, index_t n, int sms) {
  using namespace plan_detail;
  return ceil_div(m, 128) * ceil_div(n, 128) >= static_cast<index_t>(sms) ? 1 : 8;
}

/// Rule 11c (the depth of rule 11's pipeline): 3 stages where a unit is at most
/// two k-tiles (K <= 128), one batch has at least a tile per SM (rule 11b's
/// group 1), and a wave of SMs units spans at least four tile rows (tile
/// columns x 4 <= SMs, N <= 4096 on an H100); else 4.  Measured on an H100 (3
/// against 4 stages, t_cublas / t): ahead on every batch that passes, 32 x
/// 2048^2 x 128 0.995 -> 1.041, 32 x 1024 x 4096 x 128 0.960 -> 1.035, 8 x
/// 4096^2 x 128 1.017 -> 1.052, 16 x 2048^2 x 128 1.018 -> 1.042, 32 x 2048^2 x
/// 96 0.986 -> 1.040, and on 16 x 8192 x 2048 and 8 x 8192 x 4096 x 128, chosen
/// after the rule to test it (0.980 -> 1.041, 1.024 -> 1.045); behind where a
/// wave spans two tile rows (64 tile columns: 4 x 4096 x 8192 x 128 0.987 ->
/// 0.944, 8 x 2048 x 8192 x 128 0.970 -> 0.943), with fewer tiles than SMs (32
/// x 512^2 x 128 1.05 -> 0.98, 32 x 1024 x 2048 x 128 1.010 -> 0.971) and with
/// longer units (K = 192: 0.95 -> 0.85; K = 256, 512: 4-18 %). Why the
/// shallower ring wins where it does was not found: ncu at base clocks has 3
/// stages slower on all three batches it measured, with the same DRAM bytes.
/// C++ example: batched_stages_for(2048, 2048, 128, 132) == 3; batched_stages_for(4096, 8192, 128, 132) == 4.
constexpr int batched_stages_for(index_t m, index_t n, index_t k, int sms) {
  using namespace plan_detail;
  const index_t tiles_n = ceil_div(n, 128);
  const bool short_units = ceil_div(k, 64) <= 2;
  const bool wave_spans_rows = tiles_n * 4 <= static_cast<index_t>(sms);
  return short_units && ceil_div(m, 128) * tiles_n >= static_cast<index_t>(sms) && wave_spans_rows ? 3 : 4;
}

/// Rule 8 (batched and grouped: one width for the whole launch).  k13's
/// batched and grouped kernel (k13_grouped.cuh) runs 128 x 256 or 128 x 128
/// tiles, never split and never swapped; the width is rule 2's choice over
/// every tile of the launch: the busy share of the SM slots over all waves,
/// times the width's full-wave speed, times the share of the computed
/// columns that lie inside N, the widest on a tie.  `tiles_and_used(w,
/// tiles, used, computed)` adds up, for width w, the launch's tiles and its
/// used and computed elements of D (M x N and the tiles' 128 x w each).
/// Examples: 32 x 512 x 512 (16 tiles of 128 x 128 per batch, 512 in all; 256
/// of 128 x 256, two waves on 132 SMs at 0.97 busy) gives 256; the MoE group
/// (N = 4096, M from 64 to 2048, 6336 rows: 800 tiles of 128 x 256 in 7 waves
/// at 0.87 busy, against 1600 of 128 x 128 at 0.93 x 0.89) gives 256.
template <class Shapes>
constexpr int plan_group_tile(const Shapes& tiles_and_used, int sms) {
  using namespace plan_detail;
  int bn = 256;
  double best = -1.0;
  for (int w : {256, 128}) {
    index_t tiles = 0;
    double used = 0.0, computed = 0.0;
    tiles_and_used(w, tiles, used, computed);
    const double score = wave_efficiency(tiles, sms) * tile_speed(w) * (computed > 0.0 ? used / computed : 1.0);
    if (score > best + 1e-9) {
      best = score;
      bn = w;
    }
  }
  return bn;
}

/// Rule 8 for `batch` problems of M x N x K: 128 x 128 where K is at most 4
/// k-tiles (256), else plan_group_tile over batch x tiles.  With K that short a
/// tile is mostly its epilogue, and the narrower tile, with twice the tiles and
/// stages, measured faster on an H100 (batch 32, K = 128, against cuBLASLt
/// strided batched: 512 x 512 0.70 with 128 x 128 against 0.42 with 128 x 256;
/// 2048 x 2048 0.60 against 0.52).
/// C++ example: plan_batched_tile(512, 512, 4096, 32, 132) == 256; plan_batched_tile(512, 512, 128, 32, 132) == 128.
constexpr int plan_batched_tile(index_t m, index_t n, index_t k, index_t batch, int sms) {
  using namespace plan_detail;
  if (ceil_div(k, 64) <= 4) return 128;
  return plan_group_tile(
      [&](int w, index_t& tiles, double& used, double& computed) {
        tiles = batch * ceil_div(m, 128) * ceil_div(n, w);
        used = static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n);
        computed = static_cast<double>(tiles) * 128.0 * w;
      },
      sms);
}

/// f11's split of `tiles` output tiles of `k_tiles` k-tiles each over `sms`
/// SMs (one CTA per SM): the tiles of all full waves run whole (`dp_tiles`,
/// one CTA each); the remainder (`sk_tiles`, fewer than a wave) is shared
/// along K by `sk_ctas` CTAs of equal slices.  Where the remainder is too
/// small for slices of kMinSliceKTiles k-tiles, the last full wave is shared
/// with it.  No sharing (sk_ctas 0, every tile whole) where the waves are
/// whole or the last one is at least 95 % full, or where even then a slice
/// would be shorter than kMinSliceKTiles k-tiles.
/// Why only the remainder: CTAs on slices run at unrelated k positions, so
/// their operands come from DRAM (f11 at 4096^3 with a wave and the remainder
/// shared: 1.70 GB read from DRAM, L2 hit rate 34 %; f10: 0.34 GB, 79 %), and
/// the fewer tiles are shared the less that costs: A:m 0.994 -> 1.018 of cuBLAS
/// at 4096^3, 1.012 -> 1.017 at 8192^3 (H100).
/// C++ example: stream_k_split(512, 256, 132) == StreamKSplit{396, 116, 132} (4096^3:
/// 3 waves whole, 116 tiles in 132 slices of 224 or 225 k-tiles);
/// stream_k_split(528, 256, 132) == StreamKSplit{528, 0, 0} (4 whole waves).
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

/// Rule 9 (fp32 inputs), where A is M-major and B N-major with rows TMA can
/// read (no copy: `copy_a` and `copy_b` false): f11 (f10's 128 x 256 tile,
/// one CTA of 8 warps per SM, with the tiles of the last partial wave shared
/// along K by every SM: stream-K) where stream_k_split shares tiles; else
/// f10 where its waves are at least 90 % full; else f07 (128 x 128 tiles,
/// two CTAs per SM), left the problems too small to share (fewer than 8
/// k-tiles of 16 per SM).
/// Where f12 would copy an operand (`copy_a`: A K-major or rows TMA cannot
/// read; `copy_b` likewise for B): f12 (f11 on A:m, B:n copies) where the
/// copies pay and f11 or f10 would run by the rules above.  A's copy costs
/// about 53 / N of the product's time (1.3 % at N = 4096) and a launch,
/// against f11's A:k kernel, ~10 % slower than its A:m one: it pays from
/// N = 768 and 2^32 flops (1000 x 1000 x 8192 +1.5 %, 1536^3 +2.7 %;
/// 1024^3, 2 GFLOP, behind).  B's copy replaces f08's or f07's kernel
/// (f10's and f11's TMA kernel needs B N-major; they ran 0.41-0.62 of cuBLAS
/// at 1000-1536): it pays from M = 192 (1000 x 1000 x 8192 0.914 against
/// f07's 0.408, 1024^3 0.834 against 0.559, 200 x 6000 x 3000 0.861 against
/// 0.701; its cost, ~53 / M of the product, would match f07's loss near
/// M = 128).  Else
/// those rules, with f10's and f11's
/// TMA kernel only where it takes the problem as it is (`tma_kernel`: B
/// N-major, rows TMA can read; elsewhere f10 runs f08's kernel).
/// Measured (H100): A:m, B:n f11 1.020 / 1.017 of cuBLAS at 4096^3 / 8192^3
/// (f10 0.988 / 0.966); in partial waves f11 at 3072^3 1.09 (A:m) and 1.04
/// (A:k), f07 there 0.90; where the waves are whole (or the last one 95 % full,
/// 2048^3) f11 shares nothing and f10 runs (f11's kernel on f10's grid: 2-5 %
/// under f10).  f12 at 4096^3 / 8192^3: A:k, B:n 1.013 / 1.044 (f10 0.922 /
/// 0.924), A:m, B:k 1.057 / 1.058 (0.930 / 0.910), A:k, B:k 1.003 / 1.033
/// (0.894 / 0.892); at 2048^3 0.935, 0.964, 0.911 against f10's 0.918, 0.922,
/// 0.888.
/// C++ example: fp32_step_for(4096, 4096, 4096, 132) == f11 (512 tiles, last wave 116);
/// fp32_step_for(4096, 4096, 4096, 132, true, true) == f12 (A copied: N >= 768, 137 GFLOP);
/// fp32_step_for(2048, 2048, 2048, 132) == f10 (128 tiles, 97 % of a wave);
/// fp32_step_for(256, 256, 256, 132) == f07 (2 tiles of 16 k-tiles).
constexpr GemmImpl fp32_step_for(index_t m, index_t n, index_t k, int sms, bool tma_kernel = true, bool copy_a = false,
                                 bool copy_b = false) {
  if (sms <= 0) return GemmImpl::f10_tma_loads;
  const index_t tiles = plan_detail::ceil_div(m, 128) * plan_detail::ceil_div(n, 256);
  const index_t slots = plan_detail::ceil_div(tiles, sms) * sms;
  const bool shares = stream_k_split(tiles, plan_detail::ceil_div(k, 16), sms).sk_ctas > 0;
  const bool full = 10 * tiles >= 9 * slots;
  const bool a_pays = n >= 768 && 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >=
                                      4294967296.0;  // 2^32 flops
  if ((copy_a || copy_b) && (!copy_a || a_pays) && (!copy_b || m >= 192) && (shares || full))
    return GemmImpl::f12_operand_copies;
  if (tma_kernel && shares) return GemmImpl::f11_stream_k;
  if (full) return GemmImpl::f10_tma_loads;
  return GemmImpl::f07_two_ctas_per_sm;
}

}  // namespace tessel
