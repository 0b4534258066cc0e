// `tessel bench gemm`: the device's description (read once, written into
// every CSV row and the JSON) and the Reporter: each finished row goes to the
// CSV at once, so that a run that stops early keeps what it measured, and to a
// progress line on stderr.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "bench_gemm_report.hpp"

#include "tessel_commit.hpp"  // TESSEL_GIT_COMMIT, written at build time (cmake/git_commit.cmake)

namespace tessel::bench::gemm_detail {

DeviceInfo read_device(int dev, const cudaDeviceProp& prop) {
  DeviceInfo d;
  d.gpu = prop.name;
  d.sm_count = prop.multiProcessorCount;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  // Peak clocks, where the driver tells them (0 otherwise).
  if (cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, dev) != cudaSuccess) d.sm_clock_khz = 0;
  if (cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess) d.mem_clock_khz = 0;
  cudaGetLastError();
  cudaDriverGetVersion(&d.driver);
  // The driver's own version (580.x) is not in the runtime API; Linux shows
  // it in /proc, worded differently by the open and the proprietary module:
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...".
  // Take the first word made of digits and dots that has a dot.
  if (std::ifstream f("/proc/driver/nvidia/version"); f) {
    std::string line, word;
    std::getline(f, line);
    std::istringstream words(line);
    while (words >> word && d.driver_version.empty())
      if (word.find('.') != std::string::npos && word.find_first_not_of("0123456789.") == std::string::npos &&
          word.front() != '.')
        d.driver_version = word;
  }
  cudaRuntimeGetVersion(&d.runtime);
  d.l2_bytes = prop.l2CacheSize;
  d.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  d.commit = TESSEL_GIT_COMMIT;
  return d;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

Reporter::Reporter(const DeviceInfo& dev, std::ostream& csv, std::size_t total) : dev_(dev), csv_(csv), total_(total) {
  csv_ << csv_header() << '\n';
  csv_.flush();
}

void Reporter::start(const std::string& impl, const GemmProblem& p, int repeat) {
  line_open_ = true;
  std::cerr << "[" << rows_.size() + 1 << "/" << total_ << "] " << impl << " " << shape_name(p) << " "
            << input_type_name(p.in, p.in_b);
  if (p.out != p.in) std::cerr << "->" << tessel::name(p.out);
  std::cerr << " " << tessel::name(p.layout);
  if (p.alpha != 1.0 || p.beta != 0.0) std::cerr << " alpha=" << p.alpha << " beta=" << p.beta;
  std::cerr << " r" << repeat << " ... " << std::flush;
}

void Reporter::finish(const GemmBenchRow& r) {
  std::cerr << r.disposition;
  if (r.median_ms) std::cerr << "  " << fmt("%.4g", *r.median_ms) << " ms  " << fmt("%.1f", *r.tflops) << " TFLOP/s";
  if (r.ratio && r.impl != "cublas") std::cerr << "  ratio " << fmt("%.3f", *r.ratio);
  if (r.cublas_median_ms && r.impl != "cublas")
    std::cerr << " (cuBLAS " << fmt("%.4g", *r.cublas_median_ms) << " ms, " << fmt("%.1f", *r.cublas_tflops)
              << " TFLOP/s)";
  if (r.sm_clock_mhz || r.power_w) {
    std::cerr << " ";
    if (r.sm_clock_mhz) std::cerr << " " << fmt("%.0f", *r.sm_clock_mhz) << " MHz";
    if (r.power_w) std::cerr << " " << fmt("%.0f", *r.power_w) << " W";
  }
  if (r.max_err) std::cerr << "  err " << fmt("%.3g", *r.max_err);
  if (r.cublas_max_err && r.impl != "cublas") std::cerr << " (cuBLAS " << fmt("%.3g", *r.cublas_max_err) << ")";
  if (!r.note.empty()) std::cerr << "  [" << r.note << "]";
  std::cerr << '\n';
  line_open_ = false;
  rows_.push_back(r);
  csv_ << csv_row(dev_, r) << '\n';
  csv_.flush();
}

}  // namespace tessel::bench::gemm_detail
