// `tessel bench gemm`: the argument model and the result writers, in plain
// host C++ so that they build and are unit-tested without CUDA
// (tests/bench_gemm_args_test.cpp).  The runner is bench_gemm.cu.
//
// Types, layouts and ladder steps are tessel's own (tessel/gemm_types.hpp,
// header-only and CUDA-free): one set of names and parsers for the library,
// the command line and the CSV/JSON columns.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessel/gemm_plan.hpp"
#include "tessel/gemm_types.hpp"
#include "tessel/host/gemm.hpp"

namespace tessel::bench {

// ------------------------------------------------------------------ names

enum class VerifyTier { tier1, tier2, none };
const char* verify_name(VerifyTier v);

/// How the L2 is evicted before every timed launch (docs/bench-protocol.md §2):
/// `read` a buffer of >= 2x the L2 (the default; it leaves only clean lines),
/// or `memset` it (the old way: its dirty lines are written back during the
/// next timed launch).  The name is the CSV's l2_flush column.
enum class L2Flush { read, memset };
const char* flush_name(L2Flush f);

/// How the implementations of one problem and repeat share the timed loop
/// (docs/bench-protocol.md §3): `interleaved` (the default) times them in
/// turn within one loop, one launch each per round, the first of each round
/// rotating, so every implementation sees the same clock and temperature and
/// their ratio does not depend on which ran last; `blocks` times each in its
/// own loop, one after the other (cuBLAS first in odd repeats, last in even
/// ones), which gives each its own NVML means.  The name is the CSV's
/// `timing` column.
/// How the launches are timed: interleaved (default), blocks, or none (each
/// row verified, nothing timed: for runs under compute-sanitizer, whose
/// tracking of a timed loop's thousands of launches runs out of memory).
enum class TimingOrder { interleaved, blocks, none };
const char* order_name(TimingOrder o);

// ------------------------------------------------------------------ options

/// The epilogue of a benchmarked GEMM (--epilogue, --bias): D = act(alpha *
/// A B + beta * C + bias), bias per column of D (BiasKind::col, cuBLASLt's
/// bias of its column-major D^T) unless --bias row.
struct BenchEpilogue {
  Activation act = Activation::none;
  BiasKind bias = BiasKind::none;
  friend bool operator==(const BenchEpilogue&, const BenchEpilogue&) = default;
};
/// The --epilogue names: none, bias, relu, bias_relu, gelu, bias_gelu (gelu
/// is the erf GELU, as in torch.nn.functional.gelu and tessel.gemm),
/// gelu_erf, bias_gelu_erf, gelu_tanh, bias_gelu_tanh (the tanh form,
/// cuBLASLt's GELU epilogue), silu, bias_silu.
/// `row`: the bias kind a name with a bias gets (--bias row).
std::optional<BenchEpilogue> parse_bench_epilogue(std::string_view name, bool row = false);
/// The CSV/JSON `epilogue` column: the --epilogue name with the GELU named
/// explicitly (gelu_erf, gelu_tanh), "@row" after a row bias
/// ("bias_gelu_tanh@row").
std::string epilogue_name(const BenchEpilogue& e);

/// One GEMM problem: D = alpha * A * B + beta * C with the given shapes, and
/// the epilogue.
struct GemmProblem {
  std::string group;  // the suite's group, or "cli" for --m/--n/--k problems
  std::int64_t m = 0, n = 0, k = 0;
  DType in = DType::bf16, out = DType::bf16;
  std::optional<DType> in_b;  // B's type where it differs from A's (FP8, --dtype e4m3xe5m2)
  GemmLayout layout{};
  double alpha = 1.0, beta = 0.0;
  BenchEpilogue epilogue{};
  /// Strided batched (--batch): `batch` problems of m x n x k, packed one
  /// after the other in every operand (stride = one matrix).
  std::int64_t batch = 1;
  /// Grouped (--group-m, --grouped moe): one problem of group_m[g] x n x k
  /// per entry, each with its own B (an expert's weights), run by
  /// tessel::gemm_grouped; m is then the sum of group_m (the rows of the
  /// stacked A and D).  Empty: not grouped.
  std::vector<std::int64_t> group_m;
  /// FP8 inputs: GemmArgs' fp8_fast_accum (also cuBLASLt's FAST_ACCUM) and
  /// fp8_promote_every (--fp8-fast-accum, --fp8-promote-every); others ignore them.
  bool fp8_fast_accum = false;
  int fp8_promote_every = 0;
  /// FP8 scales (--scale): the mode of GemmArgs::fp8_scale and cuBLASLt's
  /// matching scale modes; the bench fills them with powers of two.
  Fp8Scale fp8_scale = Fp8Scale::none;
};
/// "4096x4096x4096"; batched "32x(512x512x128)"; grouped "[64,128]x4096x7168".
std::string shape_name(const GemmProblem& p);
/// The problems a row computes: batch, or the group's size.
std::int64_t gemm_problem_count(const GemmProblem& p);
/// 2 M N K summed over every problem of `p` (batch or group).
double gemm_flops(const GemmProblem& p);

/// The options as typed (strings), before validation.  An empty string means
/// "not given".
struct GemmBenchArgs {
  std::string m, n, k;
  std::string dtype;                 // default bf16
  std::string out_dtype;             // default: the input type
  std::vector<std::string> layouts;  // --layout, repeatable; each may hold a ';'-separated list or `all`
  std::string alpha, beta;           // default 1 and 0
  std::vector<std::string> impls;    // --impl, repeatable; each a comma list
  std::string suite, csv, json;
  std::string iterations, warmup, repeat, verify;
  std::string min_ms;   // --min-ms MS: minimum timed milliseconds per loop (default 200)
  std::string heat_ms;  // --heat-ms MS: untimed launches before a problem's first block (default: blocks: --min-ms)
  std::string tile_n, splits;   // k13's tuning (default: the plan's)
  std::string tile_m;           // --tile-m 64|128: k13's tile rows (64: swapped problems only; default 128)
  std::string swap_ab;          // --swap-ab on|off (default: the plan's)
  std::string raster_group;     // --raster-group G: tile rows per group of k13's raster (default: the plan's)
  bool split_tail = false;      // --split-tail: with --splits, only the tiles past the full waves split
  std::string cluster;          // --cluster N: k14's CTAs a cluster, 2 (pairs) or 4 (2 x 2)
  std::string cluster_share;    // --cluster-share a|b: the operand k14's pairs share
  std::string split_sum;        // --split-sum last|kernel: who sums k13's split partials (default: the plan's)
  std::string stages;           // --stages S: k13's swapped x 16 / x 32 tiles' stages in flight (default: the launch's)
  bool fp8_fast_accum = false;  // --fp8-fast-accum: FP8 sums in the tensor core throughout (tessel and cuBLASLt)
  std::string fp8_promote_every;  // --fp8-promote-every P: FP8 sums promoted every P k-tiles (default: the library's)
  std::string scale;              // --scale none|tensor|channel|block: FP8 scales (default none)
  std::string m_max;              // --m-max M: keep the suite's problems with M <= M
  std::string flush;              // --flush read|memset (default read)
  std::string order;              // --order interleaved|blocks (default interleaved)
  std::string epilogue;           // --epilogue NAME (default none)
  std::string bias;               // --bias row|col (default col)
  std::string batch;              // --batch B: strided batched (default 1)
  std::string group_m;            // --group-m LIST: grouped, one problem per M (with --n, --k)
  std::string grouped;            // --grouped moe: the MoE group (M 64..2048, N 4096, K 7168)
  std::string jit;                // --jit (on) or TESSEL_JIT: on/1, always, off/0 (GemmTuning::jit; default off)
  std::string reference;          // --reference cublas|cublas_fp32 (default cublas)
};

/// The validated options.  With an epilogue other than none, every step runs
/// three times: as `impl` (tessel::gemm with the epilogue: fused where k13
/// has the instance), as `impl:unfused` (the plain GEMM, then
/// gemm_epilogue_apply, timed as one item) and as `impl:plain` (the GEMM
/// without the epilogue: what the epilogue costs); cuBLASLt runs its matching
/// epilogue, or where it has none (erf GELU, SiLU, a row bias) its plain GEMM
/// then tessel's gemm_epilogue_apply (the note says which).
struct GemmBenchOptions {
  std::vector<GemmProblem> problems;  // in run order
  std::vector<GemmImpl> steps;        // ladder steps to run, in the order given, no repeats
  bool cublas_rows = false;           // emit impl=cublas rows (cuBLAS is measured in every row anyway)
  bool tuned = false;                 // rows `tuned`: auto with measured tuning (GemmTuning::tune)
  // --reference cublas_fp32: cuBLASLt restricted to algorithms that reduce in
  // fp32 (CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = NONE | COMPUTE_TYPE):
  // no split K summed in the output type.
  bool cublas_fp32_reduction = false;
  std::string suite;    // the suite file, if any
  std::string csv;      // "" or "-": standard output
  std::string json;     // "": no JSON
  int iterations = 50;  // minimum timed launches (and at least timed_ms)
  int timed_ms = 200;   // minimum timed milliseconds per loop (the protocol's 200 at least)
  int warmup = 10;      // minimum warm-up launches (and at least 25 ms)
  // Untimed, flushed launches of what a problem times first, for this many
  // ms before its first timed loop (0: none).  Default: --order blocks:
  // timed_ms; interleaved (every loop shares one clock) and none: 0.
  int heat_ms = 0;
  int repeat = 1;  // rows per (impl, problem)
  VerifyTier verify = VerifyTier::tier2;
  L2Flush flush = L2Flush::read;
  TimingOrder order = TimingOrder::interleaved;
  GemmTuning tuning{};  // --tile-n, --splits, --swap-ab (0 / SwapAB::plan: the plan's); k13 and auto use them
};

/// BLAS's names of the operands' storage, in cuBLAS's column-major meaning:
/// "tn" is A transposed (stored K x M: K contiguous, A:k) and B not (stored
/// K x N: K contiguous, B:k); "nt" is A:m, B:n; "nn" A:m, B:k; "tt" A:k,
/// B:n (a row-major a @ b).  Case ignored; nullopt for anything else.
std::optional<GemmLayout> parse_blas_layout(std::string_view s);

/// Parses "4096", "1024,2048", "1024:8192:1024" (start:stop:step, stop
/// inclusive) and comma lists mixing them, into distinct values in the order
/// given.  `flag` names the option in the error message.
bool parse_extent_list(std::string_view text, std::string_view flag, std::vector<std::int64_t>& out,
                       std::string& error);

/// Validates everything and builds the problem list (reading the suite file
/// when --suite is given).  On failure `error` is one line naming the flag.
bool parse_gemm_bench_args(const GemmBenchArgs& args, GemmBenchOptions& out, std::string& error);

/// What a suite row does not say: the command line's values.
/// The output type of a problem whose input type is `in` and whose output
/// type nothing names: the input type, bf16 for FP8 inputs (FP8 is an input type only).
constexpr DType default_out_type(DType in) { return is_fp8(in) ? DType::bf16 : in; }
/// The input type as --dtype and the dtype column spell it: "bf16", or A's
/// and B's FP8 formats where they differ, "e4m3xe5m2".
std::string input_type_name(DType in, const std::optional<DType>& in_b);
/// Parses an input type (parse_dtype's names, or two different FP8 formats
/// joined by 'x': A's, then B's); on failure `error` names `flag`.
bool parse_input_type(std::string_view text, std::string_view flag, DType& in, std::optional<DType>& in_b,
                      std::string& error);

struct SuiteDefaults {
  DType in = DType::bf16;
  std::optional<DType> in_b;                      // B's type where it differs (FP8 pairs, "e4m3xe5m2")
  std::optional<DType> out;                       // nullopt: default_out_type of the row's input type
  std::vector<GemmLayout> layouts{GemmLayout{}};  // a row without a layout runs each of these
  double alpha = 1.0, beta = 0.0;
};

/// Reads a suite: CSV with a header naming at least group,m,n,k (any order);
/// optional columns dtype, out_dtype, layout, alpha, beta override the
/// defaults per row (an empty cell keeps the default; a layout cell takes
/// what --layout takes).  Other columns are ignored.  Blank lines and lines
/// starting with '#' are skipped; fields may be quoted ("A:k,B:n").  `source`
/// names the input in error messages ("suite.csv line 3: ...").  Appends to
/// `out`.
bool read_suite(std::istream& in, std::string_view source, const SuiteDefaults& defaults, std::vector<GemmProblem>& out,
                std::string& error);

/// `--suite random:SEED:COUNT`: COUNT problems drawn from the distribution
/// that judges the GEMM on any shape (docs/bench-protocol.md §6, "Shapes
/// outside the suite"): M log-uniform over [1, 16384], N and K over [256, 16384], drawn
/// independently and rounded to the nearest integer; then each extent, with
/// probability 0.6, to the nearest multiple of 64, with 0.25 to the nearest
/// multiple of 8, else kept (an extent below the multiple is kept); a
/// problem above 2 * 8192^3 flops is drawn again.  Groups: a64 (all three
/// extents multiples of 64), a8 (all multiples of 8, not a64), odd (the rest).
/// The generator is the project's own (splitmix64, 53-bit uniforms), so a
/// seed names the same problems on every platform.  Each problem runs in
/// each of the defaults' layouts, with its types and scales.
std::vector<GemmProblem> random_problems(std::uint64_t seed, int count, const SuiteDefaults& defaults);
/// "a64", "a8" or "odd" for M x N x K (random_problems' groups).
const char* extent_group(std::int64_t m, std::int64_t n, std::int64_t k);

/// Tier 1 is exact only while every partial sum is an integer below 2^24:
/// integer alpha and beta with 16*K*|alpha| + 4*|beta| < 2^24.  Returns ""
/// when `p` qualifies, else the reason.
std::string tier1_problem_error(const GemmProblem& p);

/// The operand traffic every implementation of `p` must move at least once:
/// A (M*K) and B (K*N) in the input type, D (M*N) in the output type, and C
/// (M*N, output type) when beta != 0.  In bytes.  Over every problem: batch
/// times that; a group's A and D are sum(M) rows and its B one K x N per problem.
std::int64_t gemm_operand_bytes(const GemmProblem& p);
/// gemm_operand_bytes(p) / time, in GB/s (1e9 bytes per second); the column
/// that matters for memory-bound (small M) shapes.  0 when ms is not > 0.
double gemm_gbytes_per_s(const GemmProblem& p, double ms);

/// Splits one CSV line into fields ("" quoting, no embedded line breaks); false on an unterminated quote.
bool split_csv_line(std::string_view line, std::vector<std::string>& fields);

/// Problem `p` as a suite row (the header kSuiteColumns names): what --list and --plan write first.
inline constexpr const char* kSuiteColumns = "group,m,n,k,dtype,out_dtype,layout,alpha,beta";
std::string suite_row(const GemmProblem& p);

/// "on", "off" or "plan": GemmTuning::swap_ab as --swap-ab and --plan spell it.
const char* swap_ab_name(SwapAB s);

/// Single or batched problem `p` (not grouped) as tessel::gemm's arguments for
/// gemm_plan(args, device): extents, types, layout, scalars, epilogue, FP8
/// options and batch as the bench runs them, leading dimensions packed, and
/// stand-in operand addresses 256-byte aligned as the bench's allocations are
/// (the plan reads their alignment; nothing reads them).
GemmArgs plan_args(const GemmProblem& p, const GemmTuning& tuning);

// ------------------------------------------------------------------ results

struct DeviceInfo {
  std::string gpu;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_clock_khz = 0, mem_clock_khz = 0;  // peak clocks (0: not readable)
  int driver = 0, runtime = 0;              // cudaDriverGetVersion / cudaRuntimeGetVersion (13000 = 13.0)
  std::string driver_version;               // the kernel driver's own version ("580.159.04"; "" if unreadable)
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  std::string commit;
};

struct ProtocolInfo {
  int warmup_min_launches = 10;
  double warmup_min_ms = 25;
  int timed_min_launches = 50;
  double timed_min_ms = 200;
  std::string statistic = "median (min and p90 also reported)";
  std::string l2_flush = "read";       // flush_name(): read or memset
  std::string timing = "interleaved";  // order_name(): interleaved, blocks or none
  int heat_ms = 0;                     // GemmBenchOptions::heat_ms
  std::string l2_policy;               // how the L2 is kept honest, in words
  std::int64_t flush_bytes = 0;
  std::string clock_power;  // where sm_clock_mhz and power_w come from ("unavailable: ..." without NVML)
  std::string verify;
  int repeat = 1;
  std::string reference;  // how the cuBLAS comparison is made
};

/// One row: one implementation on one problem in one repeat (the problem
/// carries the epilogue: the `epilogue` column).  Absent
/// optionals are empty cells (CSV) or null (JSON).
struct GemmBenchRow {
  std::string impl;  // "k09", "cublas"
  int repeat = 1;
  GemmProblem problem;
  std::string verify;
  std::string disposition;  // passed, incorrect, not_supported, unverified, error
  std::string note;
  std::optional<double> max_err, cublas_max_err;
  std::string cublas_disposition;
  std::optional<double> median_ms, min_ms, p90_ms, tflops;
  std::optional<double> cublas_median_ms, cublas_tflops, ratio;
  std::optional<double> gbytes_per_s, cublas_gbytes_per_s;  // gemm_gbytes_per_s of the median times
  std::string l2_flush;                                     // the run's flush (read, memset); empty: unknown
  // Means of NVML's samples during the timed launches (empty: NVML
  // unavailable, or the row was not timed).  The cublas_ ones are cuBLAS's
  // launches of the same problem and repeat.
  std::optional<double> sm_clock_mhz, power_w, cublas_sm_clock_mhz, cublas_power_w;
  // order_name() of the run: with `interleaved` every implementation of a
  // problem and repeat shares one timed loop, and its clock and power means
  // (the same values in every row of that problem and repeat).
  std::string timing;
  int heat_ms = 0;  // the run's GemmBenchOptions::heat_ms
  // The reference ("cublas", or "cublas_fp32" under --reference cublas_fp32)
  // and how the algorithm it ran reduces split K: "none", or the scheme and
  // the split count ("output_type x4": partial sums in the output type,
  // "inplace x2": in D; "compute_type x3": in fp32).
  std::string cublas_reference, cublas_reduction;
};

/// The CSV header line (no newline) and one row (no newline).
std::string csv_header();
std::string csv_row(const DeviceInfo& device, const GemmBenchRow& row);
/// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view s);

/// Per implementation: over the passed problems that have a ratio, the
/// geometric mean and the minimum of t_cublas / t_impl (the repeats of one
/// problem enter as their geometric mean).  cuBLAS's own rows are left out.
/// "unverified" rows (--verify none) count as passed.
/// `by_group`: also one summary per (implementation, problem group) after
/// each implementation's "all"; below_095 and below_085 are the shares of
/// the problems whose ratio is below 0.95 and 0.85.
struct ImplSummary {
  std::string impl;
  std::string group = "all";
  int problems = 0;  // passed problems with a ratio
  int rows = 0;      // rows of this impl, all dispositions
  double geomean_ratio = 0, min_ratio = 0;
  double below_095 = 0, below_085 = 0;
};
std::vector<ImplSummary> summarize(const std::vector<GemmBenchRow>& rows, bool by_group = false);

/// The problems on which the reference failed verification (rows whose
/// cublas_disposition is "incorrect"), in one line for the summary: how
/// many of how many problems, and how the reference reduced on them
/// ("cuBLASLt failed verification on 2 of 117 problems (reductions:
/// output_type x5, inplace x2): left out of the ratios"); "" when none did.
std::string reference_failures(const std::vector<GemmBenchRow>& rows);

/// {"device": {...}, "protocol": {...}, "rows": [...], "summary": [...]}.
/// Non-finite numbers are written as null.  `error` (if not empty) is added
/// as a top-level "error" string (a run that stopped early).
void write_json(std::ostream& out, const DeviceInfo& device, const ProtocolInfo& protocol,
                const std::vector<GemmBenchRow>& rows, const std::vector<ImplSummary>& summary,
                const std::string& error = {});
/// A JSON string literal with the escapes JSON requires.
std::string json_string(std::string_view s);

}  // namespace tessel::bench
