// `tessel bench copy`: bandwidth of the tile copy kernels and of cudaMemcpy
// device-to-device, measured in the same run (docs/bench-protocol.md):
// verification before timing, warm-up, L2 flushed before every timed launch,
// CUDA events, median (min and p90 in the CSV).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "tessel/host/copy.hpp"

#include "tessel_commit.hpp"  // TESSEL_GIT_COMMIT, written at build time (cmake/git_commit.cmake)

namespace tessel::bench {
namespace {

using bf16 = __nv_bfloat16;

#define BENCH_CHECK(expr)                                                                       \
  do {                                                                                          \
    const cudaError_t err_ = (expr);                                                            \
    if (err_ != cudaSuccess) {                                                                  \
      std::cerr << "tessel bench copy: " #expr " failed: " << cudaGetErrorString(err_) << "\n"; \
      return 3;                                                                                 \
    }                                                                                           \
  } while (0)

/// Deterministic pseudo-random finite bf16 bit patterns (never zero-heavy).
__global__ void fill_random(std::uint16_t* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    p[i] = static_cast<std::uint16_t>((x & 0x7F7F) | 0x0100);
  }
}

/// Counts elements of dst (rows x cols, row-major) that differ from src, or
/// from src's transpose.
__global__ void count_mismatches(const std::uint16_t* src, const std::uint16_t* dst, std::size_t rows, std::size_t cols,
                                 bool transposed, unsigned long long* bad) {
  unsigned long long local = 0;
  const std::size_t n = rows * cols;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t r = i / cols, c = i % cols;
    const std::uint16_t want = transposed ? src[c * rows + r] : src[i];
    local += dst[i] != want;
  }
  if (local) atomicAdd(bad, local);
}

struct Timing {
  double median_us = 0, min_us = 0, p90_us = 0;
  int launches = 0;
};

template <class Launch>
int time_launches(Launch launch, void* flush, std::size_t flush_bytes, Timing& out) {
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  // Warm-up: at least 10 launches and 25 ms.
  float warm_ms = 0;
  for (int i = 0; i < 10 || warm_ms < 25.f; ++i) {
    BENCH_CHECK(cudaEventRecord(start));
    if (int rc = launch(); rc != 0) return rc;
    BENCH_CHECK(cudaEventRecord(stop));
    BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    warm_ms += ms;
    if (i > 10000) break;
  }
  std::vector<double> us;
  double total_ms = 0;
  while ((us.size() < 50 || total_ms < 200.0) && us.size() < 20000) {
    BENCH_CHECK(cudaMemsetAsync(flush, static_cast<int>(us.size() & 0xFF), flush_bytes));  // evict the L2
    BENCH_CHECK(cudaEventRecord(start));
    if (int rc = launch(); rc != 0) return rc;
    BENCH_CHECK(cudaEventRecord(stop));
    BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    us.push_back(1000.0 * ms);
    total_ms += ms;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(us.begin(), us.end());
  out.median_us = us[us.size() / 2];
  out.min_us = us.front();
  out.p90_us = us[us.size() * 9 / 10];
  out.launches = static_cast<int>(us.size());
  return 0;
}

}  // namespace

int run_copy_bench(const CopyBenchOptions& opt) {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    std::cerr << "tessel bench copy: no CUDA device\n";
    return 4;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const std::size_t l2 = static_cast<std::size_t>(prop.l2CacheSize);
  const std::size_t flush_bytes = std::max<std::size_t>(2 * l2, 64u << 20);
  std::cerr << "# " << prop.name << ", " << prop.multiProcessorCount << " SMs, L2 " << (l2 >> 20) << " MiB, driver "
            << driver << ", runtime " << runtime << ", tessel " << TESSEL_GIT_COMMIT << "\n";

  std::ofstream csv_file;
  std::ostream* csv = &std::cout;
  if (!opt.csv.empty()) {
    csv_file.open(opt.csv);
    if (!csv_file) {
      std::cerr << "tessel bench copy: cannot write " << opt.csv << "\n";
      return 1;
    }
    csv = &csv_file;
  }
  *csv << "gpu,sms,driver,runtime,commit,kernel,bytes,m,n,launches,median_us,min_us,p90_us,gbps,pct_of_memcpy,"
          "verified\n";

  void* flush = nullptr;
  BENCH_CHECK(cudaMalloc(&flush, flush_bytes));
  unsigned long long* d_bad = nullptr;
  BENCH_CHECK(cudaMalloc(&d_bad, sizeof(unsigned long long)));

  for (const std::size_t mib : opt.sizes_mib) {
    const std::size_t bytes = mib << 20;
    // Near-square by default (n = 2^ceil(log2(elements)/2)): a transpose of a
    // tall matrix writes rows far apart (262144 x 8192 at 4 GiB: destination
    // rows 512 KB apart), which measures the shape more than the kernel.
    index_t n = opt.cols;
    if (n == 0) {
      const std::size_t elems_wanted = bytes / 2;
      int lg = 0;
      while ((std::size_t{1} << (lg + 1)) <= elems_wanted) ++lg;
      n = index_t{1} << ((lg + 1) / 2);
    }
    const index_t m = static_cast<index_t>(bytes / 2 / static_cast<std::size_t>(n));
    if (m < 1) {
      std::cerr << "tessel bench copy: " << mib << " MiB is less than one row of " << n << " columns\n";
      return 2;
    }
    const std::size_t elems = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
    std::uint16_t *src = nullptr, *dst = nullptr;
    BENCH_CHECK(cudaMalloc(&src, elems * 2));
    BENCH_CHECK(cudaMalloc(&dst, elems * 2));
    fill_random<<<4 * prop.multiProcessorCount, 256>>>(src, elems, 0x9E3779B9u ^ static_cast<std::uint32_t>(mib));
    BENCH_CHECK(cudaGetLastError());

    Timing memcpy_t;
    if (int rc = time_launches(
            [&] { return cudaMemcpyAsync(dst, src, elems * 2, cudaMemcpyDeviceToDevice) == cudaSuccess ? 0 : 3; },
            flush, flush_bytes, memcpy_t);
        rc != 0)
      return rc;
    const double gbps_memcpy = 2.0 * static_cast<double>(elems * 2) / (memcpy_t.median_us * 1e3);
    auto row = [&](const char* kname, const Timing& t, const char* verified) {
      const double gbps = t.median_us > 0 ? 2.0 * static_cast<double>(elems * 2) / (t.median_us * 1e3) : 0.0;
      char line[512];
      std::snprintf(line, sizeof line, "\"%s\",%d,%d,%d,%s,%s,%zu,%lld,%lld,%d,%.2f,%.2f,%.2f,%.1f,%.1f,%s\n",
                    prop.name, prop.multiProcessorCount, driver, runtime, TESSEL_GIT_COMMIT, kname, elems * 2,
                    static_cast<long long>(m), static_cast<long long>(n), t.launches, t.median_us, t.min_us, t.p90_us,
                    gbps, 100.0 * gbps / gbps_memcpy, verified);
      *csv << line;
      csv->flush();
      std::cerr << "  " << mib << " MiB " << kname << ": " << gbps << " GB/s (" << 100.0 * gbps / gbps_memcpy
                << "% of cudaMemcpy)\n";
    };
    row("cudaMemcpy", memcpy_t, "passed");

    for (const CopyKernel k : opt.kernels) {
      const bool transpose = k == CopyKernel::transpose;
      const index_t ld_dst = transpose ? m : n;
      // Verify before timing: poison, run, count mismatches on the device.
      BENCH_CHECK(cudaMemset(dst, 0xFF, elems * 2));
      Status s = tile_copy(k, reinterpret_cast<const bf16*>(src), reinterpret_cast<bf16*>(dst), m, n, n, ld_dst);
      if (!s) {
        std::cerr << "  " << mib << " MiB " << name(k) << ": not_supported: " << s.message << "\n";
        *csv << "\"" << prop.name << "\"," << prop.multiProcessorCount << "," << driver << "," << runtime << ","
             << TESSEL_GIT_COMMIT << "," << name(k) << "," << elems * 2 << "," << m << "," << n
             << ",0,,,,,,not_supported\n";
        continue;
      }
      BENCH_CHECK(cudaMemset(d_bad, 0, sizeof(unsigned long long)));
      count_mismatches<<<4 * prop.multiProcessorCount, 256>>>(src, dst, static_cast<std::size_t>(transpose ? n : m),
                                                              static_cast<std::size_t>(transpose ? m : n), transpose,
                                                              d_bad);
      BENCH_CHECK(cudaGetLastError());
      unsigned long long bad = 0;
      BENCH_CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
      if (bad != 0) {
        std::cerr << "  " << mib << " MiB " << name(k) << ": INCORRECT (" << bad << " elements differ)\n";
        Timing none;
        row(name(k), none, "incorrect");
        continue;
      }
      Timing t;
      if (int rc = time_launches(
              [&] {
                return tile_copy(k, reinterpret_cast<const bf16*>(src), reinterpret_cast<bf16*>(dst), m, n, n, ld_dst)
                               .is_ok()
                           ? 0
                           : 3;
              },
              flush, flush_bytes, t);
          rc != 0)
        return rc;
      row(name(k), t, "passed");
    }
    cudaFree(src);
    cudaFree(dst);
  }
  cudaFree(flush);
  cudaFree(d_bad);
  return 0;
}

}  // namespace tessel::bench
