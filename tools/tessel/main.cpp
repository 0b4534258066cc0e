// `tessel` — the command line.  Subcommands: `layout` (the layout calculator), `draw` (thread-value
// drawings of MMA atoms, TiledMMA, TiledCopy and instruction layouts), `bench` (GPU benchmarks),
// `jit` (the cache of run-time compiled kernels).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "bench.hpp"
#include "tessel/host/calc.hpp"
#include "tessel/host/jit.hpp"
#include "tessel/host/tune.hpp"
#if defined(TESSEL_HAVE_CUDA)
#include "tessel/host/copy.hpp"
#endif
#ifndef TESSEL_VERSION
#error "TESSEL_VERSION (project()'s version in CMakeLists.txt) is set on tessel_cli by CMake"
#endif

namespace {

// Exit status of every subcommand (README, "Command-line conventions"):
constexpr int kExitOk = 0;      // done
constexpr int kExitFailed = 1;  // the input was understood but the work failed (an expression error, ...)
constexpr int kExitUsage = 2;   // usage: unknown subcommand or option, missing or malformed argument
constexpr int kExitNoCuda = 4;  // no CUDA device, or a build without CUDA (3: a CUDA error, from the benches)

constexpr const char* kLayoutHelp = R"(Evaluate layout-algebra expressions (grammar: docs/algebra.md §1).

A bare layout, swizzled layout or tuple is accepted too and printed as is
(useful with --format).  --format ascii fits 100 columns: a wider grid is
printed in bands of whole columns, each headed `columns A-B of N:`.

Examples:
  tessel layout 'logical_divide((6,20):(20,1),<2,4>)'
  tessel layout 'zipped_divide((6,20):(20,1),(2,4))'   (a shape as a tiler: <2:1,4:1>, as CuTe)
  tessel layout --format ascii 'make_layout((4,3),LayoutRight)'
  tessel layout --format svg 'Sw<3,3,3>o((8,64):(64,1))' > swizzle.svg
  tessel layout --batch cases.txt        (or - for standard input)

Functions: size rank depth cosize coalesce filter composition complement
right_inverse left_inverse logical_divide zipped_divide tiled_divide flat_divide
logical_product zipped_product tiled_product blocked_product raked_product
tile_to_shape make_layout eval idx2crd crd2idx.

Values are 64-bit: integers, sizes and cosizes up to 2^63-1; a result that
would not fit is the error value-range.  Every printed result reads back.

Exit status: 0 done (--batch: the input was read), 1 the expression failed
(the reason is printed on standard error as `error: KEYWORD: message`; in
--batch mode each line's answer, result or error, is on standard output),
2 usage error.)";

/// Batch mode: one expression per line (text after a TAB is ignored, so a
/// golden `EXPR<TAB>EXPECTED` file can be fed as is); blank lines and lines
/// starting with '#' are skipped, and so is a UTF-8 byte-order mark at the
/// start of the input.  Prints EXPR<TAB>RESULT for every line.
int run_batch(std::istream& in) {
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (first && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    first = false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string expr = line.substr(0, line.find('\t'));
    if (expr.find_first_not_of(" \t") == std::string::npos || expr[expr.find_first_not_of(" \t")] == '#') continue;
    std::cout << expr << '\t' << tessel::calc::evaluate(expr).text << '\n';
  }
  std::cout.flush();
  return 0;
}

int run_single(const std::string& expr, const std::string& format) {
  const tessel::calc::Outcome r = tessel::calc::evaluate(expr);
  // An error goes to standard error, so that `x=$(tessel layout ...)` never
  // captures it as a value; batch mode keeps one answer line per input on stdout.
  if (!r.ok) {
    std::cerr << r.text << '\n';
    return 1;
  }
  if (format == "text") {
    std::cout << r.text << '\n';
    return 0;
  }
  if (!r.has_layout) {
    std::cerr << "error: type: --format " << format << " draws layouts; this result is " << r.text << '\n';
    return 1;
  }
  if (tessel::rank(r.layout) > 2) {
    std::cerr << "error: type: --format " << format << " draws rank-1 or rank-2 layouts; " << r.text << " has rank "
              << tessel::rank(r.layout) << '\n';
    return 1;
  }
  if (tessel::size(r.layout) > tessel::calc::kMaxDrawCells) {
    std::cerr << "error: capacity: --format " << format << " draws at most " << tessel::calc::kMaxDrawCells
              << " cells; " << r.text << " has " << tessel::size(r.layout) << '\n';
    return 1;
  }
  std::string out;
  bool drawn = false;
  if (format == "ascii") drawn = tessel::calc::draw_ascii(r.layout, out);
  if (format == "svg") drawn = tessel::calc::draw_svg(r.layout, out);
  if (format == "latex") drawn = tessel::calc::draw_latex(r.layout, out);
  if (!drawn) {  // not reached: rank and size were checked above
    std::cerr << "error: type: --format " << format << " cannot draw " << r.text << '\n';
    return 1;
  }
  std::cout << out;
  return 0;
}

// ---------------------------------------------------------------- tessel bench gemm

constexpr const char* kBenchGemmHelp = R"(Every problem is verified before it is timed (docs/bench-protocol.md):
A, B (and C when beta != 0) hold random data, an fp64 reference GEMM runs on
the device, and cuBLASLt and each step run once on a NaN-poisoned D.
  tier1  integers in [-4,4]; D must equal the rounded reference bit for bit
  tier2  uniform [-1,1]; |D - ref| <= 2u|ref| + 2K 2^-24 |alpha| (|A||B|) + 2u|beta C|,
         and the step's largest normalized error at most 2x cuBLAS's
Rows that pass are timed: warm-up (>= --warmup launches and 25 ms), then
>= --iterations launches and --min-ms (200) ms with the L2 flushed before each launch;
median, min and p90 from CUDA events.  cuBLASLt (first heuristic, 32 MiB
workspace, CUBLAS_COMPUTE_32F: plain fp32, no TF32, for --dtype fp32 too)
is timed in the same run; ratio = t_cublas / t_impl
(> 1: tessel is faster).  Dispositions: passed, incorrect, not_supported
(the step refuses the problem; the reason is in `note`), error.

The flush (--flush, column l2_flush): `read` (default) runs a kernel that
reads a buffer of >= 2x the L2, leaving only clean lines; `memset` writes the
buffer instead (the old way: its dirty lines are written back during the
timed launch; cuBLAS at M=16, N=K=8192 on an H100 ran 17% slower after a
memset than after a read, measured through PyTorch).  Also per row:
gbytes_per_s = (A + B + D, + C when beta != 0, in bytes) / median time in
GB/s, the measure for small M; sm_clock_mhz and power_w, the means of NVML
samples (every 5 ms) over the timed launches, empty where NVML
(libnvidia-ml.so.1) cannot be loaded; and the cublas_ columns for cuBLAS's
launches in the same row.

The order (--order, column timing): `interleaved` (default) times cuBLASLt
and every step of a problem in one loop, one launch each per round with the
first of each round rotating, so that all of them run at the same clock and
temperature (at the H100's power cap the clock moves by 10 % and more within
a run, and whatever ran last ran hotter); the clock and power columns are then
the loop's means, the same in every row of the problem and repeat.  `blocks`
times each in its own loop (cuBLAS first in odd repeats, last in even ones),
with its own clock and power.  `none` verifies every row and times nothing
(the time, clock and power columns stay empty): for runs under
compute-sanitizer, whose tracking of a timed loop's thousands of launches
runs out of memory.

The epilogue (--epilogue E, --bias row|col, column epilogue; docs/epilogues.md):
every step runs as `impl` (tessel::gemm with the epilogue: fused in k13's
epilogue where it has the instance, else unfused inside the call) and as
`impl:unfused` (the plain GEMM, then gemm_epilogue_apply over D, timed as one
item) and as `impl:plain` (the GEMM without the epilogue; verified through the
unfused row); cuBLASLt runs CUBLASLT_EPILOGUE_BIAS / RELU / RELU_BIAS / GELU /
GELU_BIAS (its bias is per row of its column-major D^T, so per column of our
D), and where it has no such epilogue (gelu_erf, silu, a row bias) its plain
GEMM and then tessel's gemm_epilogue_apply, as the note says.  All of them
are verified against the fp64 reference with the epilogue applied.

Sizes: 4096, a list 1024,2048, a range start:stop:step (stop inclusive) such
as 1024:8192:1024, or a mix; the problems are the product of --m, --n, --k
and the layouts.  Layouts: A:k,B:n (default), A:k,B:k, A:m,B:n, A:m,B:k, the
short forms kn kk mn mk, BLAS's transposes of column-major operands (tn =
A:k,B:k, nt = A:m,B:n, nn = A:m,B:k, tt = A:k,B:n), or all; repeat --layout or
separate with ';'.

Many problems per row: --batch B runs B packed problems of each shape
(tessel::gemm with GemmArgs::batch; every step serves it, k13 in one launch;
cuBLASLt strided batched as the reference); --group-m LIST with --n and --k
(or --grouped moe) runs one problem per M, each with its own B, through
tessel::gemm_grouped (rows auto and k13; other steps are not_supported)
against cublasGemmGroupedBatchedEx, or a loop of cuBLASLt calls where that
call does not serve the types (the cuBLAS note says which).  m is then the
sum of the group's M; tflops and gbytes_per_s count every problem.

Examples:
  tessel bench gemm --m 4096 --n 4096 --k 4096
  tessel bench gemm --m 1024:8192:1024 --n 4096 --k 4096 --impl k04,k11 --csv sweep.csv
  tessel bench gemm --suite tests/data/bench_suite.csv --repeat 2 --csv suite.csv --json suite.json
  tessel bench gemm --m 4096 --n 4096 --k 4096 --layout all --dtype fp16 --out-dtype fp32 --verify tier1
  tessel bench gemm --m 4096 --n 4096 --k 4096 --dtype fp32 --impl all
  tessel bench gemm --batch 32 --m 512,2048 --n 512,2048 --k 128
  tessel bench gemm --grouped moe
  tessel bench gemm --group-m 1,64,300,1024 --n 4096 --k 7168 --impl auto,k13
  python3 bench/plot_gemm.py suite.csv --out suite.png

Exit status: 0 when the run finished (whatever the dispositions), 1 when an
output cannot be written, 2 for bad arguments, 3 when a CUDA error stopped the
run, 4 without a CUDA device (or in a build without CUDA).)";

// ---------------------------------------------------------------- tessel draw

constexpr const char* kDrawHelp = R"(Draw thread-value (TV) layouts: which thread owns each element of a tile and
as which value of its fragment (cells `T<t>` over `V<v>`, coloured by thread;
`+` marks a cell owned by several (thread, value) pairs; white: no owner).
--format ascii fits 100 columns: a wider tile is printed in bands of whole
columns, each headed `columns A-B of N:`, and long notes are wrapped.

Examples:
  tessel draw mma SM80_16x8x16_F32BF16BF16F32_TN
  tessel draw mma SM80_16x8x16_F32BF16BF16F32_TN --atoms 2x2x1 -o tiled_mma.svg
  tessel draw mma SM90_64x128x16_F32BF16BF16_RS --format ascii   (wgmma; _SS: A from shared memory)
  tessel draw copy --thr '(16,8):(8,1)' --val '(1,8):(0,1)' --format ascii
  tessel draw atom 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' --operand DST
  tessel draw tv '((4,8),(2,2)):((32,1),(16,8))' --tile 16x8
  tessel draw list)";

struct DrawOptions {
  std::string format = "svg", output;
  std::string name, atoms = "1x1x1", operand, thr, val, layout, tile;
};

int draw_error(const std::string& message, int status = kExitFailed) {
  std::cerr << "error: " << message << '\n';
  return status;
}

int run_draw(const std::string& kind, const DrawOptions& o) {
  namespace calc = tessel::calc;
  if (kind == "list") {
    std::cout << calc::tv_drawing_names();
    return 0;
  }
  calc::TvDrawing d;
  std::string error;
  bool built = false;
  if (kind == "mma") {
    std::vector<tessel::index_t> a;
    if (!calc::parse_dims(o.atoms, 3, 64, a))
      return draw_error("--atoms takes AMxANxAK, three integers from 1 to 64 (e.g. 2x2x1); got '" + o.atoms + "'",
                        kExitUsage);
    built =
        calc::tv_drawing_mma(o.name, static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2]), d, error);
  } else if (kind == "copy") {
    tessel::Layout thr, val;
    built = calc::tv_layout_argument("--thr", o.thr, thr, error) &&
            calc::tv_layout_argument("--val", o.val, val, error) && calc::tv_drawing_copy(thr, val, d, error);
  } else if (kind == "atom") {
    built = calc::tv_drawing_atom(o.name, o.operand, d, error);
  } else if (kind == "tv") {
    std::vector<tessel::index_t> t;
    if (!calc::parse_dims(o.tile, 2, tessel::calc::kMaxDrawCells, t))
      return draw_error("--tile takes RxC, two integers from 1 to " + std::to_string(tessel::calc::kMaxDrawCells) +
                            " (e.g. 16x8); got '" + o.tile + "'",
                        kExitUsage);
    tessel::Layout tv;
    built =
        calc::tv_layout_argument("layout", o.layout, tv, error) && calc::tv_drawing_layout(tv, t[0], t[1], d, error);
  }
  if (!built) return draw_error(error);
  std::string out;
  const bool drawn = o.format == "ascii" ? calc::draw_tv_ascii(d, out, error) : calc::draw_tv_svg(d, out, error);
  if (!drawn) return draw_error(error);
  if (o.output.empty() || o.output == "-") {
    std::cout << out;
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  std::ofstream f(o.output, std::ios::binary);
  if (!f || !(f << out) || !f.flush()) return draw_error("cannot write " + o.output);
  return 0;
}

/// A command-line parse error: help and --version exit 0; anything else is a
/// usage error (exit 2) whose one-line message names the word that failed.
/// CLI11 reads an unknown subcommand as a missing one ("A subcommand is
/// required"), so the words are walked here to name it.
constexpr const char* kJitHelp = R"(The cache of kernels compiled at run time (docs/design.md section 6).

tessel::gemm compiles a kernel with nvcc when a call asks for it
(GemmTuning::jit; tessel bench gemm --jit, or TESSEL_JIT=1) and the
ahead-of-time kernels do not serve the call fused: today k13's fused
epilogue with C (beta != 0) or an aux output.  The first call of such a
configuration waits for nvcc (seconds to a minute); the cubin is then kept in
the cache and loaded from there by later processes.

  TESSEL_CACHE_DIR    the cache (else $XDG_CACHE_HOME/tessel/kernels, else
                      $HOME/.cache/tessel/kernels)
  TESSEL_NVCC         the nvcc to run (else the one tessel was built with,
                      else nvcc on PATH)
  TESSEL_INCLUDE_DIR  the directory holding tessel/ (else the source tree's
                      or the installed headers)

With no option: the cache directory, the compiler and the number of cached
kernels.  Clearing (or deleting the directory) is always safe: a kernel that
is needed again is compiled again.)";

constexpr const char* kTuneHelp = R"(Measured tuning (docs/heuristics.md, "Measured tuning").

tessel::gemm with GemmTuning::tune (or TESSEL_TUNE=1) times, on the first
call of a problem, the configurations the plan could run (k13's tiles and
splits, the swapped tiles, k14's clusters, k15) and keeps the fastest; later
calls, in any process, read it from the cache.  `tessel tune --suite FILE`
tunes every problem of a suite ahead of time (random:SEED:COUNT draws them),
printing the benchmark's CSV with the chosen configuration in `note`.

  TESSEL_TUNE_CACHE   the cache (else $TESSEL_CACHE_DIR/tune, else
                      $XDG_CACHE_HOME/tessel/tune, else $HOME/.cache/tessel/tune)
  TESSEL_TUNE_LOG     append every timed configuration to this file

Clearing (or deleting the directory) is always safe: a problem is tuned again.)";

/// `tessel tune --list / --clear`: the kept choices.
int run_tune_cache(bool list, bool clear) {
  const std::string dir = tessel::tune_cache_dir();
  std::cout << "cache: "
            << (dir.empty() ? "(none: TESSEL_TUNE_CACHE, TESSEL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset)" : dir)
            << "\n";
  if (clear) {
    int removed = 0;
    const tessel::Status s = tessel::tune_cache_clear(&removed);
    if (!s) {
      std::cerr << "tessel tune --clear: " << s.message << "\n";
      return kExitFailed;
    }
    std::cout << "removed " << removed << " files\n";
    return kExitOk;
  }
  std::vector<tessel::TuneCacheEntry> entries;
  int skipped = 0;
  if (const tessel::Status s = tessel::tune_cache_list(entries, &skipped); !s) {
    std::cerr << "tessel tune: " << s.message << "\n";
    return kExitFailed;
  }
  if (list)
    for (const tessel::TuneCacheEntry& e : entries)
      std::cout << e.choice << "  " << e.median_us << " us  (" << e.timed << " timed)  " << e.key << "\n";
  std::cout << entries.size() << " tuned problems"
            << (skipped > 0 ? ", " + std::to_string(skipped) + " unreadable files" : "")
            << (list ? "" : " (tessel tune --list)") << "\n";
  return kExitOk;
}

/// `tessel jit`: where the cache is, what it holds, or clear it.
int run_jit(bool list, bool clear) {
  const std::string dir = tessel::jit_cache_dir();
  std::cout << "cache: " << (dir.empty() ? "(none: TESSEL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset)" : dir) << "\n";
  if (clear) {
    int removed = 0;
    const tessel::Status s = tessel::jit_cache_clear(&removed);
    if (!s) {
      std::cerr << "tessel jit --clear: " << s.message << "\n";
      return kExitFailed;
    }
    std::cout << "removed " << removed << " files\n";
    return kExitOk;
  }
  std::vector<tessel::JitCacheEntry> entries;
  const tessel::Status s = tessel::jit_cache_list(entries);
  if (!s) {
    std::cerr << "tessel jit: " << s.message << "\n";
    return kExitFailed;
  }
  if (list) {
    for (const tessel::JitCacheEntry& e : entries)
      std::cout << e.file << "  " << e.bytes << " bytes  " << (e.what.empty() ? "?" : e.what) << "\n";
    return kExitOk;
  }
  std::string why;
  const std::string nvcc = tessel::jit_compiler(&why);
  std::cout << "compiler: " << (nvcc.empty() ? "none (" + why + ")" : nvcc) << "\n";
  std::cout << entries.size() << " cached kernels (tessel jit --list)\n";
  return kExitOk;
}

int usage_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
  static const std::map<std::string, std::vector<std::string>> kSubcommands = {
      {"tessel", {"layout", "draw", "bench", "jit"}},
      {"tessel bench", {"copy", "gemm", "attention"}},
      {"tessel draw", {"mma", "copy", "atom", "tv", "list"}},
  };
  auto one_of = [](const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
      out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
  };
  std::string path = "tessel";
  std::string message = e.what();
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const auto it = kSubcommands.find(path);
    if (it == kSubcommands.end() || word.empty() || word[0] == '-') break;
    if (std::find(it->second.begin(), it->second.end(), word) == it->second.end()) {
      message = "unknown subcommand '" + word + "' (expected " + one_of(it->second) + ")";
      break;
    }
    path += " " + word;
  }
  const auto it = kSubcommands.find(path);
  if (message == e.what() && it != kSubcommands.end() && message.find("subcommand") != std::string::npos)
    message = "a subcommand is required: " + one_of(it->second);
  std::cerr << path << ": " << message << " (see " << path << " --help)\n";
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tessel: layout algebra and GPU kernels for NVIDIA Hopper"};
  app.set_version_flag("--version", "tessel " TESSEL_VERSION);
  app.require_subcommand(1);

  auto* layout = app.add_subcommand("layout", "evaluate layout-algebra expressions");
  layout->footer(kLayoutHelp);
  std::string expr, batch, format = "text";
  layout->add_option("expression", expr, "one expression, e.g. 'composition((6,2):(8,2),(4,3):(3,1))'");
  layout->add_option("--batch", batch, "file with one expression per line, or - for standard input");
  layout->add_option("--format", format, "output for a single layout result")
      ->check(CLI::IsMember({"text", "ascii", "svg", "latex"}));

  auto* bench = app.add_subcommand("bench", "benchmarks on the GPU (docs/bench-protocol.md: verified, then timed)");
  bench->require_subcommand(1);
  auto* bench_copy = bench->add_subcommand("copy", "tile copy kernels vs cudaMemcpy device-to-device");
  std::vector<std::size_t> sizes{16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  std::vector<std::string> kernel_names{"scalar", "vector", "cp_async", "swizzled", "tma", "transpose"};
  std::string csv;
  tessel::index_t cols = 0;
  bench_copy->add_option("--sizes", sizes, "matrix sizes in MiB (list: 16,64,4096)")->delimiter(',');
  bench_copy->add_option("--kernels", kernel_names, "kernels (scalar,vector,cp_async,swizzled,tma,transpose)")
      ->delimiter(',');
  bench_copy->add_option("--cols", cols, "row length of the bf16 matrix (default: near-square, a power of two)")
      ->check(CLI::Range(8, 1 << 22));
  bench_copy->add_option("--csv", csv, "write the CSV here (default: standard output)");

  auto* bench_attn = bench->add_subcommand(
      "attention", "fused attention's steps, verified on sampled rows against fp64, then timed interleaved");
  tessel::bench::AttentionBenchOptions attn;
  // Every step by default (auto is asked for by name); --impl takes any of kAttentionImpls' names.
  std::vector<std::string> attn_impls, attn_impl_names, attn_masks{"none"};
  for (tessel::AttentionImpl i : tessel::kAttentionImpls) {
    attn_impl_names.emplace_back(tessel::name(i));
    if (i != tessel::AttentionImpl::automatic) attn_impls.emplace_back(tessel::name(i));
  }
  std::string attn_dtype = "bf16", attn_layout = "bhsd";
  bench_attn->add_option("--seq", attn.seqs, "query (and key) lengths (list; default 8192)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 24));
  bench_attn->add_option("--seq-kv", attn.seq_kv, "key length when it differs from --seq")
      ->check(CLI::Range(1, 1 << 24));
  bench_attn->add_option("--batch", attn.batch, "sequences (default 1)")->check(CLI::Range(1, 65535));
  bench_attn
      ->add_option("--lengths", attn.lengths,
                   "packed sequences of these lengths, query and key (list; cu_seqlens): one problem, in place of "
                   "--seq, --seq-kv and --batch")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 24));
  bench_attn->add_option("--heads", attn.heads, "query heads (default 32)")->check(CLI::Range(1, 65535));
  bench_attn->add_option("--kv-heads", attn.kv_heads, "key/value heads, dividing --heads (default: --heads)")
      ->check(CLI::Range(1, 65535));
  bench_attn->add_option("--dim", attn.dims, "head dims (list: 64,96,128,192,256; default 128)")->delimiter(',');
  bench_attn->add_option("--mask", attn_masks, "none or causal, or both as none,causal (default none)")
      ->delimiter(',')
      ->check(CLI::IsMember({"none", "causal"}));
  bench_attn->add_option("--dtype", attn_dtype, "bf16 (default) or fp16")->check(CLI::IsMember({"bf16", "fp16"}));
  bench_attn->add_option("--layout", attn_layout, "bhsd (default: batch, heads, seq, dim) or bshd")
      ->check(CLI::IsMember({"bhsd", "bshd"}));
  bench_attn->add_option("--impl", attn_impls, "steps to time (list of a01-a10, auto; the first is the ratio's base)")
      ->delimiter(',')
      ->check(CLI::IsMember(attn_impl_names));
  bench_attn->add_option("--iterations", attn.iterations, "minimum timed launches (default 50; and >= 200 ms)")
      ->check(CLI::Range(1, 100000));
  bench_attn->add_option("--warmup", attn.warmup, "minimum warm-up launches (default 10; and >= 25 ms)")
      ->check(CLI::Range(0, 100000));
  bench_attn->add_option("--repeat", attn.repeat, "timed rows per step and problem (default 1)")
      ->check(CLI::Range(1, 1000));
  bench_attn->add_option("--verify-rows", attn.verify_rows, "query rows checked against fp64 (default 64)")
      ->check(CLI::Range(1, 1 << 20));
  bench_attn->add_flag("--verify-only", attn.verify_only, "verify every step, time nothing (compute-sanitizer runs)");
  bench_attn->add_option("--csv", attn.csv, "write the CSV here (default or -: standard output)");

  // Every value is taken as text and validated by parse_gemm_bench_args, so
  // that a bad value is one clear message naming the flag (exit 1).
  auto* bench_gemm = bench->add_subcommand("gemm", "GEMM ladder steps vs cuBLASLt (verified, then timed)");
  bench_gemm->footer(kBenchGemmHelp);
  tessel::bench::GemmBenchArgs gemm_args;
  bench_gemm->add_option("--m", gemm_args.m, "M: 4096, 1024,2048, 1024:8192:1024 or a mix")->type_name("SIZES");
  bench_gemm->add_option("--n", gemm_args.n, "N (as --m)")->type_name("SIZES");
  bench_gemm->add_option("--k", gemm_args.k, "K (as --m)")->type_name("SIZES");
  bench_gemm
      ->add_option("--suite", gemm_args.suite,
                   "CSV of problems with header group,m,n,k (optional columns dtype, out_dtype, layout, alpha, "
                   "beta), or random:SEED:COUNT (COUNT problems of the distribution in docs/bench-protocol.md, "
                   "groups a64, a8, odd); replaces --m/--n/--k")
      ->type_name("FILE");
  bench_gemm
      ->add_option("--dtype", gemm_args.dtype,
                   "type of A and B: bf16 (default), fp16, fp32 (the fp32 ladder f01..f12; C and D fp32), or e4m3 or "
                   "e5m2 (FP8 on k13: A:k, B:k, the default layout then; C and D bf16 by default), or A's and B's "
                   "FP8 formats where they differ: e4m3xe5m2, e5m2xe4m3")
      ->type_name("TYPE");
  bench_gemm
      ->add_option("--out-dtype", gemm_args.out_dtype,
                   "type of C and D: bf16, fp16 or fp32 (default: --dtype; bf16 for FP8)")
      ->type_name("TYPE");
  bench_gemm
      ->add_option("--layout", gemm_args.layouts,
                   "A:k,B:n (default), A:k,B:k, A:m,B:n, A:m,B:k, kn.., BLAS's nn nt tn tt, or all")
      ->type_name("LAYOUTS")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  bench_gemm->add_option("--alpha", gemm_args.alpha, "alpha (default 1)")->type_name("X");
  bench_gemm->add_option("--beta", gemm_args.beta, "beta (default 0; C is allocated and read only when beta != 0)")
      ->type_name("X");
  bench_gemm
      ->add_option(
          "--impl", gemm_args.impls,
          "auto (the plan chooses), tuned (auto with measured tuning: the first call times the candidate "
          "configurations, TESSEL_TUNE), k01..k15, f01..f12 (fp32), long names, cublas, all (the ladder of --dtype); "
          "comma list (default: auto,cublas)")
      ->type_name("IMPLS")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  bench_gemm
      ->add_option("--reference", gemm_args.reference,
                   "cublas (default: cuBLASLt's first heuristic algorithm) or cublas_fp32 (the first one that reduces "
                   "split K in fp32, not in the output type); the CSV's cublas_reduction says how it reduced")
      ->type_name("REF");
  bench_gemm->add_option("--csv", gemm_args.csv, "write the CSV here (default or -: standard output)")
      ->type_name("FILE");
  bench_gemm->add_option("--json", gemm_args.json, "write device, protocol, rows and summary as JSON here")
      ->type_name("FILE");
  bench_gemm->add_option("--iterations", gemm_args.iterations, "minimum timed launches (default 50; and >= --min-ms)")
      ->type_name("N");
  bench_gemm
      ->add_option("--min-ms", gemm_args.min_ms,
                   "minimum timed milliseconds per loop (default 200, the protocol's; at the power cap ~2000 lets "
                   "--order blocks average the clock's swing)")
      ->type_name("MS");
  bench_gemm
      ->add_option("--heat-ms", gemm_args.heat_ms,
                   "untimed launches of what a problem times first, for MS ms before its first timed loop, so that "
                   "it does not run on a card cooled by the verification (default: --min-ms with --order blocks, "
                   "0 with interleaved; 0 turns it off)")
      ->type_name("MS");
  bench_gemm->add_option("--warmup", gemm_args.warmup, "minimum warm-up launches (default 10; and >= 25 ms)")
      ->type_name("N");
  bench_gemm->add_option("--verify", gemm_args.verify, "tier1, tier2 (default) or none")->type_name("TIER");
  bench_gemm->add_option("--repeat", gemm_args.repeat, "timed rows per implementation and problem (default 1)")
      ->type_name("R");
  bench_gemm
      ->add_option("--flush", gemm_args.flush,
                   "L2 flush before each timed launch: read (default; a kernel reads >= 2x L2) or memset (the old "
                   "cudaMemsetAsync, whose write-backs slow the timed launch)")
      ->type_name("MODE");
  bench_gemm
      ->add_option(
          "--order", gemm_args.order,
          "interleaved (default: every implementation of a problem in one timed loop, in turn, so all see "
          "the same clock), blocks (each in its own loop, one after the other, at the clock its own power sets: "
          "at the power cap give each block ~2 s with --min-ms 2000) or none (verify only, time nothing: for "
          "compute-sanitizer runs)")
      ->type_name("ORDER");
  bench_gemm
      ->add_option("--tile-n", gemm_args.tile_n,
                   "k13/auto: tile width 64, 128, 192 or 256, or a multiple of 16 from 80 to 240 on 128 rows of M; "
                   "with --swap-ab on, the width along M: 16, 32 or 64, "
                   "or (A:k only) a multiple of 16 from 80 to 256 on 128 rows of N, or with --tile-m 64 48, 80 or 96 "
                   "(default: the plan's choice)")
      ->type_name("N");
  bench_gemm
      ->add_option(
          "--tile-m", gemm_args.tile_m,
          "k13: the tile's rows, 128 (two consumer warpgroups) or 64 (one: swapped 64 x 16, 32, 48, 64, 80 or 96, "
          "twice the CTAs without splitting K; unswapped 64 x 128) (default: the plan's)")
      ->type_name("M");
  bench_gemm
      ->add_option("--swap-ab", gemm_args.swap_ab,
                   "k13/auto: on computes D^T = B^T A^T (small M as the tile's narrow side; note column "
                   "\"swapped\"), off never (default: the plan's, which swaps M <= 64 with N >= 128); k14: on runs "
                   "the 128-row swapped widths (--tile-n 80..256, A:k) on pairs sharing A")
      ->type_name("on|off");
  bench_gemm->add_option("--splits", gemm_args.splits, "k13/auto: split K into S ranges, 1..64 (default: the plan's)")
      ->type_name("S");
  bool gemm_list = false;
  bench_gemm->add_flag("--list", gemm_list,
                       "print the problems as a suite CSV (header group,m,n,k,dtype,out_dtype,layout,alpha,beta) and "
                       "exit, no GPU needed: what random:SEED:COUNT draws, for a second build or a subset");
  bool gemm_plan_only = false;
  bench_gemm->add_flag("--plan", gemm_plan_only,
                       "print what auto chooses for each problem as CSV (kernel, tuning, the deciding rule's words) "
                       "and exit, no GPU needed: the plan for a sm_90 device of --sms SMs, the tuning options kept");
  int gemm_sms = tessel::GemmDevice{}.sms;
  bench_gemm->add_option("--sms", gemm_sms, "with --plan: the SM count to plan for (default 132: H100 SXM, H200)")
      ->check(CLI::Range(1, 1024))
      ->type_name("N");
  bench_gemm->add_flag("--fp8-fast-accum", gemm_args.fp8_fast_accum,
                       "FP8: sum in the tensor core's accumulator from the first k-tile to the last, tessel and "
                       "cuBLASLt (FAST_ACCUM) alike (default: both promote the sums into fp32)");
  bench_gemm
      ->add_option("--fp8-promote-every", gemm_args.fp8_promote_every,
                   "FP8: promote the sums into fp32 every P k-tiles of 128, 1..64 (default: the library's)")
      ->type_name("P");
  bench_gemm
      ->add_option("--scale", gemm_args.scale,
                   "FP8 scales, tessel and cuBLASLt alike: none, tensor (one each for A and B), channel (per row of "
                   "A and column of B) or block (1 x 128 of A, 128 x 128 of B); filled with powers of two "
                   "(default none)")
      ->type_name("MODE");
  bench_gemm->add_flag("--split-tail", gemm_args.split_tail,
                       "k13/auto: with --splits S, split only the tiles past the grid's full waves, the full waves "
                       "unsplit (default: the plan's)");
  bench_gemm
      ->add_option("--split-sum", gemm_args.split_sum,
                   "k13/auto: who sums the partials where k13 splits K through global memory (unfused 16-bit "
                   "calls, no --split-tail): last (each tile's last unit) or kernel (a second kernel over all the "
                   "SMs, launched as a programmatic dependent of the GEMM) (default: the plan's, last)")
      ->type_name("WHO");
  bench_gemm
      ->add_option("--cluster", gemm_args.cluster,
                   "k14: CTAs a cluster, 2 (pairs sharing one operand, the default) or 4 (2 x 2 sharing A and B; "
                   "tiles 64 x 128 and 128 x 128); k15: 2 runs its pingpong CTAs in pairs sharing B; k13: 1 "
                   "splits K through partials in global memory where it would split inside clusters (the swapped "
                   "16- and 32-wide tiles, 2..8 splits); auto: 1 keeps the plan on k13, 2 and 4 go to the step it "
                   "plans, which refuses them by name unless it is k14 (or k15 for 2)")
      ->type_name("N");
  bench_gemm
      ->add_option("--cluster-share", gemm_args.cluster_share,
                   "k14: the operand tile its pairs of 128-row tiles share by multicast, a (N-neighbours) or b "
                   "(M-neighbours) (default: the plan's; 128 x 64 pairs share A)")
      ->type_name("A|B");
  bench_gemm
      ->add_option("--stages", gemm_args.stages,
                   "k13/auto: stages in flight of the swapped x 16 / x 32 tiles, 1..64, at most those that fit "
                   "(default: the launch's, by the grid's size); other tiles keep their compiled depth; auto then "
                   "runs k13 where it would run the small-M kernel (which takes no depth)")
      ->type_name("S");
  bench_gemm
      ->add_option("--m-max", gemm_args.m_max,
                   "with --suite: keep only its problems with M <= M (random:SEED:COUNT draws COUNT, then "
                   "filters them, in order)")
      ->type_name("M");
  bench_gemm
      ->add_option("--raster-group", gemm_args.raster_group,
                   "k13/k15/auto: tile rows per group of the raster in which the persistent CTAs take their tiles, "
                   "1..65536 (default: the plan's)")
      ->type_name("G");
  bench_gemm
      ->add_option("--epilogue", gemm_args.epilogue,
                   "D = act(alpha A B + beta C + bias): none (default), bias, relu, bias_relu, gelu, bias_gelu (gelu: "
                   "the erf GELU, as in PyTorch), gelu_erf, bias_gelu_erf, gelu_tanh, bias_gelu_tanh (the tanh form, "
                   "cuBLASLt's GELU), silu, bias_silu; each step then also runs "
                   "unfused (impl:unfused: the plain GEMM + tessel's elementwise epilogue) and plain (impl:plain), "
                   "cuBLASLt with its "
                   "matching epilogue (column epilogue)")
      ->type_name("E");
  bench_gemm
      ->add_option("--bias", gemm_args.bias,
                   "the bias runs along D's columns (col, default: one value per column) or rows (row)")
      ->type_name("col|row");
  bench_gemm
      ->add_option("--batch", gemm_args.batch,
                   "strided batched: B problems of each shape, packed (tessel::gemm with GemmArgs::batch against "
                   "cuBLASLt strided batched; FLOP and byte columns count every problem)")
      ->type_name("B");
  bench_gemm
      ->add_option("--group-m", gemm_args.group_m,
                   "grouped: one problem of M x N x K per M of the list (with --n and --k), each with its own B, "
                   "run by tessel::gemm_grouped (auto, k13) against cublasGemmGroupedBatchedEx (else a loop of "
                   "cuBLASLt calls)")
      ->type_name("LIST");
  bench_gemm
      ->add_option("--grouped", gemm_args.grouped,
                   "moe: --group-m 64,128,256,512,768,1024,1536,2048 --n 4096 --k 7168 (a mixture-of-experts layer)")
      ->type_name("NAME");
  bool gemm_jit = false;
  bench_gemm->add_flag("--jit", gemm_jit,
                       "k13/auto: compile fused epilogues the ahead-of-time kernels do not fuse (C, aux) at run time "
                       "with nvcc, cached on disk (tessel jit --help; also TESSEL_JIT=1, or TESSEL_JIT=always for "
                       "every fused epilogue)");

  auto* jit = app.add_subcommand("jit", "the disk cache of run-time compiled kernels (docs/design.md section 6)");
  jit->footer(kJitHelp);
  bool jit_list = false, jit_clear = false;
  jit->add_flag("--list", jit_list, "list the cached kernels");
  jit->add_flag("--clear", jit_clear, "delete the cached kernels (the directory's other files stay)");

  auto* tune =
      app.add_subcommand("tune", "measured tuning: tune a suite ahead of time, list or clear the kept choices");
  tune->footer(kTuneHelp);
  bool tune_list = false, tune_clear = false;
  tessel::bench::GemmBenchArgs tune_args;
  tune->add_option("--suite", tune_args.suite, "CSV of problems (as tessel bench gemm --suite) or random:SEED:COUNT")
      ->type_name("FILE");
  tune->add_option("--dtype", tune_args.dtype, "type of A and B: bf16 (default) or fp16")->type_name("TYPE");
  tune->add_option("--out-dtype", tune_args.out_dtype, "type of C and D (default: --dtype)")->type_name("TYPE");
  tune->add_option("--layout", tune_args.layouts, "layouts (as tessel bench gemm --layout)")
      ->type_name("LAYOUT")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  tune->add_option("--beta", tune_args.beta, "beta (default 0)")->type_name("X");
  tune->add_flag("--list", tune_list, "list the kept choices");
  tune->add_flag("--clear", tune_clear, "delete the kept choices");

  auto* draw =
      app.add_subcommand("draw", "draw thread-value layouts (MMA atoms, TiledMMA, TiledCopy, ldmatrix/stmatrix)");
  draw->footer(kDrawHelp);
  draw->require_subcommand(1);
  DrawOptions draw_opt;
  auto draw_output = [&draw_opt](CLI::App* s) {
    s->add_option("--format", draw_opt.format, "svg (default) or ascii")->check(CLI::IsMember({"svg", "ascii"}));
    s->add_option("-o,--output", draw_opt.output, "write to FILE instead of standard output");
  };
  auto* draw_mma = draw->add_subcommand("mma", "A, B and C of an MMA atom or of a TiledMMA");
  draw_mma->add_option("atom", draw_opt.name, "MMA atom name (tessel draw list)")->required();
  draw_mma->add_option("--atoms", draw_opt.atoms, "AMxANxAK atoms of the TiledMMA (default 1x1x1: the atom)");
  draw_output(draw_mma);
  auto* draw_copy = draw->add_subcommand("copy", "a TiledCopy's TV over its copy tile (destination-side ownership)");
  draw_copy->add_option("--thr", draw_opt.thr, "thread layout, e.g. '(16,8):(8,1)'")->required();
  draw_copy->add_option("--val", draw_opt.val, "value layout, e.g. '(1,8):(0,1)'")->required();
  draw_output(draw_copy);
  auto* draw_atom = draw->add_subcommand("atom", "an instruction's operand layout (tessel draw list)");
  draw_atom->add_option("instruction", draw_opt.name, "PTX instruction, e.g. ldmatrix.sync.aligned.m8n8.x4.shared.b16")
      ->required();
  draw_atom->add_option("--operand", draw_opt.operand, "A, B, C, SRC or DST (default: every operand)");
  draw_output(draw_atom);
  auto* draw_tv = draw->add_subcommand("tv", "any TV layout over an RxC tile");
  draw_tv->add_option("layout", draw_opt.layout, "(THREAD,VALUE) layout, e.g. '((4,8),(2,2)):((32,1),(16,8))'")
      ->required();
  draw_tv->add_option("--tile", draw_opt.tile, "tile RxC (index r + R*c), e.g. 16x8")->required();
  draw_output(draw_tv);
  auto* draw_list = draw->add_subcommand("list", "the MMA atoms and instruction layouts that draw knows");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e, argc, argv);
  }

  if (bench_copy->parsed()) {
#if defined(TESSEL_HAVE_CUDA)
    tessel::bench::CopyBenchOptions opt;
    opt.sizes_mib = sizes;
    opt.cols = cols;
    opt.csv = csv;
    for (const std::string& k : kernel_names) {
      tessel::CopyKernel kernel;
      if (!tessel::parse_copy_kernel(k, kernel)) {
        std::cerr << "tessel bench copy: --kernels: unknown kernel '" << k << "'\n";
        return kExitUsage;
      }
      opt.kernels.push_back(kernel);
    }
    return tessel::bench::run_copy_bench(opt);
#else
    std::cerr << "tessel bench copy: this tessel was built without CUDA (use the sm90a preset)\n";
    return kExitNoCuda;
#endif
  }

  if (bench_attn->parsed()) {
    if (attn.kv_heads == 0) attn.kv_heads = attn.heads;
    if (!attn.lengths.empty() &&
        (attn.seq_kv > 0 || bench_attn->count("--seq") > 0 || bench_attn->count("--batch") > 0)) {
      std::cerr << "tessel bench attention: --lengths gives the packed sequences' lengths: drop --seq, --seq-kv and "
                   "--batch\n";
      return kExitUsage;
    }
    tessel::index_t packed_rows = 0;
    for (const tessel::index_t n : attn.lengths) packed_rows += n;
    if (packed_rows > (tessel::index_t{1} << 30)) {
      std::cerr << "tessel bench attention: --lengths: " << packed_rows << " packed rows, at most 2^30\n";
      return kExitUsage;
    }
    if (attn.heads % attn.kv_heads != 0) {
      std::cerr << "tessel bench attention: --kv-heads " << attn.kv_heads << " must divide --heads " << attn.heads
                << "\n";
      return kExitUsage;
    }
    attn.impls.clear();
    for (const std::string& i : attn_impls) attn.impls.push_back(*tessel::parse_attention_impl(i));
    attn.causal.clear();
    for (const std::string& m : attn_masks) attn.causal.push_back(m == "causal");
    attn.dtype = attn_dtype == "bf16" ? tessel::DType::bf16 : tessel::DType::f16;
    attn.seq_major = attn_layout == "bshd";
#if defined(TESSEL_HAVE_CUDA)
    return tessel::bench::run_attention_bench(attn);
#else
    std::cerr << "tessel bench attention: this tessel was built without CUDA (use the sm90a preset)\n";
    return kExitNoCuda;
#endif
  }

  if (bench_gemm->parsed()) {
    if (gemm_jit)
      gemm_args.jit = "on";
    else if (const char* env = std::getenv("TESSEL_JIT"); env != nullptr && *env != '\0')
      gemm_args.jit = env;
    tessel::bench::GemmBenchOptions opt;
    std::string error;
    if (!tessel::bench::parse_gemm_bench_args(gemm_args, opt, error)) {
      std::cerr << "tessel bench gemm: " << error << "\n";
      return kExitUsage;
    }
    if (gemm_plan_only) {
#if defined(TESSEL_HAVE_CUDA)
      for (const tessel::bench::GemmProblem& p : opt.problems)
        if (!p.group_m.empty()) {
          std::cerr << "tessel bench gemm: --plan: grouped problems are planned together (gemm_plan_grouped)\n";
          return kExitUsage;
        }
      std::cout << tessel::bench::kSuiteColumns
                << ",batch,impl,tile_m,tile_n,splits,swap_ab,split_tail,raster_group,why\n";
      tessel::GemmDevice device;
      device.sms = gemm_sms;
      for (const tessel::bench::GemmProblem& p : opt.problems) {
        const tessel::GemmPlan plan = tessel::gemm_plan(tessel::bench::plan_args(p, opt.tuning), device);
        const tessel::GemmTuning& t = plan.tuning;
        std::cout << tessel::bench::suite_row(p) << ',' << p.batch << ',' << tessel::short_name(plan.impl) << ','
                  << t.tile_m << ',' << t.tile_n << ',' << t.splits << ',' << tessel::bench::swap_ab_name(t.swap_ab)
                  << ',' << (t.split_tail ? 1 : 0) << ',' << t.raster_group << ',' << tessel::bench::csv_field(plan.why)
                  << '\n';
      }
      return 0;
#else
      std::cerr << "tessel bench gemm: --plan: this tessel was built without CUDA (the plan lives in the kernels' "
                   "library; use the sm90a preset)\n";
      return kExitNoCuda;
#endif
    }
    if (gemm_list) {
      for (const tessel::bench::GemmProblem& p : opt.problems)
        if (p.batch != 1 || !p.group_m.empty()) {
          std::cerr << "tessel bench gemm: --list: batched and grouped problems are not a suite's rows\n";
          return kExitUsage;
        }
      std::cout << tessel::bench::kSuiteColumns << '\n';
      for (const tessel::bench::GemmProblem& p : opt.problems) std::cout << tessel::bench::suite_row(p) << '\n';
      return 0;
    }
#if defined(TESSEL_HAVE_CUDA)
    return tessel::bench::run_gemm_bench(opt);
#else
    std::cerr << "tessel bench gemm: this tessel was built without CUDA (use the sm90a preset)\n";
    return kExitNoCuda;
#endif
  }

  if (jit->parsed()) return run_jit(jit_list, jit_clear);

  if (tune->parsed()) {
    if (tune_args.suite.empty()) return run_tune_cache(tune_list, tune_clear);
    if (tune_list || tune_clear) {
      std::cerr << "tessel tune: --suite tunes; --list and --clear read or empty the cache: give one\n";
      return kExitUsage;
    }
    // The benchmark's `tuned` rows, verified once each and not timed: each
    // problem's first call is its tuning.
    tune_args.impls = {"tuned"};
    tune_args.order = "none";
    tessel::bench::GemmBenchOptions opt;
    std::string error;
    if (!tessel::bench::parse_gemm_bench_args(tune_args, opt, error)) {
      std::cerr << "tessel tune: " << error << "\n";
      return kExitUsage;
    }
    for (const tessel::bench::GemmProblem& p : opt.problems)
      if (p.in == tessel::DType::f32 || tessel::is_fp8(p.in)) {
        // Measured tuning covers 16-bit inputs: the others would run their plan and keep nothing.
        std::cerr << "tessel tune: " << tessel::name(p.in)
                  << " inputs are not tuned (measured tuning covers bf16 and fp16; the plan serves the rest)\n";
        return kExitUsage;
      }
#if defined(TESSEL_HAVE_CUDA)
    std::cerr << "tessel tune: cache " << tessel::tune_cache_dir() << "\n";
    return tessel::bench::run_gemm_bench(opt);
#else
    std::cerr << "tessel tune: this tessel was built without CUDA (use the sm90a preset)\n";
    return kExitNoCuda;
#endif
  }

  if (draw->parsed()) {
    for (CLI::App* sub : {draw_mma, draw_copy, draw_atom, draw_tv, draw_list})
      if (sub->parsed()) return run_draw(sub->get_name(), draw_opt);
  }

  if (layout->parsed()) {
    if (!batch.empty() && !expr.empty()) {
      std::cerr << "tessel layout: give either an expression or --batch, not both\n";
      return kExitUsage;
    }
    if (!batch.empty()) {
      if (format != "text") {
        std::cerr << "tessel layout: --format applies to a single expression, not to --batch\n";
        return kExitUsage;
      }
      if (batch == "-") return run_batch(std::cin);
      std::error_code ec;
      std::ifstream in(batch);
      if (!in || std::filesystem::is_directory(batch, ec)) {
        std::cerr << "tessel layout: --batch: cannot read " << batch << '\n';
        return kExitUsage;
      }
      return run_batch(in);
    }
    if (expr.empty()) {
      std::cerr << "tessel layout: an expression or --batch FILE is required (see tessel layout --help)\n";
      return kExitUsage;
    }
    return run_single(expr, format);
  }
  return kExitOk;
}
