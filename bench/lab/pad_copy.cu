// bench/lab/pad_copy.cu — times the padded copy the TMA steps' launchers (k09..k13) make for an
// unaligned operand: src/kernels/gemm/pad_copy.cu's kernel against cudaMemcpy2DAsync (what the
// launchers used before), for 4095 x 4095 and 4097 x 4097 bf16 (lda = cols,
// copied to rows padded to a multiple of 8 elements), one operand and two (A and B: the kernel
// copies both in one launch, cudaMemcpy2DAsync takes two calls), and cudaMemcpyAsync of the same
// bytes (rows x cols x 2 per operand) as the bound.  Each line: the median and the minimum of 50
// timings (CUDA events around one copy or pair, after 10 warm-up runs) and GB/s of read + write,
// counting the matrix's bytes twice (read once, written once; the kernel's few zero pad bytes are
// not counted).  Before timing, the kernel's copies are checked bit for bit against
// cudaMemcpy2DAsync's (and its pads for zeros).  Each operand is 33.5 MB: source plus copy exceed
// the H100's 50 MB L2, so the copies run mostly from and to DRAM.
//
// Build and run (from the repository root; one line):
// clang-format off
//   mkdir -p build/lab && nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude -o build/lab/pad_copy bench/lab/pad_copy.cu src/kernels/gemm/pad_copy.cu && build/lab/pad_copy
// clang-format on
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "src/kernels/gemm/pad_copy.hpp"

using tessel::index_t;
using tessel::gemm_launch::pad_copy;
using tessel::gemm_launch::PadCopy;

#define CHECK(expr)                                                                               \
  do {                                                                                            \
    const cudaError_t e_ = (expr);                                                                \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace {

struct Timing {
  double median_us, min_us;
};

/// Median and minimum of 50 runs of `enqueue` on `stream`, after 10 warm-up runs.
template <class F>
Timing time_it(cudaStream_t stream, F&& enqueue) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int i = 0; i < 60; ++i) {
    CHECK(cudaEventRecord(a, stream));
    enqueue();
    CHECK(cudaEventRecord(b, stream));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (i >= 10) t.push_back(ms);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2] * 1e3, t.front() * 1e3};
}

void report(const char* what, index_t n, int operands, double payload_bytes, Timing t) {
  std::printf("%-34s %lldx%lld x%d: median %6.1f us (%5.0f GB/s r+w), min %6.1f us\n", what, static_cast<long long>(n),
              static_cast<long long>(n), operands, t.median_us, 2.0 * payload_bytes / (t.median_us * 1e-6) / 1e9,
              t.min_us);
}

void bench(index_t n, cudaStream_t stream) {
  const index_t rows = n, cols = n, src_ld = n, dst_ld = (n + 7) / 8 * 8;
  const std::size_t src_bytes = static_cast<std::size_t>(rows * src_ld) * 2;
  const std::size_t dst_bytes = static_cast<std::size_t>(rows * dst_ld) * 2;
  const double payload = static_cast<double>(rows) * static_cast<double>(cols) * 2;  // bytes of one matrix
  void *src[2], *dst[2], *ref[2], *flat[2];
  std::vector<std::uint16_t> host(static_cast<std::size_t>(rows * src_ld));
  std::mt19937 rng(static_cast<unsigned>(n));
  for (int i = 0; i < 2; ++i) {
    CHECK(cudaMalloc(&src[i], src_bytes));
    CHECK(cudaMalloc(&dst[i], dst_bytes));
    CHECK(cudaMalloc(&ref[i], dst_bytes));
    CHECK(cudaMalloc(&flat[i], src_bytes));
    for (auto& x : host) x = static_cast<std::uint16_t>(1 + rng() % 0xFFFF);
    CHECK(cudaMemcpy(src[i], host.data(), src_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dst[i], 0xA5, dst_bytes));
    CHECK(cudaMemset(ref[i], 0, dst_bytes));  // cudaMemcpy2DAsync leaves the pads: zero them to compare
  }
  const PadCopy copies[2] = {{src[0], dst[0], rows, cols, src_ld, dst_ld},
                             {src[1], dst[1], rows, cols, src_ld, dst_ld}};
  const auto kernel = [&](int count) {
    const tessel::Status s = pad_copy(copies, count, stream);
    if (!s) {
      std::fprintf(stderr, "pad_copy: %s\n", s.message.c_str());
      std::exit(1);
    }
  };
  const auto copy2d = [&](void* to, int i) {
    CHECK(cudaMemcpy2DAsync(to, static_cast<std::size_t>(dst_ld) * 2, src[i], static_cast<std::size_t>(src_ld) * 2,
                            static_cast<std::size_t>(cols) * 2, static_cast<std::size_t>(rows),
                            cudaMemcpyDeviceToDevice, stream));
  };
  const auto flat_copy = [&](int i) {
    CHECK(cudaMemcpyAsync(flat[i], src[i], static_cast<std::size_t>(payload), cudaMemcpyDeviceToDevice, stream));
  };

  // Correctness first: the kernel's two copies against cudaMemcpy2DAsync's.
  kernel(2);
  copy2d(ref[0], 0);
  copy2d(ref[1], 1);
  CHECK(cudaStreamSynchronize(stream));
  std::vector<std::uint16_t> got(static_cast<std::size_t>(rows * dst_ld)), want(got.size());
  for (int i = 0; i < 2; ++i) {
    CHECK(cudaMemcpy(got.data(), dst[i], dst_bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(want.data(), ref[i], dst_bytes, cudaMemcpyDeviceToHost));
    if (got != want) {
      std::fprintf(stderr, "pad_copy %lldx%lld: operand %d differs from cudaMemcpy2DAsync's copy\n",
                   static_cast<long long>(n), static_cast<long long>(n), i);
      std::exit(2);
    }
  }
  std::printf("%lldx%lld bf16, %lld -> %lld element rows: pad_copy matches cudaMemcpy2DAsync bit for bit\n",
              static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(src_ld),
              static_cast<long long>(dst_ld));

  report("cudaMemcpy2DAsync", n, 1, payload, time_it(stream, [&] { copy2d(dst[0], 0); }));
  report("pad_copy kernel", n, 1, payload, time_it(stream, [&] { kernel(1); }));
  report("cudaMemcpyAsync (bound)", n, 1, payload, time_it(stream, [&] { flat_copy(0); }));
  report("cudaMemcpy2DAsync (two calls)", n, 2, 2 * payload, time_it(stream, [&] {
           copy2d(dst[0], 0);
           copy2d(dst[1], 1);
         }));
  report("pad_copy kernel (one launch)", n, 2, 2 * payload, time_it(stream, [&] { kernel(2); }));
  report("cudaMemcpyAsync (bound, two calls)", n, 2, 2 * payload, time_it(stream, [&] {
           flat_copy(0);
           flat_copy(1);
         }));
  for (int i = 0; i < 2; ++i) {
    CHECK(cudaFree(src[i]));
    CHECK(cudaFree(dst[i]));
    CHECK(cudaFree(ref[i]));
    CHECK(cudaFree(flat[i]));
  }
}

}  // namespace

int main() {
  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, device));
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  bench(4095, stream);
  bench(4097, stream);
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
