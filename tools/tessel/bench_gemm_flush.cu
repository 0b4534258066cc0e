// `tessel bench gemm`: the L2 flush before every timed launch
// (bench_gemm_timing.hpp, docs/bench-protocol.md §2).
//
// By default the flush READS a buffer of at least twice the L2: afterwards
// the L2 holds clean lines of that buffer and none of the GEMM's operands,
// and nothing is left to be written back.  A memset (--flush memset, the old
// way) leaves the L2 full of dirty lines, whose write-back to memory then
// competes with the timed launch (measured through PyTorch on an H100:
// cuBLAS at M=16, N=K=8192 ran 17% slower after a 200 MB memset than after
// reading the same buffer).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "bench_gemm_timing.hpp"

namespace tessel::bench::gemm_detail {
namespace {

// The buffer is zeroed once (init_l2_flush), so the sum of its 32-bit words
// is 0 and never equals this: the kernel's store never happens.  But the
// compiler cannot know that, so it cannot drop the loads the sum depends on.
constexpr unsigned kImpossibleSum = 1;
constexpr int kFlushThreads = 256;

/// Reads words[0, n) with 16-byte loads in a grid-stride loop, four
/// independent loads per thread in flight; sums the 32-bit words and writes
/// the sum to *sink only if it equals `sentinel`.
__global__ void __launch_bounds__(kFlushThreads)
    l2_flush_read(const uint4* __restrict__ words, std::size_t n, unsigned sentinel, unsigned* __restrict__ sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned sum = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = words[i], b = words[i + stride], c = words[i + 2 * stride], d = words[i + 3 * stride];
    sum += a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w + c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w;
  }
  for (; i < n; i += stride) {
    const uint4 a = words[i];
    sum += a.x + a.y + a.z + a.w;
  }
  if (sum == sentinel) *sink = sum;
}

}  // namespace

void init_l2_flush(const TimingPolicy& pol, cudaStream_t s) {
  CUDA_CHECK(cudaMemsetAsync(pol.flush, 0, pol.flush_bytes, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
}

void flush_l2(const TimingPolicy& pol, int i, cudaStream_t s) {
  if (pol.flush_mode == L2Flush::memset) {
    CUDA_CHECK(cudaMemsetAsync(pol.flush, i & 0xFF, pol.flush_bytes, s));
    return;
  }
  l2_flush_read<<<pol.flush_blocks, kFlushThreads, 0, s>>>(static_cast<const uint4*>(pol.flush), pol.flush_bytes / 16,
                                                           kImpossibleSum, pol.flush_sink);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace tessel::bench::gemm_detail
