// `tessel bench gemm`: what the run reports while it goes (bench_gemm_report.cu):
// the device's description for the CSV/JSON columns, and the Reporter that
// keeps the rows, writes each to the CSV as it is finished and prints the
// progress lines on stderr.  The CSV/JSON formats themselves are
// bench_gemm_args.cpp's (host code, unit-tested without a GPU).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "bench.hpp"

namespace tessel::bench::gemm_detail {

/// The GPU, its clocks and memory, the driver and runtime, and tessel's commit.
DeviceInfo read_device(int dev, const cudaDeviceProp& prop);

/// One number through a printf format ("%.3g").
std::string fmt(const char* f, double v);

/// The rows, the CSV stream and the progress lines.
class Reporter {
 public:
  Reporter(const DeviceInfo& dev, std::ostream& csv, std::size_t total);
  /// "[i/n] k09 4096x4096x4096 bf16 A:k,B:n r1 ... " (the result follows on the same line).
  void start(const std::string& impl, const GemmProblem& p, int repeat);
  void finish(const GemmBenchRow& r);
  std::size_t emitted() const { return rows_.size(); }
  /// A progress line was started and its result not printed (an error came in between).
  bool line_open() const { return line_open_; }
  const std::vector<GemmBenchRow>& rows() const { return rows_; }

 private:
  const DeviceInfo& dev_;
  std::ostream& csv_;
  std::size_t total_;
  bool line_open_ = false;
  std::vector<GemmBenchRow> rows_;
};

}  // namespace tessel::bench::gemm_detail
