// bench/lab/launch_overhead.cu — host time of one tessel::gemm call (checks,
// plan, tensor maps, launch), per implementation: 2000 calls of a 128 x 256 x 64
// problem whose kernel is shorter than the host path, timed with a steady
// clock around the calls (after 200 warm-up calls), and the same for
// cudaLaunchKernel of an empty kernel as the floor.  The bench's timing puts
// its start event behind the L2 flush (a ~40 us memset or read), so a host
// path longer than the flush shows up in the measured kernel time.
//   nvcc -std=c++20 -O2 --expt-relaxed-constexpr -I. -Iinclude bench/lab/launch_overhead.cu \
//     build/sm90a/libtessel_kernels.a -o build/lab/launch_overhead && build/lab/launch_overhead
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "tessel/host/gemm.hpp"

__global__ void empty_kernel() {}

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

template <class F>
double us_per_call(F&& f, cudaStream_t s) {
  for (int i = 0; i < 200; ++i) f();
  CHECK(cudaStreamSynchronize(s));
  const int n = 2000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  const auto t1 = std::chrono::steady_clock::now();
  CHECK(cudaStreamSynchronize(s));
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
}

int main() {
  using namespace tessel;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  GemmArgs g;
  g.m = 128, g.n = 256, g.k = 64;
  g.lda = 64, g.ldb = 256, g.ldd = 256;
  void *a, *b, *d;
  CHECK(cudaMalloc(&a, 1 << 20));
  CHECK(cudaMalloc(&b, 1 << 20));
  CHECK(cudaMalloc(&d, 1 << 20));
  CHECK(cudaMemset(a, 0, 1 << 20));
  CHECK(cudaMemset(b, 0, 1 << 20));
  g.a = a, g.b = b, g.d = d;
  std::printf("empty kernel launch: %.2f us per call\n", us_per_call([&] { empty_kernel<<<1, 32, 0, s>>>(); }, s));
  for (GemmImpl impl :
       {GemmImpl::k11_tma_store_epilogue, GemmImpl::k12_wgmma, GemmImpl::k13_wgmma_in_flight, GemmImpl::automatic}) {
    const double us = us_per_call(
        [&] {
          if (Status st = gemm(impl, g, s); !st) {
            std::fprintf(stderr, "%s: %s\n", name(impl), st.message.c_str());
            std::exit(1);
          }
        },
        s);
    std::printf("tessel::gemm(%s): %.2f us per call\n", name(impl), us);
  }
  const double plan_us = us_per_call([&] { (void)gemm_plan(g); }, s);
  std::printf("gemm_plan: %.2f us per call\n", plan_us);
  return 0;
}
