// The wgmma atom (atom/mma_sm90.hpp) end to end on one warpgroup: operand
// tiles in its swizzled shared layouts, C written through its partition_C,
// exact against the host for small integers, at N = 64, 128 and 256.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gpu_test.hpp"
#include "tessel/algorithm/copy.hpp"
#include "tessel/atom/mma_sm90.hpp"

using namespace tessel;
using bf16 = __nv_bfloat16;

namespace {

template <int N>
struct CTile {
  static constexpr IntTuple value = make_shape(64, N);
};

/// C (64 x N, row-major) = A (64 x 64, row-major) * B^T, B given as N x 64 row-major.
template <int N>
__global__ void __launch_bounds__(128) wgmma_atom_kernel(const bf16* A, const bf16* B, float* C) {
  using Atom = SM90_64xNx64_F32BF16BF16_SS<N>;
  extern __shared__ __align__(1024) unsigned char smem[];
  bf16* sA = reinterpret_cast<bf16*>(smem);
  bf16* sB = sA + 64 * 64;  // 8 KB: keeps sB 1024-byte aligned
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x)
    sA[StaticSwizzledLayout<Atom::kSmemA>{}(i / 64, i % 64)] = A[i];
  for (int i = threadIdx.x; i < N * 64; i += blockDim.x)
    sB[StaticSwizzledLayout<Atom::kSmemB>{}(i / 64, i % 64)] = B[i];
  arch::sm90::fence_proxy_async_shared_cta();  // generic stores, then wgmma's async-proxy reads
  __syncthreads();

  typename Atom::FragmentC acc;
  Atom::mma(sA, sB, acc, false);

  const auto gC = make_global_tensor(C, {index_t{64}, index_t{N}}, {index_t{N}, index_t{1}});
  auto tCgC = Atom::partition_C(local_tile<CTile<N>>(gC, 0, 0), static_cast<int>(threadIdx.x));
  for (int v = 0; v < acc.kValues; ++v) *tCgC.addr(v) = *acc.addr(v);
}

template <int N>
void run() {
  std::mt19937 rng(N);
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<float> a(64 * 64), b(N * 64);
  std::vector<bf16> ha(a.size()), hb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ha[i] = __float2bfloat16(a[i] = static_cast<float>(d(rng)));
  for (std::size_t i = 0; i < b.size(); ++i) hb[i] = __float2bfloat16(b[i] = static_cast<float>(d(rng)));
  bf16 *da, *db;
  float* dc;
  CUDA_CHECK(cudaMalloc(&da, ha.size() * sizeof(bf16)));
  CUDA_CHECK(cudaMalloc(&db, hb.size() * sizeof(bf16)));
  CUDA_CHECK(cudaMalloc(&dc, 64 * N * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, ha.data(), ha.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, hb.data(), hb.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dc, 0xFF, 64 * N * sizeof(float)));  // NaN poison
  const int smem = (64 * 64 + N * 64) * 2;
  CUDA_CHECK(cudaFuncSetAttribute(wgmma_atom_kernel<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  wgmma_atom_kernel<N><<<1, 128, smem>>>(da, db, dc);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> c(64 * N);
  CUDA_CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0, nonzero = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n) {
      float ref = 0;
      for (int k = 0; k < 64; ++k) ref += a[m * 64 + k] * b[n * 64 + k];
      nonzero += ref != 0;
      if (c[m * N + n] != ref && bad++ < 5)
        ADD_FAILURE() << "N=" << N << " C(" << m << "," << n << ") = " << c[m * N + n] << ", expected " << ref;
    }
  EXPECT_EQ(bad, 0) << "N=" << N;
  EXPECT_GT(nonzero, 64 * N / 2);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}

bool is_sm90() {
  cudaDeviceProp p{};
  return cudaGetDeviceProperties(&p, 0) == cudaSuccess && p.major == 9;
}

}  // namespace

TEST(WgmmaAtom, MatchesHostAtN64_128_256) {
  REQUIRE_GPU();
  if (!is_sm90()) GTEST_SKIP() << "wgmma needs a compute capability 9.0 GPU (this test is built for sm_90a)";
  run<64>();
  run<128>();
  run<256>();
}
