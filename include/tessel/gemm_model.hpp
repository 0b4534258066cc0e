// tessel/gemm_model.hpp — how `auto` chooses for a single 16-bit GEMM on
// sm_90 (plan_single): below kModelMaxFlops a cost model predicts the time of
// every configuration tessel::gemm can run (gemm_candidates,
// tessel/gemm_tune.hpp) and the fastest prediction runs; above it, the rules
// of tessel/gemm_plan.hpp, measured with sustained runs at the power cap.
// Plain host arithmetic, no CUDA: tested on the CPU against a table of
// problems and the choice expected for each (tests/gemm_plan_test.cpp,
// tests/data/plan_cases.tsv).
//
// The model, per configuration (a kernel and its tile: a "family"):
//   waves    ceil(tiles x splits / slots); slots: the SMs (k15: two tiles a
//            CTA; k14: the pairs the GPCs hold)
//   k-step   one 64-deep slice of a tile: the family's tensor-core time
//            `mma_ns`, slowed by `straddle_a` / `straddle_b` where A's or B's
//            rows start inside 128-byte lines (a leading dimension that is a
//            multiple of 8 elements but not of 64: each TMA box row reads two
//            lines), against the tile's operand bytes over one SM's load
//            bandwidth (the larger, smoothly)
//   time     fixed + max(waves x (k-steps x k-step + unit_ns), the compulsory
//            DRAM bytes over the bandwidth) + split K's cost (a fixed part and
//            one L2 round trip per pass of the last unit's sum) + the padded
//            copy of rows TMA cannot read + D from registers where TMA cannot
//            store its rows (register_store_us)
// Fitted (by fit_plan_model.py) to every configuration timed by
// `--impl tuned` on 1,400 random problems of docs/bench-protocol.md's
// distribution and the suite, on an H200; docs/heuristics.md, "The model".
// Why only below kModelMaxFlops: there a call is bound by bandwidth, latency
// and fixed costs, which the short timings the model was fitted to measure
// as an application sees them; above it a call runs at the power cap, where
// short timings favour tiles that lose in sustained runs (k15, 128 x 128).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tessel/gemm_launch_model.hpp"
#include "tessel/gemm_tune.hpp"

namespace tessel {

/// One family's fitted constants.
struct ModelFamily {
  GemmImpl impl;
  int tile_m, tile_n;
  bool swap;
  double mma_ns;      // one k-step's tensor-core time
  double unit_ns;     // a work unit's fixed time (pipeline fill, epilogue of a 16-bit D)
  double straddle_a;  // extra k-step time where A's rows straddle lines
  double straddle_b;  // likewise B's
};

/// The constants every family shares.
struct ModelShared {
  double fixed_us;      // a call's fixed cost (launch, prologue)
  double bw_per_ns;     // DRAM bytes per ns (GB/s)
  double bw_sm_per_ns;  // the bytes per ns one SM's loads reach
  double split_us;      // split K's fixed cost (partials, counters, the last unit's wait)
  double pad_us;        // the padded copy's fixed cost (its bytes are added at bw_per_ns)
  double pass_us;       // a pass of the last unit's sum of the partials (split_sum_per_pass)
};

/// Where the model decides (flops of 2 M N K below this).
inline constexpr double kModelMaxFlops = 1e10;
/// At most this many rows of M, the model takes only swapped tiles (model_choice).
inline constexpr index_t kModelNarrowM = 16;

// pad_us: the fit's 5.12 µs less the 2.46 µs (median) that keeping the copies per stream and launching the GEMM as
// the copy's programmatic dependent took off 24 copied calls (H100; docs/heuristics.md, "Split K's scratch").
inline constexpr ModelShared kModelShared{4.78, 3370.0, 145.0, 2.51, 2.66, 0.386};

inline constexpr ModelFamily kModelFamilies[] = {
    {GemmImpl::k13_wgmma_in_flight, 128, 256, false, 614.6, 1936.9, 0.016, 0.159},
    {GemmImpl::k13_wgmma_in_flight, 128, 192, false, 465.6, 1772.5, 0.029, 0.161},
    {GemmImpl::k13_wgmma_in_flight, 128, 128, false, 314.1, 1378.1, 0.169, 0.254},
    {GemmImpl::k13_wgmma_in_flight, 128, 64, false, 195.2, 1058.4, 0.222, 0.408},
    {GemmImpl::k13_wgmma_in_flight, 64, 128, false, 153.6, 940.2, 0.198, 0.594},
    {GemmImpl::k13_wgmma_in_flight, 128, 64, true, 59.4, 1828.0, 2.235, 0.751},
    {GemmImpl::k13_wgmma_in_flight, 128, 32, true, 239.8, 973.8, 0.159, 0.004},
    {GemmImpl::k13_wgmma_in_flight, 128, 16, true, 225.7, 690.0, 0.118, 0.026},
    {GemmImpl::k13_wgmma_in_flight, 64, 64, true, 34.4, 1612.4, 2.523, 1.939},
    {GemmImpl::k13_wgmma_in_flight, 64, 32, true, 108.3, 1232.0, 0.345, 0.086},
    {GemmImpl::k13_wgmma_in_flight, 64, 16, true, 99.8, 956.7, 0.146, 0.056},
    {GemmImpl::k13_wgmma_in_flight, 64, 48, true, 110.7, 1309.3, 0.282, 0.077},
    {GemmImpl::k13_wgmma_in_flight, 64, 80, true, 112.4, 1254.7, 0.331, 0.563},
    {GemmImpl::k13_wgmma_in_flight, 64, 96, true, 113.8, 1344.8, 0.279, 0.722},
    {GemmImpl::k14_cluster_multicast, 64, 128, false, 210.1, 725.7, 0.099, 0.144},
    {GemmImpl::k14_cluster_multicast, 128, 128, false, 341.7, 1297.0, 0.145, 0.053},
    {GemmImpl::k14_cluster_multicast, 128, 192, false, 502.3, 1640.6, 0.022, 0.0},
    {GemmImpl::k14_cluster_multicast, 128, 256, false, 668.4, 2099.5, 0.0, 0.0},
    // k15's straddle terms are set from all its timings past one wave, not fitted: the fit keeps only timings within
    // 1.6x of a problem's best, which left out most of k15's straddled ones (docs/heuristics.md, "The model").
    {GemmImpl::k15_pingpong, 128, 128, false, 514.3, 637.4, 0.30, 0.30},
};

/// k15's compute time in the bench's interleaved loop over what its constants (fitted to candidates timed one after
/// another) predict: over 42 of the model's k15 choices on four seeds measured / predicted was 1.157 (p10 1.00, every
/// other family 0.92-1.06), and on the 30 problems where this factor changes the choice the runner-up ran 1.10x as
/// fast as k15 in the same run (H100; docs/heuristics.md, "The model").
inline constexpr double kPingpongInLoop = 1.157;

/// k13's 128-row swapped tiles 128 x W (W = 80, 96, ..., 256; A:k): constants linear in W, from 80 timings of W = 80
/// to 256 on ten problems of one to fifteen waves (H200): a k-step 2.3 ns a column of W plus 20 (about 88 % of the
/// tensor cores' rate: 2.02 ns a column at 1,980 MHz), a unit 1 µs plus 4 ns a column (the transposed staging of D).
/// Their grids are near whole waves by design, so the L2's bandwidth to all the SMs bounds them too (kWideL2BytesPerNs
/// in predicted_us); an A whose rows straddle lines is copied first (wide_copies_a).
constexpr ModelFamily wide_family(int w) {
  return {GemmImpl::k13_wgmma_in_flight, 128, w, true, plan_detail::tile128_mma_ns(w), 1000.0 + 4.0 * w, 0.0, 0.0};
}
/// What the L2 delivers to the SMs together (bytes a ns), the k-step bound of a grid of wide tiles: CTAs x a k-step's
/// operand bytes over it, B's rows starting 16 bytes off a 32-byte sector counted 1.5x (H200: 704 x 2304 x 3072 on
/// 126 CTAs of 128 x 112 took 363 ns a k-step where their tensor work is 278).  Fitted to 66 timings of the wide
/// tiles (A's rows whole lines; 90-132 CTAs, one to fifteen waves): median error 5.7 %, no bias, p90 13 %.
inline constexpr double kWideL2BytesPerNs = 13000.0;
/// The model takes a wide tile only where it predicts this much less time than every other candidate (model_choice):
/// its family rests on fewer timings.  On 17 problems where the model chose one (seeds 4711, 5812, 6913; H200, A/B
/// against the build before them), those predicted 8 % faster or more ran 1.005-1.80x as fast (one 0.86x), the rest
/// 0.89-1.06x (geomean 0.98).
inline constexpr double kWideModelGain = 1.08;
constexpr bool is_wide(const GemmCandidate& c) {
  return c.impl == GemmImpl::k13_wgmma_in_flight && c.swap && c.tile_m == 128 && swapped_wide_width(c.tile_n);
}
/// k13's unswapped 128 x W tiles fitted to a thin N (fitted_width; B in either layout, B:n in 32- or 64-byte swizzled
/// atoms): the wide family's k-step, the unswapped tiles' unit (900 ns plus 4.1 a column: 128 x 128, 192, 256).
constexpr ModelFamily fitted_family(int w) {
  return {GemmImpl::k13_wgmma_in_flight, 128, w, false, plan_detail::tile128_mma_ns(w), 900.0 + 4.1 * w, 0.1, 0.2};
}
constexpr bool is_fitted(const GemmCandidate& c) {
  return c.impl == GemmImpl::k13_wgmma_in_flight && !c.swap && c.tile_m == 128 && fitted_width(c.tile_n);
}
/// A width between the powers of two, swapped or not: the model takes one only by kWideModelGain.
constexpr bool is_between(const GemmCandidate& c) { return is_wide(c) || is_fitted(c); }
/// `family(w)` for every width between kWideFirst and kWideLast, indexed by (w - kWideFirst) / kWideStep.
constexpr auto families_by_width(ModelFamily (*family)(int)) {
  std::array<ModelFamily, (kWideLast - kWideFirst) / kWideStep + 1> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = family(kWideFirst + kWideStep * static_cast<int>(i));
  return a;
}
inline constexpr auto kWideFamilies = families_by_width(wide_family);
inline constexpr auto kFittedFamilies = families_by_width(fitted_family);

/// The family of candidate `c` (nullptr: none fitted).
constexpr const ModelFamily* model_family(const GemmCandidate& c) {
  for (const ModelFamily& f : kModelFamilies)
    if (f.impl == c.impl && f.tile_m == c.tile_m && f.tile_n == c.tile_n && f.swap == c.swap) return &f;
  if (is_wide(c)) return &kWideFamilies[static_cast<std::size_t>((c.tile_n - kWideFirst) / kWideStep)];
  if (is_fitted(c)) return &kFittedFamilies[static_cast<std::size_t>((c.tile_n - kWideFirst) / kWideStep)];
  return nullptr;
}

/// What the model and the rules need of a call.
struct PlanProblem {
  index_t m = 0, n = 0, k = 0;
  index_t lda = 0, ldb = 0;  // as TMA reads the rows (either layout)
  int out_bytes = 2;
  bool fused = false;  // an epilogue beyond alpha and beta
  bool aux = false;    // the epilogue writes aux
  float beta = 0.0f;
  GemmTuning asked{};  // the caller's knobs (0 / plan: the plan's)
  bool d_tma = true;   // D's rows TMA can store (16-byte aligned pointer and rows)
  bool a_k_major = true;
};

/// May problem `p` run on the wide tiles?  A K-major (their M side is wgmma's B), D stored by TMA (16-bit, beta = 0,
/// rows TMA can store: else D^T leaves one element a store, 1.5-2x the time), unfused.
constexpr bool wide_tiles_fit(const PlanProblem& p) {
  return p.a_k_major && p.out_bytes == 2 && p.beta == 0.0f && p.d_tma && !p.fused;
}

namespace model_detail {
/// The larger of a and b where they differ much, their 4-norm where close.
constexpr double smooth_max(double a, double b) {
  const double a2 = a * a, b2 = b * b, s = a2 * a2 + b2 * b2;
  double r = a > b ? a : b;
  if (r <= 0) return 0;
  if (!std::is_constant_evaluated()) return std::sqrt(std::sqrt(s));
  // At compile time (std::sqrt is not constexpr before C++26): Newton's method from max(a, b).
  for (int i = 0; i < 8; ++i) r = 0.75 * r + 0.25 * s / (r * r * r);
  return r;
}
}  // namespace model_detail

/// The last partial wave of a narrow swapped tile's stream (x 16 and x 32: M small, B read once). Past the full
/// waves its units stream alone, and one CTA reads no faster than its bytes in flight over DRAM's loaded latency:
/// 8 stages of 10 KB (64 x 16 on a full grid) at 1.5 us is 53 GB/s, which 3 x 11264 x 12992's 44 tail tiles showed
/// (H100: 105.3 us on 64 x 16 against 97.4 on 128 x 16 in one wave and cuBLASLt's 98.2; the H200's 84.6 against
/// 71.4 reads the same). The model's DRAM bound over the whole call misses that; narrow_tail_us adds what the tail
/// takes past DRAM's rate. Held out on the tuning logs (985 problems below 10^10 flops, every configuration timed,
/// H200) it changes 12 choices, 8 faster by more than 2 % and none slower (docs/heuristics.md, "Small M, a partial
/// last wave of the B stream").
inline constexpr double kStreamLatencyNs = 1500.0;

/// Microseconds the last partial wave of candidate `c` takes past DRAM's rate (0 where it is not a narrow swapped
/// tile, or its units fill whole waves): max(0, one unit's operand bytes at a CTA's rate - the tail's bytes at DRAM's).
/// C++ example: narrow_tail_us(3 x 11264 x 12992, 64 x 16 swapped, 176 units on 132 SMs) > 0; 128 x 16 (88 units): 0.
constexpr double narrow_tail_us(const PlanProblem& p, const GemmCandidate& c, index_t units, index_t slots) {
  if (c.impl != GemmImpl::k13_wgmma_in_flight || !c.swap || c.tile_n > 32 || units <= slots || units % slots == 0)
    return 0.0;
  const double operand_bytes = (static_cast<double>(p.m) + static_cast<double>(p.n)) * static_cast<double>(p.k) * 2.0;
  const double unit_bytes = operand_bytes / static_cast<double>(units);
  const int stage_bytes = narrow_stage_bytes(c.tile_m, c.tile_n);  // at the launch's depth on a full grid
  const double in_flight =
      stages_in_flight(slots, stage_bytes, narrow_depth_cap(c.tile_m), 64) * static_cast<double>(stage_bytes);
  const double at_cta = unit_bytes / (in_flight / kStreamLatencyNs);
  const double at_dram = static_cast<double>(units % slots) * unit_bytes / kModelShared.bw_per_ns;
  return at_cta > at_dram ? (at_cta - at_dram) / 1000.0 : 0.0;
}

static_assert(narrow_tail_us({3, 11264, 12992, 12992, 11264}, {GemmImpl::k13_wgmma_in_flight, 64, 16, 1, true}, 176,
                             132) > 8.0);
static_assert(narrow_tail_us({3, 11264, 12992, 12992, 11264}, {GemmImpl::k13_wgmma_in_flight, 128, 16, 1, true}, 88,
                             132) == 0.0);
static_assert(narrow_tail_us({3, 8448, 12992, 12992, 8448}, {GemmImpl::k13_wgmma_in_flight, 64, 16, 1, true}, 132,
                             132) == 0.0);

/// Split K inside a cluster (splits_in_cluster): a fixed part and a part per split (µs), the cluster's launch, the
/// handoff of each split's accumulators to one CTA and the sum.  Measured on the H200 against the same tiles unsplit
/// on 26 problems with M <= 64 on one wave, less the model's predicted main-loop gain: 1.0, 1.5 and 2.8 µs at 2, 4
/// and 8 splits (medians), where split K through global memory costs 2.9-3.3.
inline constexpr double kClusterSplitUs = 0.4, kClusterSplitPerSplitUs = 0.3;

/// Split K's predicted cost of candidate `c` (µs; 0 unsplit): `in_cluster` (splits_in_cluster), kClusterSplitUs's; else
/// the partials and counters, then one L2 round trip a pass of the last unit's sum, each pass loading
/// split_sum_per_pass of the tile's partials. C++ example: split_cost_us({GemmImpl::k13_wgmma_in_flight, 64, 16, 4,
/// true}, true) == 0.4 + 4 x 0.3 (in a cluster); split_cost_us({GemmImpl::k13_wgmma_in_flight, 64, 16, 16, true})
/// == 2.51 + 0.386 (one pass of 16); split_cost_us({GemmImpl::k13_wgmma_in_flight, 64, 128, 8, false}) == 2.51 + 8 x
/// 0.386 (a partial a pass).
constexpr double split_cost_us(const GemmCandidate& c, bool in_cluster = false) {
  if (c.splits <= 1) return 0.0;
  if (in_cluster) return kClusterSplitUs + kClusterSplitPerSplitUs * c.splits;
  const int per_pass = split_sum_per_pass(c.tile_n / 4);
  return kModelShared.split_us + kModelShared.pass_us * static_cast<double>((c.splits + per_pass - 1) / per_pass);
}
static_assert(split_cost_us({GemmImpl::k13_wgmma_in_flight, 64, 16, 1, true}) == 0.0);
static_assert(split_cost_us({GemmImpl::k13_wgmma_in_flight, 64, 16, 16, true}) == 2.51 + 0.386);
static_assert(split_cost_us({GemmImpl::k13_wgmma_in_flight, 64, 64, 5, true}) == 2.51 + 3 * 0.386);
static_assert(split_cost_us({GemmImpl::k13_wgmma_in_flight, 64, 16, 4, true}, true) == 0.4 + 4 * 0.3);

/// D written from registers, where TMA cannot store its rows (a pointer or rows off 16 bytes: N off a multiple of 8
/// in the distribution): microseconds a call takes past the family's prediction, by how the registers leave.  Medians
/// of measured minus 1.04 x predicted (1.04: the chosen families' bias where D is stored by TMA) over the model's
/// choices on N off a multiple of 8 (H100, seeds 7401-7432 and their A/B runs): swapped tiles 64 wide and up, whose
/// D^T leaves one element a store, 7.9 (15 problems, 4.4-16.5 but one); k15 14.2 (5); unswapped k13 and k14 1.8 (29).
/// The swapped 16 and 32 wide tiles (at most 32 rows of D a tile) ran at their predictions (17 problems).
struct RegisterStoreCost {
  double transposed = 7.9, pingpong = 14.2, rows = 1.8;
};
inline constexpr RegisterStoreCost kRegisterStore{};
/// C++ example: register_store_us({GemmImpl::k13_wgmma_in_flight, 64, 64, 1, true}) == 7.9;
/// register_store_us({GemmImpl::k13_wgmma_in_flight, 64, 16, 1, true}) == 0.
constexpr double register_store_us(const GemmCandidate& c, const RegisterStoreCost& r = kRegisterStore) {
  if (c.swap) return c.tile_n >= 64 ? r.transposed : 0.0;
  return c.impl == GemmImpl::k15_pingpong ? r.pingpong : r.rows;
}
static_assert(register_store_us({GemmImpl::k13_wgmma_in_flight, 64, 64, 1, true}) == 7.9 &&
              register_store_us({GemmImpl::k13_wgmma_in_flight, 64, 32, 2, true}) == 0.0 &&
              register_store_us({GemmImpl::k15_pingpong, 128, 128, 1, false}) == 14.2);

/// The predicted microseconds of candidate `c` on problem `p` with `sms` SMs.
/// C++ example: predicted_us({1, 4096, 4096, 4096, 4096}, {GemmImpl::k13_wgmma_in_flight, 64, 16, 4, true}, 132) <
/// predicted_us({1, 4096, 4096, 4096, 4096}, {GemmImpl::k13_wgmma_in_flight, 128, 256, 1, false}, 132).
constexpr double predicted_us(const PlanProblem& p, const GemmCandidate& c, int sms) {
  using namespace model_detail;
  using plan_detail::ceil_div;
  const ModelFamily* f = model_family(c);
  if (f == nullptr || sms <= 0) return 1e30;
  const ModelShared& g = kModelShared;
  const index_t rows = c.swap ? p.n : p.m, cols = c.swap ? p.m : p.n;
  const index_t units = ceil_div(rows, index_t{c.tile_m}) * ceil_div(cols, index_t{c.tile_n}) * c.splits;
  const index_t slots = c.impl == GemmImpl::k15_pingpong            ? 2 * index_t{sms}
                        : c.impl == GemmImpl::k14_cluster_multicast ? 2 * index_t{sms / 2 - 2}
                                                                    : index_t{sms};
  const double waves = static_cast<double>(ceil_div(units, slots));
  const double kt = static_cast<double>(ceil_div(ceil_div(p.k, index_t{64}), index_t{c.splits}));
  // k14's pair shares its wider operand's tile: each CTA reads half of it.
  const double b_rows = c.impl == GemmImpl::k14_cluster_multicast ? c.tile_n / 2.0 : c.tile_n;
  const double bytes = (c.tile_m + b_rows) * 128.0;
  bool sa = straddles(p.lda), sb = straddles(p.ldb);
  if (c.swap) {  // swapped, A and B trade places
    const bool t = sa;
    sa = sb;
    sb = t;
  }
  const double slow = 1.0 + (sa ? f->straddle_a : 0.0) + (sb ? f->straddle_b : 0.0);
  double kstep = smooth_max(f->mma_ns * slow, bytes / g.bw_sm_per_ns);
  if (is_between(c)) {  // the grid's operand bytes a k-step over the L2's bandwidth (kWideL2BytesPerNs)
    const double ctas = static_cast<double>(units < slots ? units : slots);
    const double b_off_sector = c.swap && p.ldb % 16 == 8 ? 1.5 : 1.0;  // rows 16 bytes into a 32-byte sector
    const double l2 = ctas * (c.tile_m * b_off_sector + c.tile_n) * 128.0 / kWideL2BytesPerNs;
    if (l2 > kstep) kstep = l2;
  }
  const double m = static_cast<double>(p.m), n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  const double loop = c.impl == GemmImpl::k15_pingpong ? kPingpongInLoop : 1.0;
  const double compute = loop * waves * (kt * kstep + f->unit_ns * p.out_bytes / 2.0);
  const bool in_cluster =
      c.impl == GemmImpl::k13_wgmma_in_flight && splits_in_cluster(c.swap, c.tile_n, c.splits, units, sms);
  const bool partials = c.splits > 1 && !in_cluster;  // written and read in L2
  const double dram = (m * k + k * n) * 2.0 + m * n * p.out_bytes + (partials ? 8.0 * c.splits * m * n : 0.0);
  double ns = smooth_max(compute, dram / g.bw_per_ns + narrow_tail_us(p, c, units, slots) * 1000.0);
  ns += split_cost_us(c, in_cluster) * 1000.0;
  // The padded copies: of an operand TMA cannot read, and of A's straddled rows for the wide tiles (wide_copies_a).
  const bool copy_a = p.lda % 8 != 0 || (is_wide(c) && wide_copies_a(0, p.lda));
  const double pad = (copy_a ? m * k * 2.0 : 0.0) + (p.ldb % 8 != 0 ? k * n * 2.0 : 0.0);
  if (pad > 0) ns += g.pad_us * 1000.0 + 2.0 * pad / g.bw_per_ns;
  if (!p.d_tma) ns += register_store_us(c) * 1000.0;
  return g.fixed_us + ns / 1000.0;
}

/// The model's choice for problem `p` on `sms` SMs: among gemm_candidates
/// that agree with the caller's knobs (candidate_matches), the smallest
/// prediction (the first listed on a tie); false where none agrees.
/// tessel::gemm(auto) takes it for a single unfused 16-bit problem on sm_90
/// below kModelMaxFlops (src/kernels/gemm.cu, gemm_plan); the rules of
/// tessel/gemm_plan.hpp decide everywhere else.
/// C++ example: 1 x 1344 x 2496 (M = 1): k13:64x16:s4:swap, the swapped one-warpgroup tile split four ways.
inline bool model_choice(const PlanProblem& p, int sms, GemmCandidate& out, double& us) {
  bool found = false;
  double best = 0.0;
  for (const GemmCandidate& c : gemm_candidates(p.m, p.n, p.k, sms, p.fused, p.beta != 0.0f)) {
    if (!candidate_matches(c, p.asked)) continue;
    // The swapped 64 x 48, 80, 96 tiles are measured tuning's: their predictions miss by as much as they gain (held
    // out, the model's picks among them ran 1.004x the previous choice's time, 512 x 656 x 6272 0.82x).
    if (c.tile_m == 64 && swapped_only_width(c.tile_n) && p.asked.tile_n == 0) continue;
    if (is_wide(c) && !wide_tiles_fit(p)) continue;
    // k14 split is measured tuning's: its family's constants were fitted to unsplit pairs only.
    if (c.impl == GemmImpl::k14_cluster_multicast && c.splits > 1) continue;
    // M of at most 16 rows goes on a swapped tile's narrow side (16 wide): an unswapped tile's 64 or more rows would
    // waste three quarters of its tensor work and staging, which the per-family constants do not see (held out below
    // 10^10, regret 1.043 -> 1.033; docs/heuristics.md, "The model").
    if (!c.swap && p.m <= kModelNarrowM && p.m < p.n && p.asked.swap_ab != SwapAB::off) continue;
    // A wide tile must predict kWideModelGain less time than the fitted families' best to be taken.
    const double t = predicted_us(p, c, sms);
    const double score = t * (is_between(c) && p.asked.tile_n == 0 ? kWideModelGain : 1.0);
    if (!found || score < best) out = c, us = t, best = score, found = true;
  }
  return found;
}

/// Rule 16, where the rules decide (2 M N K from kModelMaxFlops): the 128-row tile between the powers of two (128 x W
/// unsplit, swapped with A:k or unswapped fitted to N; gemm_candidates lists the narrowest W for each count of tile
/// columns) that predicts the least time, where that is
/// at least kWaveFillGain less than the rules' k13 or k15 choice `plan` predicts: a width between the powers of two
/// that brings the tiles near a whole number of waves (6832 x 640 x 1344: 128 x 192 makes 216 tiles, 1.6 waves;
/// 128 x 144 swapped 240, 1.8).  The margin is about the model's median error (7-8 %) and then some, so that a choice
/// moves only where the waves say so clearly.  Only for an unsplit `plan` past one wave of 128 x 128 tiles: rule
/// 12's split one-wave grids ran 0.70-0.93x as fast on wide tiles.  False where none qualifies (swapped:
/// wide_tiles_fit).
inline constexpr double kWaveFillGain = 1.10;
inline bool wave_fill_choice(const PlanProblem& p, int sms, const GemmCandidate& plan, GemmCandidate& out) {
  if (p.fused || plan.splits != 1 || plan_detail::tile_count(p.m, p.n) <= static_cast<index_t>(sms)) return false;
  const bool wide_fits = wide_tiles_fit(p);
  const double limit = predicted_us(p, plan, sms) / kWaveFillGain;
  bool found = false;
  double best = limit;
  for (const GemmCandidate& c : gemm_candidates(p.m, p.n, p.k, sms, p.fused, p.beta != 0.0f)) {
    if (c.splits != 1 || (!is_fitted(c) && (!is_wide(c) || !wide_fits)) || !candidate_matches(c, p.asked)) continue;
    const double t = predicted_us(p, c, sms);
    if (t < best) best = t, out = c, found = true;
  }
  return found;
}

/// 2 M N K below kModelMaxFlops?
constexpr bool in_model_domain(index_t m, index_t n, index_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < kModelMaxFlops;
}

/// Rule 14's costs in k-steps of the tile, fitted to 93 timings on the H200 (10 problems of 1.4 to 5 waves, widths
/// 128, 192, 256 split 2-6 ways, against each width unsplit; docs/heuristics.md, rule 14): beside split tiles the
/// full waves run 5 % slower (17 % at 256, which then loses its overlapped warpgroup epilogue), and a split unit's
/// fp32 partial, count and the last unit's adds cost 4 + 3.5 x splits k-steps.
struct TailCost {
  double whole_slow = 0.05, whole_slow_256 = 0.17, fixed = 4.0, per_split = 3.5;
};
inline constexpr TailCost kTailCost{};
/// Rule 14's predicted time of 128 x `w` tiles with the tail split `s` ways (1: unsplit), in 128 x 256 k-steps.
constexpr double tail_time(index_t tiles, index_t k_tiles, int sms, int w, int s, const TailCost& c = kTailCost,
                           bool sa = false, bool sb = false) {
  const double step = w / (256.0 * plan_detail::tile_speed(w, sa, sb, sms)), kt = static_cast<double>(k_tiles);
  if (s <= 1 || sms <= 0)
    return static_cast<double>(ceil_div(tiles, static_cast<index_t>(sms > 0 ? sms : 1))) * kt * step;
  const index_t whole = split_tail_whole(tiles, sms), full = whole / sms;
  const double waves = static_cast<double>(ceil_div((tiles - whole) * s, static_cast<index_t>(sms)));
  const double per_unit = static_cast<double>(ceil_div(k_tiles, static_cast<index_t>(s))) + c.fixed + c.per_split * s;
  const double slow = w == 256 ? c.whole_slow_256 : c.whole_slow;
  return (static_cast<double>(full) * kt * (1.0 + slow) + waves * per_unit) * step;
}
/// Rule 14's choice: a tile width and its tail's splits.
struct TailPlan {
  int tile_n = 0, splits = 1;
  constexpr bool operator==(const TailPlan&) const = default;
};
/// Rule 14: over k13's widths (fused: those with fused instances) and 2..8 splits of ≥ 8 k-tiles, the (width,
/// splits) of least tail_time where it is ≤ 95 % of the plan's unsplit width `plan_w`; else {plan_w, 1}.
/// C++ example: split_tail_plan(4096, 1088, 10240, 132, 192, false) == TailPlan{192, 2} (60 tiles as 120 halves).
constexpr TailPlan split_tail_plan(index_t m, index_t n, index_t k, int sms, int plan_w, bool fused, bool sa = false,
                                   bool sb = false) {
  const index_t kt = ceil_div(k, index_t{64});
  const auto tiles = [&](int w) { return ceil_div(m, index_t{128}) * ceil_div(n, static_cast<index_t>(w)); };
  const double base = tail_time(tiles(plan_w), kt, sms, plan_w, 1, kTailCost, sa, sb);
  TailPlan best{plan_w, 1};
  double best_t = base;
  for (int w : {256, 192, 128}) {
    if (fused && w == 192) continue;
    for (int s = 2; s <= 8 && kt >= 8 * static_cast<index_t>(s); ++s) {
      const double t = tail_time(tiles(w), kt, sms, w, s, kTailCost, sa, sb);
      if (t < best_t) best_t = t, best = {w, s};
    }
  }
  return best_t <= 0.95 * base ? best : TailPlan{plan_w, 1};
}
/// Rule 12's model, for one wave of 128 x 128 tiles: k13's 128 x `w` tiles split `s` ways (tiles x s on one wave)
/// take ceil(k-tiles / s) k-steps, each the larger of the family's tensor time (kModelFamilies) and the grid's
/// operand bytes a k-step, s x (N-tiles x M + M-tiles x N) x 128, over L2's bandwidth to the SMs; a split adds rule
/// 14's 4 + 3.5 x s k-steps.  The bandwidth is what the model's tuning logs fit when the k-step also carries the
/// grid's bytes (12.7 TB/s; H200); ncu at 1041 x 1600 x 14016 found 7.9-8.2 TB/s, with 128 x 128 (117 CTAs,
/// 102 us) and 128 x 256 split 2 (126 CTAs, 83 us) both held there, so this rule leaves such problems to k15.
struct OneWaveCost {
  double l2_bytes_per_ns = 12700.0;  ///< L2 to the SMs, the whole grid
  double gain = 0.9;                 ///< another (width, splits) must predict at most this share of the plan's time
};
inline constexpr OneWaveCost kOneWaveCost{};
/// Rule 12's predicted nanoseconds of 128 x `w` tiles split `s` ways (one wave; the fixed costs left out).
constexpr double one_wave_time(index_t m, index_t n, index_t k, int w, int s, const OneWaveCost& c = kOneWaveCost) {
  const ModelFamily* f = model_family({GemmImpl::k13_wgmma_in_flight, 128, w, 1, false});
  if (f == nullptr || s < 1) return 1e30;
  const double tm = static_cast<double>(ceil_div(m, index_t{128})), tn = static_cast<double>(ceil_div(n, index_t{w}));
  const double bytes = s * (tn * static_cast<double>(m) + tm * static_cast<double>(n)) * 128.0;
  const double step = bytes / c.l2_bytes_per_ns > f->mma_ns ? bytes / c.l2_bytes_per_ns : f->mma_ns;
  const double split = s > 1 ? (kTailCost.fixed + kTailCost.per_split * s) * f->mma_ns : 0.0;
  return static_cast<double>(ceil_div(ceil_div(k, index_t{64}), static_cast<index_t>(s))) * step + split;
}
/// Rule 12: over k13's widths and 1..8 splits of >= 8 k-tiles that fit one wave, the (width, splits) of least
/// one_wave_time where it is <= `gain` of the plan's 128 x 128 split `plan_splits` ways; else the plan's.
/// C++ example: one_wave_plan(400, 2304, 13800, 132, 1) == TailPlan{256, 3}; (440, 2880, 4160, 132, 1): {128, 1}.
constexpr TailPlan one_wave_plan(index_t m, index_t n, index_t k, int sms, int plan_splits,
                                 const OneWaveCost& c = kOneWaveCost) {
  const TailPlan plan{128, plan_splits};
  const double base = one_wave_time(m, n, k, 128, plan_splits, c);
  const index_t kt = ceil_div(k, index_t{64});
  TailPlan best = plan;
  double best_t = base;
  for (int w : {256, 192, 128})
    for (int s = 1; s <= 8; ++s) {
      if (ceil_div(m, index_t{128}) * ceil_div(n, index_t{w}) * s > sms || (s > 1 && kt < 8 * index_t{s})) continue;
      const double t = one_wave_time(m, n, k, w, s, c);
      if (t < best_t) best_t = t, best = {w, s};
    }
  return best_t <= c.gain * base ? best : plan;
}

/// The splits of K of the small-M kernel (kernels/gemm/small_m_stream.cuh,
/// one CTA per 128 columns and split): the CTAs to fill every SM's two slots
/// (one above 32 rows of A, whose shared memory and registers hold one), each
/// split at least two k-tiles of 64, at most 64 splits.
/// C++ example: small_m_splits(16, 8192, 8192, 132) == 4; small_m_splits(3, 400, 9368, 132) == 64.
constexpr int small_m_splits(index_t m, index_t n, index_t k, int sms) {
  const index_t tiles = (n + 127) / 128, k_tiles = (k + 63) / 64;
  const index_t slots = index_t{sms > 0 ? sms : 132} * (m <= 32 ? 2 : 1);
  index_t s = tiles > 0 ? slots / tiles : 1;
  if (s > k_tiles / 2) s = k_tiles / 2;
  if (s > 64) s = 64;
  return s < 1 ? 1 : static_cast<int>(s);
}

/// Rule 15: where the small-M kernel serves a call (A:k, B:n) better than
/// k13: B's rows TMA cannot read (ldb not a multiple of 8), where k13 first
/// copies B into padded rows, reading and writing B once more before its own
/// pass.  At most 32 rows of A (two CTAs an SM, the split sum loading its
/// partials in batches: 21 x 1525 x 15552 on 22 splits 30.5 µs against k13's
/// 52.0); 33-64 rows (one CTA an SM, a k-tile 0.69 µs) only where B holds
/// kSmallM64Elements or more, whose copy then costs more than the slower
/// stream: 64 x 6974 x 4032 52.6 µs against 67.4, 37 x 1417 x 8768 (12 M)
/// 36.7 against 33.8 (H200, same runs).
/// C++ example: small_m_for(4, 7762, 6848, 7762) == true; small_m_for(4, 7760, 6848, 7760) == false.
inline constexpr double kSmallM64Elements = 14e6;
constexpr bool small_m_for(index_t m, index_t n, index_t k, index_t ldb) {
  if (m < 1 || m > 64 || ldb % 8 == 0) return false;
  return m <= 32 || static_cast<double>(n) * static_cast<double>(k) >= kSmallM64Elements;
}

/// An FP8 group's tile rows (k13's grouped kernel, 128 columns): 64 where
/// its waves of 64-row tiles, each taking kFp8Group64TileTime of a 128-row
/// tile's time (one consumer warpgroup, B read twice as often a product),
/// end sooner than the waves of 128-row tiles; `tiles128` and `tiles64` are
/// the group's tiles at each height.  Small experts (M ≤ 64) waste half of a
/// 128-row tile.  Measured (H200, FP8 promoted, against a cuBLASLt loop):
/// eight experts of 64 x 4096 x 7168 make 256 tiles at either height, and ran
/// 0.631 of the loop's speed on 64-row tiles against 0.533 on 128-row ones,
/// so a 64-row tile takes 0.845 of a 128-row tile's time; experts of 16-256
/// rows (352 tiles of 128 rows, 576 of 64) ran 1.147 on 128 rows, 1.085 on 64.
/// C++ example: fp8_group_tile_rows(256, 256, 132) == 64 (eight experts of 64 x 4096);
/// fp8_group_tile_rows(1600, 3168, 132) == 128 (M 64 ... 2048 x 4096).
inline constexpr double kFp8Group64TileTime = 0.845;
constexpr int fp8_group_tile_rows(index_t tiles128, index_t tiles64, int sms) {
  if (sms <= 0) return 128;
  const auto waves = [&](index_t tiles) { return static_cast<double>((tiles + sms - 1) / sms); };
  return kFp8Group64TileTime * waves(tiles64) < waves(tiles128) ? 64 : 128;
}
static_assert(fp8_group_tile_rows(256, 256, 132) == 64 && fp8_group_tile_rows(1600, 3168, 132) == 128 &&
              fp8_group_tile_rows(352, 576, 132) == 128);

}  // namespace tessel
