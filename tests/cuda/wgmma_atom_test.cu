// wgmma as an MMA atom inside TiledMma (atom/mma_sm90.hpp), end to end:
// operand tiles in shared memory (K-major or MN-major, 128-byte swizzle),
// descriptors made by the TiledMMA from the shared tensors (SS) or A copied
// into a register fragment (RS), the warpgroup protocol outside the atom
// (several wgmmas in flight, the first with scale-d = 0 on poisoned
// accumulators), C written through partition_C.  Exact against the host for
// small integers, for every N in 8..256 (SS, K-major), MN-major operands,
// the RS form, and two warpgroups on a 128-row tile; and the FP8 atom
// (atom/mma_sm90_fp8.hpp) on K-major e4m3/e5m2 tiles.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gpu_test.hpp"
#include "tessel/algorithm/copy.hpp"
#include "tessel/atom/mma_sm90.hpp"
#include "tessel/atom/mma_sm90_fp8.hpp"

using namespace tessel;
using bf16 = __nv_bfloat16;
using arch::sm90::GmmaMajor;

namespace {

inline constexpr int kK = 64;  // four k16 atoms

template <int Rows, GmmaMajor Major>
inline constexpr SwizzledLayout kSmem{
    Swizzle{3, 3, 3},
    tile_to_shape(Major == GmmaMajor::k ? atom_layouts::gmma_k_sw128.layout : atom_layouts::gmma_mn_sw128.layout,
                  make_shape(Rows, kK))
        .value()};

template <int M, int N>
struct CTile {
  static constexpr IntTuple value = make_shape(M, N);
};

/// C (M x N, row-major) = A (M x 64, row-major) * B^T, B given as N x 64
/// row-major; M = 64 * AM, one warpgroup per 64 rows.
template <int N, GmmaMajor MA, GmmaMajor MB, bool RS, int AM>
__global__ void wgmma_kernel(const bf16* A, const bf16* B, float* C) {
  constexpr int M = 64 * AM;
  using Atom = std::conditional_t<RS, SM90_64xNx16_F32_RS<bf16, N, MB>, SM90_64xNx16_F32_SS<bf16, N, MA, MB>>;
  using TM = TiledMma<Atom, AM, 1, 1>;
  constexpr SwizzledLayout LA = kSmem<M, MA>, LB = kSmem<N, MB>;
  extern __shared__ __align__(1024) unsigned char smem[];
  bf16* pa = reinterpret_cast<bf16*>(smem);
  bf16* pb = pa + M * kK;                    // M * 128 bytes: keeps pb 1024-byte aligned
  const auto sA = make_smem_tensor<LA>(pa);  // (M,64)
  const auto sB = make_smem_tensor<LB>(pb);  // (N,64)
  for (int i = threadIdx.x; i < M * kK; i += blockDim.x) sA(i / kK, i % kK) = A[i];
  for (int i = threadIdx.x; i < N * kK; i += blockDim.x) sB(i / kK, i % kK) = B[i];
  arch::sm90::fence_proxy_async_shared_cta();  // generic stores, then wgmma's async-proxy reads
  __syncthreads();

  const int t = static_cast<int>(threadIdx.x);
  const auto thr = TM{}.get_slice(t);
  auto tCrA = thr.partition_fragment_A(sA);        // (1,1,4) descriptors (SS) or (8,1,4) registers (RS)
  const auto tCdB = thr.partition_fragment_B(sB);  // (1,1,4) descriptors
  if constexpr (RS) {
    using CopyA = TiledCopyA<UniversalCopy<bf16, 16>, TM>;
    copy(CopyA{}, CopyA{}.get_slice(t).partition_S(sA), tCrA);
  }
  typename TM::template FragmentC<coord_layout(CTile<M, N>::value)> acc;            // (N/2,1,1) f32
  for (int v = 0; v < acc.kValues; ++v) *acc.addr(v) = __int_as_float(0x7fc00000);  // NaN: scale-d = 0 must ignore it

  warpgroup_fence_operand(acc);
  if constexpr (RS) warpgroup_fence_operand(tCrA);
  warpgroup_arrive();
  TESSEL_UNROLL
  for (int k = 0; k < kK / 16; ++k) gemm(TM{}, tCrA(_, _, k), tCdB(_, _, k), acc, k > 0);  // 4 wgmmas in flight
  warpgroup_commit_batch();
  warpgroup_wait<0>();
  warpgroup_fence_operand(acc);
  if constexpr (RS) warpgroup_fence_operand(tCrA);

  const auto gC = make_global_tensor(C, {index_t{M}, index_t{N}}, {index_t{N}, index_t{1}});
  auto tCgC = thr.partition_C(local_tile<CTile<M, N>>(gC, 0, 0));
  for (int v = 0; v < acc.kValues; ++v) *tCgC.addr(v) = *acc.addr(v);
}

template <int N, GmmaMajor MA = GmmaMajor::k, GmmaMajor MB = GmmaMajor::k, bool RS = false, int AM = 1>
void run() {
  constexpr int M = 64 * AM;
  std::mt19937 rng(N + 1000 * AM);
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<float> a(M * kK), b(N * kK);
  std::vector<bf16> ha(a.size()), hb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ha[i] = __float2bfloat16(a[i] = static_cast<float>(d(rng)));
  for (std::size_t i = 0; i < b.size(); ++i) hb[i] = __float2bfloat16(b[i] = static_cast<float>(d(rng)));
  tessel::testing::DeviceArray<bf16> da(ha.size()), db(hb.size());
  tessel::testing::DeviceArray<float> dc(static_cast<std::size_t>(M * N));
  ASSERT_TRUE(da.ptr && db.ptr && dc.ptr);
  CUDA_CHECK(cudaMemcpy(da.ptr, ha.data(), ha.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db.ptr, hb.data(), hb.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dc.ptr, 0xFF, static_cast<std::size_t>(M * N) * sizeof(float)));  // NaN poison
  const int smem = (M * kK + N * kK) * 2;
  auto* kernel = wgmma_kernel<N, MA, MB, RS, AM>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<1, 128 * AM, smem>>>(da.ptr, db.ptr, dc.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> c(static_cast<std::size_t>(M * N));
  CUDA_CHECK(cudaMemcpy(c.data(), dc.ptr, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0, nonzero = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float ref = 0;
      for (int k = 0; k < kK; ++k) ref += a[m * kK + k] * b[n * kK + k];
      nonzero += ref != 0;
      if (c[m * N + n] != ref && bad++ < 5)
        ADD_FAILURE() << "N=" << N << " RS=" << RS << " AM=" << AM << " C(" << m << "," << n << ") = " << c[m * N + n]
                      << ", expected " << ref;
    }
  EXPECT_EQ(bad, 0) << "N=" << N << " MA=" << static_cast<int>(MA) << " MB=" << static_cast<int>(MB) << " RS=" << RS
                    << " AM=" << AM;
  EXPECT_GT(nonzero, M * N / 2);
}

// ---------------------------------------------------------------- FP8 (k32 atoms, 1-byte elements)

inline constexpr int kKFp8 = 128;  // four k32 atoms: one 128-byte swizzled row

template <int Rows>
inline constexpr SwizzledLayout kSmemFp8{
    Swizzle{3, 4, 3},
    tile_to_shape(make_layout(make_shape(8, 128), make_stride(128, 1)), make_shape(Rows, kKFp8)).value()};

/// C (M x N) = A (M x 128) * B^T (B given as N x 128), FP8 A and B, K-major.
template <class TA, class TB, int N, int AM>
__global__ void wgmma_fp8_kernel(const TA* A, const TB* B, float* C) {
  constexpr int M = 64 * AM;
  using TM = TiledMma<SM90_64xNx32_F32_SS_FP8<TA, TB, N>, AM, 1, 1>;
  constexpr SwizzledLayout LA = kSmemFp8<M>, LB = kSmemFp8<N>;
  extern __shared__ __align__(1024) unsigned char smem[];
  TA* pa = reinterpret_cast<TA*>(smem);
  TB* pb = reinterpret_cast<TB*>(smem + M * kKFp8);  // M * 128 bytes: keeps pb 1024-byte aligned
  const auto sA = make_smem_tensor<LA>(pa);          // (M,128)
  const auto sB = make_smem_tensor<LB>(pb);          // (N,128)
  for (int i = threadIdx.x; i < M * kKFp8; i += blockDim.x) sA(i / kKFp8, i % kKFp8) = A[i];
  for (int i = threadIdx.x; i < N * kKFp8; i += blockDim.x) sB(i / kKFp8, i % kKFp8) = B[i];
  arch::sm90::fence_proxy_async_shared_cta();
  __syncthreads();

  const int t = static_cast<int>(threadIdx.x);
  const auto thr = TM{}.get_slice(t);
  const auto tCdA = thr.partition_fragment_A(sA);                                   // (1,1,4) descriptors
  const auto tCdB = thr.partition_fragment_B(sB);                                   // (1,1,4) descriptors
  typename TM::template FragmentC<coord_layout(CTile<M, N>::value)> acc;            // (N/2,1,1) f32
  for (int v = 0; v < acc.kValues; ++v) *acc.addr(v) = __int_as_float(0x7fc00000);  // NaN: scale-d = 0 must ignore it
  warpgroup_fence_operand(acc);
  warpgroup_arrive();
  TESSEL_UNROLL
  for (int k = 0; k < kKFp8 / 32; ++k) gemm(TM{}, tCdA(_, _, k), tCdB(_, _, k), acc, k > 0);
  warpgroup_commit_batch();
  warpgroup_wait<0>();
  warpgroup_fence_operand(acc);
  const auto gC = make_global_tensor(C, {index_t{M}, index_t{N}}, {index_t{N}, index_t{1}});
  auto tCgC = thr.partition_C(local_tile<CTile<M, N>>(gC, 0, 0));
  for (int v = 0; v < acc.kValues; ++v) *tCgC.addr(v) = *acc.addr(v);
}

template <class TA, class TB, int N, int AM = 1>
void run_fp8() {
  constexpr int M = 64 * AM;
  std::mt19937 rng(N + 7 * AM);
  std::uniform_int_distribution<int> d(-4, 4);  // exact in e4m3 and e5m2
  std::vector<float> a(M * kKFp8), b(N * kKFp8);
  std::vector<TA> ha(a.size());
  std::vector<TB> hb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ha[i] = TA(a[i] = static_cast<float>(d(rng)));
  for (std::size_t i = 0; i < b.size(); ++i) hb[i] = TB(b[i] = static_cast<float>(d(rng)));
  tessel::testing::DeviceArray<TA> da(ha.size());
  tessel::testing::DeviceArray<TB> db(hb.size());
  tessel::testing::DeviceArray<float> dc(static_cast<std::size_t>(M * N));
  ASSERT_TRUE(da.ptr && db.ptr && dc.ptr);
  CUDA_CHECK(cudaMemcpy(da.ptr, ha.data(), ha.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db.ptr, hb.data(), hb.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dc.ptr, 0xFF, static_cast<std::size_t>(M * N) * sizeof(float)));  // NaN poison
  const int smem = (M + N) * kKFp8;
  auto* kernel = wgmma_fp8_kernel<TA, TB, N, AM>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<1, 128 * AM, smem>>>(da.ptr, db.ptr, dc.ptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> c(static_cast<std::size_t>(M * N));
  CUDA_CHECK(cudaMemcpy(c.data(), dc.ptr, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float ref = 0;
      for (int k = 0; k < kKFp8; ++k) ref += a[m * kKFp8 + k] * b[n * kKFp8 + k];
      if (c[m * N + n] != ref && bad++ < 5)
        ADD_FAILURE() << "FP8 N=" << N << " AM=" << AM << " C(" << m << "," << n << ") = " << c[m * N + n]
                      << ", expected " << ref;
    }
  EXPECT_EQ(bad, 0) << "FP8 N=" << N << " AM=" << AM;
}

template <int... I>
void run_every_n(std::integer_sequence<int, I...>) {
  (run<8 * (I + 1)>(), ...);
}

}  // namespace

TEST(WgmmaTiledMma, SSKMajorEveryN) {
  REQUIRE_SM90();
  run_every_n(std::make_integer_sequence<int, 32>{});  // N = 8, 16, ..., 256
}
TEST(WgmmaTiledMma, SSMNMajorOperands) {
  REQUIRE_SM90();
  run<64, GmmaMajor::mn, GmmaMajor::mn>();
  run<128, GmmaMajor::mn, GmmaMajor::k>();
  run<256, GmmaMajor::k, GmmaMajor::mn>();
}
TEST(WgmmaTiledMma, RSAFromRegisters) {
  REQUIRE_SM90();
  run<8, GmmaMajor::k, GmmaMajor::k, true>();
  run<64, GmmaMajor::k, GmmaMajor::k, true>();
  run<128, GmmaMajor::k, GmmaMajor::mn, true>();
  run<256, GmmaMajor::k, GmmaMajor::k, true>();
}
TEST(WgmmaTiledMma, TwoWarpgroupsOnA128RowTile) {
  REQUIRE_SM90();
  run<128, GmmaMajor::k, GmmaMajor::k, false, 2>();
  run<256, GmmaMajor::k, GmmaMajor::k, false, 2>();
  run<192, GmmaMajor::mn, GmmaMajor::k, false, 2>();
}
TEST(WgmmaTiledMma, Fp8KMajor) {
  REQUIRE_SM90();
  run_fp8<__nv_fp8_e4m3, __nv_fp8_e4m3, 128>();
  run_fp8<__nv_fp8_e4m3, __nv_fp8_e5m2, 64>();
  run_fp8<__nv_fp8_e5m2, __nv_fp8_e4m3, 256>();
  run_fp8<__nv_fp8_e4m3, __nv_fp8_e4m3, 128, 2>();
}
