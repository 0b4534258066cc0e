// `tessel bench gemm`: the timing protocol of docs/bench-protocol.md, shared
// by cuBLASLt and every ladder step: warm-up, then timed launches with the L2
// flushed before each, CUDA events, median / min / p90.  Header-only because
// time_launches is a template over the launch (a lambda in bench_gemm.cu):
// the timed loop calls it directly, with no type erasure in between.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "bench_gemm_device.hpp"

namespace tessel::bench::gemm_detail {

// ================================================================== timing

struct Timing {
  double median_ms = 0, min_ms = 0, p90_ms = 0;
  int launches = 0;
};

class Events {
 public:
  Events() {
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  cudaEvent_t start = nullptr, stop = nullptr;
};

struct TimingPolicy {
  int warmup = 10, iterations = 50;
  double warmup_ms = 25, timed_ms = 200;
  void* flush = nullptr;
  std::size_t flush_bytes = 0;
};

/// Warm-up (at least `warmup` launches and 25 ms), then at least
/// `iterations` timed launches and 200 ms.  Before every timed launch the L2
/// is evicted by a memset of flush_bytes (>= 2x L2); it also covers the
/// launch's host-side latency, since the start event is recorded behind it.
template <class Launch>
Timing time_launches(Launch&& launch, const TimingPolicy& pol, cudaStream_t s) {
  constexpr int kMaxLaunches = 100000;
  Events ev;
  float ms = 0;
  double warm_ms = 0;
  for (int i = 0; (i < pol.warmup || warm_ms < pol.warmup_ms) && i < kMaxLaunches; ++i) {
    CUDA_CHECK(cudaEventRecord(ev.start, s));
    launch();
    CUDA_CHECK(cudaEventRecord(ev.stop, s));
    CUDA_CHECK(cudaEventSynchronize(ev.stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    warm_ms += ms;
  }
  std::vector<double> t;
  double total_ms = 0;
  while ((static_cast<int>(t.size()) < pol.iterations || total_ms < pol.timed_ms) &&
         static_cast<int>(t.size()) < kMaxLaunches) {
    CUDA_CHECK(cudaMemsetAsync(pol.flush, static_cast<int>(t.size() & 0xFF), pol.flush_bytes, s));
    CUDA_CHECK(cudaEventRecord(ev.start, s));
    launch();
    CUDA_CHECK(cudaEventRecord(ev.stop, s));
    CUDA_CHECK(cudaEventSynchronize(ev.stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    t.push_back(ms);
    total_ms += ms;
  }
  std::sort(t.begin(), t.end());
  Timing r;
  r.median_ms = t[t.size() / 2];
  r.min_ms = t.front();
  r.p90_ms = t[t.size() * 9 / 10];
  r.launches = static_cast<int>(t.size());
  return r;
}

inline double tflops(const GemmProblem& p, double ms) {
  return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) / (ms * 1e-3) / 1e12;
}

}  // namespace tessel::bench::gemm_detail
