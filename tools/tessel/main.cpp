// `tessel` — the command line.  Subcommand `layout`: the layout calculator.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <vector>
#include <iostream>
#include <string>

#include "bench.hpp"
#include "tessel/host/calc.hpp"
#if defined(TESSEL_HAVE_CUDA)
#include "tessel/host/copy.hpp"
#endif

namespace {

constexpr const char* kLayoutHelp = R"(Evaluate layout-algebra expressions (grammar: spec/layout-algebra.md §1).

A bare layout, swizzled layout or tuple is accepted too and printed as is
(useful with --format).

Examples:
  tessel layout 'logical_divide((6,20):(20,1),<2,4>)'
  tessel layout --format ascii 'make_layout((4,3),LayoutRight)'
  tessel layout --format svg 'Sw<3,3,3>o((8,64):(64,1))' > swizzle.svg
  tessel layout --batch cases.txt        (or - for standard input)

Functions: size rank depth cosize coalesce filter composition complement
right_inverse left_inverse logical_divide zipped_divide tiled_divide flat_divide
logical_product zipped_product tiled_product blocked_product raked_product
tile_to_shape make_layout eval idx2crd crd2idx.)";

/// Batch mode: one expression per line (text after a TAB is ignored, so a
/// golden `EXPR<TAB>EXPECTED` file can be fed as is); blank lines and lines
/// starting with '#' are skipped.  Prints EXPR<TAB>RESULT for every line.
int run_batch(std::istream& in) {
  std::string line;
  while (std::getline(in, line)) {
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
  if (!r.ok) {
    std::cout << r.text << '\n';
    return 1;
  }
  if (format == "text") {
    std::cout << r.text << '\n';
    return 0;
  }
  if (!r.has_layout) {
    std::cout << "error: type: --format " << format << " draws layouts; this result is " << r.text << '\n';
    return 1;
  }
  std::string out;
  bool drawn = false;
  if (format == "ascii") drawn = tessel::calc::draw_ascii(r.layout, out);
  if (format == "svg") drawn = tessel::calc::draw_svg(r.layout, out);
  if (format == "latex") drawn = tessel::calc::draw_latex(r.layout, out);
  if (!drawn) {
    std::cout << "error: type: --format " << format << " draws rank-1 or rank-2 layouts of at most "
              << tessel::calc::kMaxDrawCells << " cells; got " << r.text << '\n';
    return 1;
  }
  std::cout << out;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tessel: layout algebra and GPU kernels for NVIDIA Hopper"};
  app.set_version_flag("--version", "tessel 0.1.0");
  app.require_subcommand(1);

  auto* layout = app.add_subcommand("layout", "evaluate layout-algebra expressions");
  layout->footer(kLayoutHelp);
  std::string expr, batch, format = "text";
  layout->add_option("expression", expr, "one expression, e.g. 'composition((6,2):(8,2),(4,3):(3,1))'");
  layout->add_option("--batch", batch, "file with one expression per line, or - for standard input");
  layout->add_option("--format", format, "output for a single layout result")
      ->check(CLI::IsMember({"text", "ascii", "svg", "latex"}));

  auto* bench = app.add_subcommand("bench", "benchmarks on the GPU (PROTOCOL.md: verified, then timed)");
  bench->require_subcommand(1);
  auto* bench_copy = bench->add_subcommand("copy", "tile copy kernels vs cudaMemcpy device-to-device");
  std::vector<std::size_t> sizes{16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  std::vector<std::string> kernel_names{"scalar", "vector", "cp_async", "swizzled", "tma", "transpose"};
  std::string csv;
  tessel::index_t cols = 8192;
  bench_copy->add_option("--sizes", sizes, "matrix sizes in MiB (list: 16,64,4096)")->delimiter(',');
  bench_copy->add_option("--kernels", kernel_names, "kernels (scalar,vector,cp_async,swizzled,tma,transpose)")
      ->delimiter(',');
  bench_copy->add_option("--cols", cols, "row length of the bf16 matrix")->check(CLI::Range(8, 1 << 22));
  bench_copy->add_option("--csv", csv, "write the CSV here (default: standard output)");

  CLI11_PARSE(app, argc, argv);

  if (bench_copy->parsed()) {
#if defined(TESSEL_HAVE_CUDA)
    tessel::bench::CopyBenchOptions opt;
    opt.sizes_mib = sizes;
    opt.cols = cols;
    opt.csv = csv;
    for (const std::string& k : kernel_names) {
      tessel::CopyKernel kernel;
      if (!tessel::parse_copy_kernel(k, kernel)) {
        std::cerr << "tessel bench copy: unknown kernel '" << k << "'\n";
        return 2;
      }
      opt.kernels.push_back(kernel);
    }
    return tessel::bench::run_copy_bench(opt);
#else
    std::cerr << "tessel bench copy: this tessel was built without CUDA (use the sm90a preset)\n";
    return 2;
#endif
  }

  if (layout->parsed()) {
    if (!batch.empty() && !expr.empty()) {
      std::cerr << "tessel layout: give either an expression or --batch, not both\n";
      return 2;
    }
    if (!batch.empty()) {
      if (format != "text") {
        std::cerr << "tessel layout: --format applies to a single expression, not to --batch\n";
        return 2;
      }
      if (batch == "-") return run_batch(std::cin);
      std::error_code ec;
      std::ifstream in(batch);
      if (!in || std::filesystem::is_directory(batch, ec)) {
        std::cerr << "tessel layout: cannot read " << batch << '\n';
        return 2;
      }
      return run_batch(in);
    }
    if (expr.empty()) {
      std::cerr << "tessel layout: an expression or --batch FILE is required (see --help)\n";
      return 2;
    }
    return run_single(expr, format);
  }
  return 0;
}
