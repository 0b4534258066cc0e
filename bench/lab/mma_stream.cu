// bench/lab/mma_stream.cu — what mma.sync alone does on this GPU, under the
// protocol's timing: the ceiling that a mma.sync GEMM is measured against,
// and the board power it takes to run there.
//
// One CTA per SM with k11's eight consumer warps (k11 was named k09 when
// this was written).  Each warp holds, in registers, the A and B fragments of
// two k-slices of a 64x64 warp tile, loaded once from global memory, and
// issues k11's MMA sequence over them: per k-tile four k-slices of 32
// m16n8k16 each (slices 0,1,0,1), in tessel::gemm's serpentine order, for as
// many k-tiles as k11 runs per CTA at 4096^3 (4 tiles of 64).  No shared memory, no ldmatrix, no loads in the loop.
//
//   mma_stream DATA LAUNCHES
//     DATA: random  fragments of uniform [-1,1] bf16 (the protocol's timing data)
//           zero    all zeros (the datapath toggles nothing)
//   Prints the median TFLOP/s over LAUNCHES launches, each behind an L2 flush
//   as in tessel bench gemm.  bench/lab/sampled.sh adds the SM clock and power.
// Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Iinclude bench/lab/mma_stream.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tessel/arch/sm80.hpp"

#define CK(x)                                                                                 \
  do {                                                                                        \
    const cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace {

constexpr int kWarps = 8;                                                // k11's consumer warps
constexpr int kRM = 4, kRN = 8;                                          // a 64x64 warp tile of m16n8 atoms
constexpr int kSlices = 2;                                               // k-slices held in registers
constexpr int kWordsA = kSlices * kRM * 4, kWordsB = kSlices * kRN * 2;  // per thread
constexpr int kKTiles = 4 * 64;                                          // k11's k-tiles per CTA at 4096^3

__global__ void __launch_bounds__(32 * kWarps, 1) mma_stream(const std::uint32_t* frags, int k_tiles, float* out) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const std::uint32_t* src = frags + static_cast<std::size_t>(t) * (kWordsA + kWordsB);
  std::uint32_t a[kSlices][kRM][4], b[kSlices][kRN][2];
#pragma unroll
  for (int s = 0; s < kSlices; ++s) {
#pragma unroll
    for (int m = 0; m < kRM; ++m)
#pragma unroll
      for (int i = 0; i < 4; ++i) a[s][m][i] = src[(s * kRM + m) * 4 + i];
#pragma unroll
    for (int n = 0; n < kRN; ++n)
#pragma unroll
      for (int i = 0; i < 2; ++i) b[s][n][i] = src[kWordsA + (s * kRN + n) * 2 + i];
  }
  float c[kRM][kRN][4] = {};
  for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const int s = kk % kSlices;
#pragma unroll
      for (int m = 0; m < kRM; ++m)
#pragma unroll
        for (int j = 0; j < kRN; ++j) {
          const int n = m % 2 == 0 ? j : kRN - 1 - j;  // serpentine, as tessel::gemm
          tessel::arch::sm80::mma_m16n8k16_f32_bf16(c[m][n], a[s][m], b[s][n], c[m][n]);
        }
    }
  }
  float sum = 0;
#pragma unroll
  for (int m = 0; m < kRM; ++m)
#pragma unroll
    for (int n = 0; n < kRN; ++n)
#pragma unroll
      for (int i = 0; i < 4; ++i) sum += c[m][n][i];
  out[t] = sum;  // keeps every MMA alive
}

/// Uniform [-1,1] bf16 pairs (bf16 is the top half of an f32), or zeros.
__global__ void fill(std::uint32_t* p, std::size_t n, bool zero) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    std::uint32_t word = 0;
    for (int h = 0; h < 2; ++h) {
      unsigned x = static_cast<unsigned>(2 * i + h) * 2654435761u ^ 0x9e3779b9u;
      x ^= x >> 15;
      x *= 2246822519u;
      x ^= x >> 13;
      x *= 3266489917u;
      x ^= x >> 16;
      const float f = static_cast<float>(x & 0xFFFFFF) / 8388608.0f - 1.0f;
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      word |= (bits >> 16) << (16 * h);
    }
    p[i] = zero ? 0u : word;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (std::strcmp(argv[1], "random") != 0 && std::strcmp(argv[1], "zero") != 0)) {
    std::fprintf(stderr, "usage: mma_stream random|zero LAUNCHES\n");
    return 2;
  }
  const bool zero = std::strcmp(argv[1], "zero") == 0;
  const int launches = std::atoi(argv[2]);
  if (launches < 1) {
    std::fprintf(stderr, "mma_stream: LAUNCHES must be at least 1\n");
    return 2;
  }
  int dev = 0, sms = 0, l2 = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  const int threads = 32 * kWarps;
  const std::size_t words = static_cast<std::size_t>(sms) * threads * (kWordsA + kWordsB);
  std::uint32_t* frags = nullptr;
  float* out = nullptr;
  char* flush = nullptr;
  const std::size_t flush_bytes = 2 * static_cast<std::size_t>(l2);
  CK(cudaMalloc(&frags, words * 4));
  CK(cudaMalloc(&out, static_cast<std::size_t>(sms) * threads * 4));
  CK(cudaMalloc(&flush, flush_bytes));
  fill<<<1024, 256>>>(frags, words, zero);
  CK(cudaGetLastError());
  const double flop = 2.0 * 16 * 8 * 16 * kRM * kRN * 4 * static_cast<double>(kKTiles) * kWarps * sms;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 10; ++i) mma_stream<<<sms, threads>>>(frags, kKTiles, out);
  CK(cudaGetLastError());
  std::vector<float> ts;
  for (int i = 0; i < launches; ++i) {
    CK(cudaMemsetAsync(flush, i & 0xFF, flush_bytes));
    CK(cudaEventRecord(e0));
    mma_stream<<<sms, threads>>>(frags, kKTiles, out);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    ts.push_back(ms);
  }
  std::vector<float> host(static_cast<std::size_t>(sms) * threads);
  CK(cudaMemcpy(host.data(), out, host.size() * 4, cudaMemcpyDeviceToHost));
  double check = 0;
  for (float v : host) check += v;
  std::sort(ts.begin(), ts.end());
  const float med = ts[ts.size() / 2];
  std::printf("mma_stream %-6s %d launches: median %.4f ms, %.1f TFLOP/s (min %.4f ms; checksum %.3g)\n", argv[1],
              launches, med, flop / med / 1e9, ts.front(), check);
  return 0;
}
