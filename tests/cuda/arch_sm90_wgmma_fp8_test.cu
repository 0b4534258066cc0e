// GPU tests of the FP8 wgmma wrapper (tessel/arch/sm90_wgmma_fp8.hpp),
// skipped with a message where no sm_90 device is present: wgmma_ss_fp8 for
// every pair of e4m3 / e5m2 operands against a host GEMM, both operands
// K-major, with no swizzle and with the 128-byte swizzle the kernels use.
//
// Operand values are integers in [-4, 4]: e4m3 and e5m2 hold them exactly, and
// every sum of K = 128 products (at most 2048 in size) is exact in the tensor
// core's accumulation, so results compare with ==.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "sm90_test_util.hpp"
#include "tessel/arch/sm90_wgmma_fp8.hpp"

using sm90::Fp8Type;

namespace {

/// The FP8 code of a small integer (|v| <= 4): sign, biased exponent, mantissa.
std::uint8_t fp8_bits(Fp8Type t, int v) {
  if (v == 0) return 0;
  const int mbits = t == Fp8Type::e4m3 ? 3 : 2;
  const int bias = t == Fp8Type::e4m3 ? 7 : 15;
  const int a = v < 0 ? -v : v;
  int e = 0;
  while ((a >> (e + 1)) != 0) ++e;  // a = 1.m * 2^e, exact for |v| <= 4 in both formats
  const int mantissa = ((a << mbits) >> e) & ((1 << mbits) - 1);
  return static_cast<std::uint8_t>((v < 0 ? 0x80 : 0) | ((e + bias) << mbits) | mantissa);
}

constexpr int kK = 128;           // K of every test GEMM: one 128-byte swizzled row
constexpr int kKSteps = kK / 32;  // wgmma instructions per test

struct Fp8Args {
  const std::uint8_t* a_image;
  const std::uint8_t* b_image;
  std::uint32_t a_bytes, b_bytes;
  std::uint32_t a_lbo, a_sbo, b_lbo, b_sbo;
  GmmaSwizzle swizzle;
  std::uint32_t a_koff[kKSteps], b_koff[kKSteps];
  const float* c;  // 64 x N row-major
  float* d;        // 64 x N row-major
  int accumulate;  // 1: D = C + A B; 0: D = A B (scale-d false on the first step)
};

template <Fp8Type TA, Fp8Type TB, int N, int kScaleA>
__global__ void __launch_bounds__(128) wgmma_fp8_kernel(Fp8Args args) {
  extern __shared__ std::uint8_t smem_raw[];
  // Operand tiles start on 1024-byte boundaries (the swizzle's period).
  const std::uint32_t raw = sm90::smem_addr(smem_raw);
  std::uint8_t* sa = smem_raw + (((raw + 1023u) & ~1023u) - raw);
  std::uint8_t* sb = sa + args.a_bytes;
  const int t = static_cast<int>(threadIdx.x);
  for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.a_bytes; i += 128) sa[i] = args.a_image[i];
  for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.b_bytes; i += 128) sb[i] = args.b_image[i];
  sm90::fence_proxy_async_shared_cta();  // generic stores read by the async proxy
  __syncthreads();

  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = args.c[acc_row(t, i) * N + acc_col(t, i)];
  const std::uint64_t desc_a = sm90::make_smem_desc(sm90::smem_addr(sa), args.a_lbo, args.a_sbo, args.swizzle);
  const std::uint64_t desc_b = sm90::make_smem_desc(sm90::smem_addr(sb), args.b_lbo, args.b_sbo, args.swizzle);
  sm90::register_fence(d);
  sm90::wgmma_fence();
#pragma unroll
  for (int s = 0; s < kKSteps; ++s)
    sm90::wgmma_ss_fp8<TA, TB, N, kScaleA>(d, sm90::desc_advance(desc_a, args.a_koff[s]),
                                           sm90::desc_advance(desc_b, args.b_koff[s]), args.accumulate != 0 || s > 0);
  sm90::wgmma_commit_group();
  sm90::wgmma_wait_group<0>();
  sm90::register_fence(d);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) args.d[acc_row(t, i) * N + acc_col(t, i)] = d[i];
}

/// The shared-memory image (bytes) of an (mn x kK) K-major FP8 operand and its
/// descriptor data.  No swizzle: 8 x 16-byte core matrices placed MN-first
/// (dense_tile_strides); 128-byte swizzle: 8-row atoms of 128-byte rows with
/// the 16-byte chunks of row r XOR-ed by r % 8 (docs/hardware.md §9).
struct Fp8Operand {
  std::vector<std::uint8_t> image;
  std::uint32_t lbo = 0, sbo = 0;
  std::uint32_t koff[kKSteps] = {};
};

Fp8Operand build_fp8_operand(Fp8Type type, GmmaSwizzle sw, int mn, const std::vector<int>& vals) {
  Fp8Operand op;
  op.image.assign(static_cast<std::size_t>(mn) * kK, 0xFF);  // NaN in both formats' upper codes
  const sm90::DescStrides st = sm90::dense_tile_strides(GmmaMajor::k, sw, static_cast<std::uint32_t>(mn), 1);
  op.lbo = st.lbo_bytes;
  op.sbo = st.sbo_bytes;
  for (int r = 0; r < mn; ++r)
    for (int k = 0; k < kK; ++k) {
      std::uint32_t off = 0;
      if (sw == GmmaSwizzle::none) {
        off = static_cast<std::uint32_t>((k / 16) * st.lbo_bytes + (r / 8) * st.sbo_bytes + (r % 8) * 16 + k % 16);
      } else {
        const std::uint32_t lin = static_cast<std::uint32_t>((r / 8) * 1024 + (r % 8) * 128 + k);
        off = lin ^ (((lin >> 7) & 7u) << 4);
      }
      op.image[off] = fp8_bits(type, vals[static_cast<std::size_t>(r * kK + k)]);
    }
  // Each k32 step starts 32 bytes further along K: two core matrices (LBO
  // apart) without a swizzle, 32 bytes into the swizzled row with one (§8.1).
  for (int s = 0; s < kKSteps; ++s)
    op.koff[s] = sw == GmmaSwizzle::none ? 2u * static_cast<std::uint32_t>(s) * st.lbo_bytes
                                         : 32u * static_cast<std::uint32_t>(s);
  return op;
}

template <Fp8Type TA, Fp8Type TB, int N, int kScaleA = 1>
void run_wgmma_fp8(GmmaSwizzle sw, bool accumulate, unsigned seed) {
  SCOPED_TRACE(::testing::Message() << (TA == Fp8Type::e4m3 ? "e4m3" : "e5m2") << " x "
                                    << (TB == Fp8Type::e4m3 ? "e4m3" : "e5m2") << " N=" << N
                                    << (sw == GmmaSwizzle::none ? " no swizzle" : " 128B swizzle")
                                    << (accumulate ? " D=C+AB" : " D=AB") << (kScaleA < 0 ? " (A negated)" : ""));
  std::mt19937 rng(seed);
  const std::vector<int> a = random_ints(64 * kK, rng);
  const std::vector<int> b = random_ints(static_cast<std::size_t>(N) * kK, rng);
  const std::vector<int> c = random_ints(static_cast<std::size_t>(64) * N, rng);
  const Fp8Operand ha = build_fp8_operand(TA, sw, 64, a);
  const Fp8Operand hb = build_fp8_operand(TB, sw, N, b);
  std::vector<float> c_host(c.begin(), c.end());

  DeviceArray<std::uint8_t> d_a(ha.image.size()), d_b(hb.image.size());
  DeviceArray<float> d_c(c_host.size()), d_d(c_host.size());
  ASSERT_TRUE(d_a.ptr && d_b.ptr && d_c.ptr && d_d.ptr);
  CUDA_CHECK(d_a.upload(ha.image));
  CUDA_CHECK(d_b.upload(hb.image));
  CUDA_CHECK(d_c.upload(c_host));
  CUDA_CHECK(d_d.fill_bytes(0xFF));  // NaN: an element the kernel does not write shows

  Fp8Args args{};
  args.a_image = d_a.ptr;
  args.b_image = d_b.ptr;
  args.a_bytes = static_cast<std::uint32_t>(ha.image.size());  // 64 x 128: a multiple of 1024
  args.b_bytes = static_cast<std::uint32_t>(hb.image.size());
  args.a_lbo = ha.lbo;
  args.a_sbo = ha.sbo;
  args.b_lbo = hb.lbo;
  args.b_sbo = hb.sbo;
  args.swizzle = sw;
  for (int s = 0; s < kKSteps; ++s) {
    args.a_koff[s] = ha.koff[s];
    args.b_koff[s] = hb.koff[s];
  }
  args.c = d_c.ptr;
  args.d = d_d.ptr;
  args.accumulate = accumulate ? 1 : 0;

  const std::size_t smem = 1024 + args.a_bytes + args.b_bytes;
  auto* kernel = wgmma_fp8_kernel<TA, TB, N, kScaleA>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  kernel<<<1, 128, smem>>>(args);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got;
  CUDA_CHECK(d_d.download(got));

  expect_exact_gemm(got, a, b, c, N, kK, kScaleA, accumulate);
}

template <Fp8Type TA, Fp8Type TB, int... Is>
void run_every_n(std::integer_sequence<int, Is...>) {
  (run_wgmma_fp8<TA, TB, 8 * (Is + 1)>(GmmaSwizzle::sw128, true, 2000u + static_cast<unsigned>(Is)), ...);
}

}  // namespace

TEST(WgmmaFp8, HostCodesOfSmallIntegers) {
  // Runs everywhere: the encoder the GPU cases rely on, against the formats' definitions.
  EXPECT_EQ(fp8_bits(Fp8Type::e4m3, 1), 0x38);   // 0 0111 000
  EXPECT_EQ(fp8_bits(Fp8Type::e4m3, 3), 0x44);   // 0 1000 100
  EXPECT_EQ(fp8_bits(Fp8Type::e4m3, -4), 0xC8);  // 1 1001 000
  EXPECT_EQ(fp8_bits(Fp8Type::e5m2, 1), 0x3C);   // 0 01111 00
  EXPECT_EQ(fp8_bits(Fp8Type::e5m2, 3), 0x42);   // 0 10000 10
  EXPECT_EQ(fp8_bits(Fp8Type::e5m2, -2), 0xC0);  // 1 10000 00
}

TEST(WgmmaFp8, E4m3N128Swizzled) {
  REQUIRE_SM90();
  run_wgmma_fp8<Fp8Type::e4m3, Fp8Type::e4m3, 128>(GmmaSwizzle::sw128, true, 1);
}
TEST(WgmmaFp8, E4m3N256NoSwizzle) {
  REQUIRE_SM90();
  run_wgmma_fp8<Fp8Type::e4m3, Fp8Type::e4m3, 256>(GmmaSwizzle::none, true, 2);
}
TEST(WgmmaFp8, MixedPairs) {
  REQUIRE_SM90();
  run_wgmma_fp8<Fp8Type::e4m3, Fp8Type::e5m2, 64>(GmmaSwizzle::sw128, true, 3);
  run_wgmma_fp8<Fp8Type::e5m2, Fp8Type::e4m3, 64>(GmmaSwizzle::sw128, true, 4);
  run_wgmma_fp8<Fp8Type::e5m2, Fp8Type::e5m2, 64>(GmmaSwizzle::none, true, 5);
}
TEST(WgmmaFp8, ScaleDFalseIgnoresC) {
  REQUIRE_SM90();
  run_wgmma_fp8<Fp8Type::e4m3, Fp8Type::e4m3, 128>(GmmaSwizzle::sw128, false, 6);
}
TEST(WgmmaFp8, NegatedA) {
  REQUIRE_SM90();
  run_wgmma_fp8<Fp8Type::e4m3, Fp8Type::e4m3, 64, -1>(GmmaSwizzle::sw128, true, 7);
}
TEST(WgmmaFp8, EveryNE4m3) {
  REQUIRE_SM90();
  run_every_n<Fp8Type::e4m3, Fp8Type::e4m3>(std::make_integer_sequence<int, 32>{});
}
