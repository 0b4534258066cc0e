// bench/lab/timeline/timeline_k15.cuh — lab instrumentation (session 34), never
// part of the library: per-CTA clock stamps of k15's batched kernel
// (k15_grouped.cuh), per warpgroup and per unit, for one launch chosen on the
// host (TESSEL_LAB_TL_AT, default 5000: inside the bench's timed loop, so the
// launch follows an L2 flush).  bench/lab/timeline/k15_batched.patch adds the
// marks; bench/lab/probe_s34c.sh builds it.
//   slot 0  thread 0 at entry (clock64)      slot 1  smid
//   slot 2  globaltimer at entry (ns)        slot 3  globaltimer when warpgroup 0 is done
//   slot 4  thread 0 past the prologue's __syncthreads
//   slot 5  the producer thread, elected (setmaxnreg done)
//   slot 6  the producer, first TMA issued   slot 7  the producer, last TMA issued
//   8 + 20 w + 4 j + {0,1,2,3}: warpgroup w's j-th unit (j < 4), its thread 0:
//           before the turn wait, past it, main loop done (consume returned),
//           epilogue's stores issued
//   48 + w  warpgroup w's thread 0 after finish (its stores have read smem)
// dump() prints, per CTA: TL cta smid gt_entry gt_exit and slots 4..49 minus
// slot 0 (SM cycles; -1 where never stamped).
#pragma once
#include <cstdio>

namespace tessel::lab_tl15 {
inline constexpr int kSlots = 50;
static __device__ unsigned long long stamps[1024][kSlots];
static __device__ int armed;

static __device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
static __device__ __forceinline__ void mark(bool rec, int slot) {
  if (rec) stamps[blockIdx.x][slot] = clock64();
}
static __device__ __forceinline__ void entry(bool rec) {
  if (!rec) return;
  unsigned int sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  stamps[blockIdx.x][0] = clock64();
  stamps[blockIdx.x][1] = sm;
  stamps[blockIdx.x][2] = global_ns();
}
static __device__ __forceinline__ void exit_ns(bool rec) {
  if (rec) stamps[blockIdx.x][3] = global_ns();
}
static __global__ void arm() {
  for (auto& row : stamps)
    for (auto& s : row) s = 0;
  armed = 1;
}
static __global__ void dump(unsigned int grid) {
  armed = 0;
  for (unsigned int b = 0; b < grid; ++b) {
    const unsigned long long* s = stamps[b];
    printf("TL %u %llu %llu %llu", b, s[1], s[2], s[3]);
    for (int i = 4; i < kSlots; ++i) printf(" %lld", s[i] == 0 ? -1LL : static_cast<long long>(s[i] - s[0]));
    printf("\n");
  }
}
}  // namespace tessel::lab_tl15
