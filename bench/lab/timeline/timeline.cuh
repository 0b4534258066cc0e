// bench/lab/timeline/timeline.cuh — lab instrumentation (session 29), never
// part of the library: per-CTA clock stamps of a GEMM kernel's phases, printed
// for one launch.  bench/lab/timeline/k13_k14.patch adds the marks to k13's
// and k14's kernels; bench/lab/probe_s29d.sh applies it on the device only.
//   slot 0  thread 0 at kernel entry            (clock64; globaltimer in slot 6)
//   slot 1  the producer, before its first TMA load
//   slot 2  consumer thread 0, past its first k-tile's full barrier
//   slot 3  consumer thread 0, past its last k-tile's full barrier
//   slot 4  consumer thread 0, every batch done (wait_group 0)
//   slot 5  consumer thread 0, after the epilogue's last store has been read out
// Printed by consumer thread 0 for the 4th launch since the program started:
//   TL <cta> <smid> <globaltimer at entry, ns> <slot1-slot0> ... <slot5-slot0> (SM cycles)
#pragma once
#include <cstdio>

namespace tessel::lab_timeline {
__device__ unsigned long long stamps[2048][8];
__device__ unsigned int calls;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned int sm_id() {
  unsigned int s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ void mark(int slot) { stamps[blockIdx.x][slot] = clock64(); }
__device__ __forceinline__ void entry() {
  stamps[blockIdx.x][6] = global_ns();
  stamps[blockIdx.x][0] = clock64();
  stamps[blockIdx.x][7] = atomicAdd(&calls, 1u) / gridDim.x;  // the launch's index
}
__device__ __forceinline__ void report() {
  mark(5);
  volatile unsigned long long* s = stamps[blockIdx.x];
  if (s[7] != 3) return;
  printf("TL %d %u %llu %lld %lld %lld %lld %lld\n", static_cast<int>(blockIdx.x), sm_id(), s[6],
         static_cast<long long>(s[1] - s[0]), static_cast<long long>(s[2] - s[0]),
         static_cast<long long>(s[3] - s[0]), static_cast<long long>(s[4] - s[0]),
         static_cast<long long>(s[5] - s[0]));
}
}  // namespace tessel::lab_timeline
