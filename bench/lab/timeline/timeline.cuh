// bench/lab/timeline/timeline.cuh — lab instrumentation (session 29), never
// part of the library: per-CTA clock stamps of a GEMM kernel's phases, printed
// for one launch.  bench/lab/timeline/k13_k14.patch adds the marks to k13's
// and k14's kernels; bench/lab/probe_s29d.sh applies it on the device only.
//   slot 0  thread 0 at kernel entry            (clock64; globaltimer in slot 6)
//   slot 1  the producer, before its first TMA load
//   slot 2  consumer thread 0, past its first k-tile's full barrier
//   slot 3  consumer thread 0, past its last k-tile's full barrier
//   slot 4  consumer thread 0, every batch done (wait_group 0)
//   slot 5  consumer thread 0, after the epilogue's stores completed (finish)
//   slot 8  thread 0 past the prologue's barrier (k13: __syncthreads; k14: the cluster's)
//   slot 9  the producer, tensor maps prefetched (setmaxnreg done)
//   slot 10 the producer, first work unit known (before its first acquire)
//   slot 11 consumer thread 0, before its first full-barrier wait (its setup done)
//   slot 12 consumer thread 0, every store of the tile issued (before finish)
// Recorded for the 4th launch since the program started, printed by dump(),
// which the patched launchers run once, after their 6th launch (session 31;
// it ran after every launch before, inside the bench's timed region):
//   TL <cta> <smid> <globaltimer at entry, ns> <slot1-slot0> ... <slot5-slot0> <slot8-slot0> ... <slot12-slot0>
// (SM cycles)
#pragma once
#include <cstdio>

namespace tessel::lab_timeline {
// Internal linkage: every translation unit that instantiates an instrumented
// kernel has its own stamps and its own dump kernel (no -rdc).
static __device__ unsigned long long stamps[2048][16];
static __device__ int recording[2048];
static __device__ unsigned int calls, grid, dumped;

static __device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
static __device__ __forceinline__ void mark(int slot) {
  if (recording[blockIdx.x]) stamps[blockIdx.x][slot] = clock64();
}
/// Thread 0 at entry: launch index 3 (the 4th launch) records, the others do not.
static __device__ __forceinline__ void entry() {
  const unsigned int launch = atomicAdd(&calls, 1u) / gridDim.x;
  recording[blockIdx.x] = launch == 3;
  grid = gridDim.x;
  if (launch != 3) return;
  unsigned int sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  stamps[blockIdx.x][6] = global_ns();
  stamps[blockIdx.x][7] = sm;
  stamps[blockIdx.x][0] = clock64();
}
static __device__ __forceinline__ void report() { mark(5); }

/// One thread prints launch 3's stamps once that launch has finished (the
/// kernels above print nothing: a printf call in a wgmma kernel serializes its
/// wgmmas, C7510/C7511).
static __global__ void dump() {
  if (dumped || calls < 4 * grid) return;
  dumped = 1;
  for (unsigned int b = 0; b < grid; ++b) {
    const unsigned long long* s = stamps[b];
    const auto d = [&](int i) { return static_cast<long long>(s[i] - s[0]); };
    printf("TL %u %llu %llu %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld\n", b, s[7], s[6], d(1), d(2), d(3), d(4),
           d(5), d(8), d(9), d(10), d(11), d(12));
  }
}
}  // namespace tessel::lab_timeline
