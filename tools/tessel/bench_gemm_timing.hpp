// `tessel bench gemm`: the timing protocol of docs/bench-protocol.md, shared
// by cuBLASLt and every ladder step: warm-up, then timed launches with the L2
// flushed before each, CUDA events, median / min / p90, and the mean SM clock
// and board power over the timed launches (NVML, nvml_sampler.hpp).
// Header-only because time_launches is a template over the launch (a lambda
// in bench_gemm.cu): the timed loop calls it directly, with no type erasure in
// between.  The flush itself is bench_gemm_flush.cu.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "bench_gemm_device.hpp"
#include "nvml_sampler.hpp"

namespace tessel::bench::gemm_detail {

// ================================================================== timing

struct Timing {
  double median_ms = 0, min_ms = 0, p90_ms = 0;
  int launches = 0;
  std::optional<double> sm_clock_mhz, power_w;  // NVML means over the timed loop (empty without NVML)
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
  L2Flush flush_mode = L2Flush::read;
  void* flush = nullptr;  // flush_bytes (a multiple of 16, >= 2x L2), zeroed once (init_l2_flush)
  std::size_t flush_bytes = 0;
  unsigned* flush_sink = nullptr;  // read: what the read kernel would write (it never does)
  int flush_blocks = 0;            // read: the read kernel's grid
  NvmlSampler* sampler = nullptr;  // clock and power over the timed launches; null: not sampled
};

/// Zeroes the flush buffer (once, before any timing): the read flush relies
/// on its sum being 0 (bench_gemm_flush.cu).
void init_l2_flush(const TimingPolicy& pol, cudaStream_t s);

/// Evicts the L2 before timed launch number `i`: with L2Flush::read a kernel
/// reads all flush_bytes (the lines it leaves in the L2 are clean, so nothing
/// is written back during the timed launch); with L2Flush::memset a
/// cudaMemsetAsync of flush_bytes writes them (value i & 0xFF).
void flush_l2(const TimingPolicy& pol, int i, cudaStream_t s);

/// Warm-up (at least `warmup` launches and 25 ms), then at least
/// `iterations` timed launches and 200 ms.  Before every timed launch the L2
/// is evicted (flush_l2); the flush also covers the launch's host-side
/// latency, since the start event is recorded behind it.
///
/// Clock and power: pol.sampler's background thread samples NVML every 5 ms
/// from just before the first timed launch until the last one's stop event
/// has synchronized, and the means of those samples go into the Timing.  The
/// samples cover the timed loop as a whole, the flushes and the host's event
/// waits included (for a large GEMM a small part of the loop; for a short
/// launch, small M, the flush can take as long as the launch, and the means
/// then describe the loop more than the kernel); the warm-up is not sampled.
/// Upper bound on the launches of one warm-up or timed loop.
inline constexpr int kMaxLaunches = 100000;

/// Warm-up: at least pol.warmup launches and pol.warmup_ms of them.
template <class Launch>
void warm_up(const Launch& launch, const TimingPolicy& pol, cudaStream_t s, const Events& ev) {
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
}

/// Heat: flushed launches, each waited for as in the timed loop, for at
/// least `ms` of host time (none when ms <= 0); nothing is measured.  Why:
/// at the power cap the first timed loop after a quiet phase (a problem's
/// verification) runs at a higher clock than the loops after it, which in
/// blocks order favoured whichever implementation was timed first
/// (docs/bench-protocol.md §3).
template <class Launch>
void heat_up(const Launch& launch, const TimingPolicy& pol, cudaStream_t s, int ms) {
  if (ms <= 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (int i = 0; std::chrono::steady_clock::now() < until; ++i) {
    flush_l2(pol, i, s);
    launch();
    CUDA_CHECK(cudaStreamSynchronize(s));
  }
}

/// Stops the sampler's thread on every way out of a timed loop, an exception
/// (CUDA_CHECK) included.
struct StopSampler {
  NvmlSampler* sampler;
  ~StopSampler() {
    if (sampler) sampler->stop();
  }
};

template <class Launch>
Timing time_launches(Launch&& launch, const TimingPolicy& pol, cudaStream_t s) {
  Events ev;
  float ms = 0;
  warm_up(launch, pol, s, ev);
  std::vector<double> t;
  double total_ms = 0;
  const StopSampler stop_sampler{pol.sampler};
  if (pol.sampler) pol.sampler->start();
  while ((static_cast<int>(t.size()) < pol.iterations || total_ms < pol.timed_ms) &&
         static_cast<int>(t.size()) < kMaxLaunches) {
    flush_l2(pol, static_cast<int>(t.size()), s);
    CUDA_CHECK(cudaEventRecord(ev.start, s));
    launch();
    CUDA_CHECK(cudaEventRecord(ev.stop, s));
    CUDA_CHECK(cudaEventSynchronize(ev.stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    t.push_back(ms);
    total_ms += ms;
  }
  Timing r;
  if (pol.sampler) {
    const NvmlMeans m = pol.sampler->stop();
    r.sm_clock_mhz = m.sm_clock_mhz;
    r.power_w = m.power_w;
  }
  std::sort(t.begin(), t.end());
  r.median_ms = t[t.size() / 2];
  r.min_ms = t.front();
  r.p90_ms = t[t.size() * 9 / 10];
  r.launches = static_cast<int>(t.size());
  return r;
}

/// The timed launches of several implementations in one loop (--order
/// interleaved): each warmed up as time_launches does, then rounds of one
/// flushed, timed launch of each, the first of round i being launch
/// (i + first) % n, until every one has at least `iterations` launches and
/// 200 ms.  So all of them run under the same clock and temperature, and a
/// ratio of their medians does not depend on which one ran last (at the
/// H100's power cap the one that ran last in a block order ran up to 10 %
/// slower).  The NVML means cover the whole loop and are given to all.
template <class Launch>
std::vector<Timing> time_interleaved(const std::vector<Launch>& launches, const TimingPolicy& pol, cudaStream_t s,
                                     std::size_t first = 0) {
  const std::size_t n = launches.size();
  std::vector<Timing> out(n);
  if (n == 0) return out;
  Events ev;
  float ms = 0;
  for (const Launch& launch : launches) warm_up(launch, pol, s, ev);
  std::vector<std::vector<double>> t(n);
  std::vector<double> total(n, 0.0);
  const auto more = [&] {
    for (std::size_t j = 0; j < n; ++j)
      if ((static_cast<int>(t[j].size()) < pol.iterations || total[j] < pol.timed_ms) &&
          static_cast<int>(t[j].size()) < kMaxLaunches)
        return true;
    return false;
  };
  const StopSampler stop_sampler{pol.sampler};
  if (pol.sampler) pol.sampler->start();
  int flushes = 0;
  for (std::size_t round = 0; more(); ++round) {
    for (std::size_t q = 0; q < n; ++q) {
      const std::size_t j = (round + first + q) % n;
      flush_l2(pol, flushes++, s);
      CUDA_CHECK(cudaEventRecord(ev.start, s));
      launches[j]();
      CUDA_CHECK(cudaEventRecord(ev.stop, s));
      CUDA_CHECK(cudaEventSynchronize(ev.stop));
      CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
      t[j].push_back(ms);
      total[j] += ms;
    }
  }
  std::optional<double> clock, power;
  if (pol.sampler) {
    const NvmlMeans m = pol.sampler->stop();
    clock = m.sm_clock_mhz;
    power = m.power_w;
  }
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<double>& v = t[j];
    std::sort(v.begin(), v.end());
    out[j].median_ms = v[v.size() / 2];
    out[j].min_ms = v.front();
    out[j].p90_ms = v[v.size() * 9 / 10];
    out[j].launches = static_cast<int>(v.size());
    out[j].sm_clock_mhz = clock;
    out[j].power_w = power;
  }
  return out;
}

/// Every problem's flops (a batch's, a group's: gemm_flops) per time.
inline double tflops(const GemmProblem& p, double ms) { return gemm_flops(p) / (ms * 1e-3) / 1e12; }

}  // namespace tessel::bench::gemm_detail
