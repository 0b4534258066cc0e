// GPU tests of the wgmma wrappers (tessel/arch/sm90.hpp, sm90_desc.hpp;
// docs/hardware.md §7–§8), skipped with a message where no sm_90 device is
// present: wgmma SS (both operands through shared-memory descriptors, in every
// K-/MN-major and swizzle layout) and RS (A from registers) against a host
// GEMM, for every generated N, bf16 and f16.
//
// Operand values are small integers in [-4, 4]: bf16 and f16 hold them exactly
// and every sum of K = 64 products is exact in f32, so results compare with ==.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sm90_test_util.hpp"

// ================================================================ wgmma

namespace {

/// bf16 / f16 bit patterns of small integers (exact).
std::uint16_t bf16_bits(int v) {
  const float f = static_cast<float>(v);
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<std::uint16_t>(u >> 16);  // exact: the low mantissa bits are zero
}
std::uint16_t f16_bits(int v) {
  if (v == 0) return 0;
  const std::uint16_t sign = v < 0 ? 0x8000 : 0;
  const int a = v < 0 ? -v : v;
  int e = 0;
  while ((a >> (e + 1)) != 0) ++e;  // a = 1.m * 2^e
  const int mantissa = (a << (10 - e)) & 0x3FF;
  return static_cast<std::uint16_t>(sign | ((e + 15) << 10) | mantissa);
}
template <WgmmaType T>
std::uint16_t to_bits(int v) {
  return T == WgmmaType::bf16 ? bf16_bits(v) : f16_bits(v);
}

constexpr int kK = 64;            // K of every test GEMM
constexpr int kKSteps = kK / 16;  // wgmma instructions per test

/// One operand in shared memory: its image, descriptor strides and the
/// start-address advance of each k16 step.
struct WgmmaArgs {
  const std::uint16_t* a_image;     // SS: A's shared-memory image
  const std::uint16_t* a_rowmajor;  // RS: A as 64 x kK row-major
  const std::uint16_t* b_image;
  std::uint32_t a_image_elems, b_image_elems;
  std::uint32_t a_lbo, a_sbo, b_lbo, b_sbo;
  GmmaSwizzle a_swizzle, b_swizzle;
  std::uint32_t a_koff[kKSteps], b_koff[kKSteps];
  const float* c;  // 64 x N row-major
  float* d;        // 64 x N row-major
  int accumulate;  // 1: D = C + op(A) B; 0: D = op(A) B (scale-d false on the first step)
};

template <WgmmaType T, int N, GmmaMajor MA, GmmaMajor MB, bool kRS, int kScaleA>
__global__ void __launch_bounds__(128) wgmma_kernel(WgmmaArgs args) {
  extern __shared__ std::uint8_t smem_raw[];
  // Operand tiles start on 1024-byte boundaries: the base offset of every
  // descriptor is then 0 and the element-unit swizzles of §9 hold.
  const std::uint32_t raw = sm90::smem_addr(smem_raw);
  auto* sa = reinterpret_cast<std::uint16_t*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
  std::uint16_t* sb = sa + (kRS ? 0 : args.a_image_elems);
  const int t = static_cast<int>(threadIdx.x);
  if constexpr (!kRS)
    for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.a_image_elems; i += 128) sa[i] = args.a_image[i];
  for (std::uint32_t i = static_cast<std::uint32_t>(t); i < args.b_image_elems; i += 128) sb[i] = args.b_image[i];
  // Generic stores, read by wgmma through descriptors (async proxy): §12.2.
  sm90::fence_proxy_async_shared_cta();
  __syncthreads();

  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = args.c[acc_row(t, i) * N + acc_col(t, i)];
  std::uint32_t a[kKSteps][4] = {};
  if constexpr (kRS) {
#pragma unroll
    for (int s = 0; s < kKSteps; ++s)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::uint32_t lo = args.a_rowmajor[afrag_row(t, 2 * j) * kK + 16 * s + afrag_col(t, 2 * j)];
        const std::uint32_t hi = args.a_rowmajor[afrag_row(t, 2 * j + 1) * kK + 16 * s + afrag_col(t, 2 * j + 1)];
        a[s][j] = lo | (hi << 16);
      }
  }
  const std::uint64_t desc_a = sm90::make_smem_desc(sm90::smem_addr(sa), args.a_lbo, args.a_sbo, args.a_swizzle);
  const std::uint64_t desc_b = sm90::make_smem_desc(sm90::smem_addr(sb), args.b_lbo, args.b_sbo, args.b_swizzle);

  sm90::register_fence(d);
#pragma unroll
  for (int s = 0; s < kKSteps; ++s) sm90::register_fence(a[s]);
  sm90::wgmma_fence();
#pragma unroll
  for (int s = 0; s < kKSteps; ++s) {
    const bool scale_d = args.accumulate != 0 || s > 0;
    const std::uint64_t db = sm90::desc_advance(desc_b, args.b_koff[s]);
    if constexpr (kRS)
      sm90::wgmma_rs<T, N, MB, kScaleA>(d, a[s], db, scale_d);
    else
      sm90::wgmma_ss<T, N, MA, MB, kScaleA>(d, sm90::desc_advance(desc_a, args.a_koff[s]), db, scale_d);
  }
  sm90::wgmma_commit_group();
  sm90::wgmma_wait_group<0>();
  sm90::register_fence(d);
#pragma unroll
  for (int s = 0; s < kKSteps; ++s) sm90::register_fence(a[s]);

#pragma unroll
  for (int i = 0; i < N / 2; ++i) args.d[acc_row(t, i) * N + acc_col(t, i)] = d[i];
}

/// The shared-memory image of an (mn x kK) operand with values vals[mn*kK + k],
/// laid out as tile_to_shape(golden atom, (mn, kK)), and its descriptor data.
struct HostOperand {
  std::vector<std::uint16_t> image;
  std::uint32_t lbo = 0, sbo = 0;
  GmmaSwizzle swizzle = GmmaSwizzle::none;
  std::uint32_t koff[kKSteps] = {};
  std::string error;
};

template <WgmmaType T>
HostOperand build_operand(GmmaMajor major, GmmaSwizzle sw, int mn, const std::vector<int>& vals) {
  HostOperand op;
  const SwizzledLayout* atom = golden(smem_atom_name(major, sw), "SMEM");
  if (atom == nullptr) {
    op.error = "no golden atom " + smem_atom_name(major, sw);
    return op;
  }
  const Result<SwizzledLayout> tiled = tile_to_shape(*atom, make_shape(mn, kK));
  if (!tiled.ok()) {
    op.error = "tile_to_shape(" + to_string(*atom) + ", (" + std::to_string(mn) + "," + std::to_string(kK) +
               ")): " + tiled.err.message();
    return op;
  }
  const SwizzledLayout tile = tiled.val;
  op.image.assign(static_cast<std::size_t>(mn) * kK, 0xFFFF);
  std::vector<int> hits(op.image.size(), 0);
  for (int r = 0; r < mn; ++r)
    for (int k = 0; k < kK; ++k) {
      const index_t off = tile(index_t{r}, index_t{k});
      if (off < 0 || off >= static_cast<index_t>(op.image.size()) || hits[static_cast<std::size_t>(off)]++ != 0) {
        op.error = "tile " + to_string(tile) + " is not a bijection onto the image";
        return op;
      }
      op.image[static_cast<std::size_t>(off)] = to_bits<T>(vals[static_cast<std::size_t>(r * kK + k)]);
    }
  const sm90::DescStrides st = sm90::dense_tile_strides(major, sw, static_cast<std::uint32_t>(mn), 2);
  op.lbo = st.lbo_bytes;
  op.sbo = st.sbo_bytes;
  op.swizzle = sw;
  // Each k16 step starts at the unswizzled offset of element (0, 16 s) (§8.1).
  for (int s = 0; s < kKSteps; ++s)
    op.koff[s] = static_cast<std::uint32_t>(2 * tile.layout(index_t{0}, index_t{16 * s}));
  return op;
}

/// D = [C +] ScaleA * A * B on the GPU vs the host, exactly.  A is 64 x kK
/// (SS: stored with (major_a, sw_a)); B is N x kK as (n, k), stored with (MB, sw_b).
template <WgmmaType T, int N, GmmaMajor MA, GmmaMajor MB, bool kRS, int kScaleA = 1>
void run_wgmma(GmmaSwizzle sw_a, GmmaSwizzle sw_b, bool accumulate, unsigned seed) {
  SCOPED_TRACE(::testing::Message() << (kRS ? "RS" : "SS") << (T == WgmmaType::bf16 ? " bf16" : " f16") << " N=" << N
                                    << " A " << (kRS ? std::string("registers") : smem_atom_name(MA, sw_a)) << " B "
                                    << smem_atom_name(MB, sw_b) << (accumulate ? " D=C+AB" : " D=AB")
                                    << (kScaleA < 0 ? " (A negated)" : ""));
  std::mt19937 rng(seed);
  const std::vector<int> a = random_ints(64 * kK, rng);
  const std::vector<int> b = random_ints(static_cast<std::size_t>(N) * kK, rng);
  const std::vector<int> c = random_ints(static_cast<std::size_t>(64) * N, rng);

  HostOperand ha;
  if (!kRS) {
    ha = build_operand<T>(MA, sw_a, 64, a);
    ASSERT_TRUE(ha.error.empty()) << ha.error;
    ASSERT_EQ(ha.image.size() * 2 % 1024, 0u);
  }
  const HostOperand hb = build_operand<T>(MB, sw_b, N, b);
  ASSERT_TRUE(hb.error.empty()) << hb.error;
  std::vector<std::uint16_t> a_rowmajor(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) a_rowmajor[i] = to_bits<T>(a[i]);
  std::vector<float> c_host(c.begin(), c.end());

  DeviceArray<std::uint16_t> d_a_image(kRS ? 1 : ha.image.size()), d_a_rowmajor(a_rowmajor.size()),
      d_b_image(hb.image.size());
  DeviceArray<float> d_c(c_host.size()), d_d(c_host.size());
  ASSERT_TRUE(d_a_image.ptr && d_a_rowmajor.ptr && d_b_image.ptr && d_c.ptr && d_d.ptr);
  if (!kRS) CUDA_CHECK(d_a_image.upload(ha.image));
  CUDA_CHECK(d_a_rowmajor.upload(a_rowmajor));
  CUDA_CHECK(d_b_image.upload(hb.image));
  CUDA_CHECK(d_c.upload(c_host));
  CUDA_CHECK(d_d.fill_bytes(0xFF));  // NaN: an element the kernel does not write shows

  WgmmaArgs args{};
  args.a_image = d_a_image.ptr;
  args.a_rowmajor = d_a_rowmajor.ptr;
  args.b_image = d_b_image.ptr;
  args.a_image_elems = static_cast<std::uint32_t>(kRS ? 0 : ha.image.size());
  args.b_image_elems = static_cast<std::uint32_t>(hb.image.size());
  args.a_lbo = ha.lbo;
  args.a_sbo = ha.sbo;
  args.a_swizzle = ha.swizzle;
  args.b_lbo = hb.lbo;
  args.b_sbo = hb.sbo;
  args.b_swizzle = hb.swizzle;
  for (int s = 0; s < kKSteps; ++s) {
    args.a_koff[s] = ha.koff[s];
    args.b_koff[s] = hb.koff[s];
  }
  args.c = d_c.ptr;
  args.d = d_d.ptr;
  args.accumulate = accumulate ? 1 : 0;

  const std::size_t smem = 1024 + 2 * (args.a_image_elems + args.b_image_elems);
  wgmma_kernel<T, N, MA, MB, kRS, kScaleA><<<1, 128, smem>>>(args);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got;
  CUDA_CHECK(d_d.download(got));

  expect_exact_gemm(got, a, b, c, N, kK, kScaleA, accumulate);
}

template <WgmmaType T, bool kRS, int... Is>
void run_every_n(std::integer_sequence<int, Is...>) {
  (run_wgmma<T, 8 * (Is + 1), GmmaMajor::k, GmmaMajor::k, kRS>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true,
                                                               1000u + static_cast<unsigned>(Is)),
   ...);
}

}  // namespace

// -------------------------------------------- RS: A from registers (§7.3), B K-major 128B swizzle
TEST(WgmmaRS, Bf16N8) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 8, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 1);
}
TEST(WgmmaRS, Bf16N64) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 2);
}
TEST(WgmmaRS, Bf16N128) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 3);
}
TEST(WgmmaRS, Bf16N256) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 256, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 4);
}
TEST(WgmmaRS, Bf16N64ScaleDFalseIgnoresC) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, false, 5);
}
TEST(WgmmaRS, Bf16N128BMnMajor64B) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::mn, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw64, true, 6);
}
TEST(WgmmaRS, F16N128) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::f16, 128, GmmaMajor::k, GmmaMajor::k, true>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 7);
}

// -------------------------------------------- SS: both operands through descriptors (§8)
TEST(WgmmaSS, Bf16N8KMajor128B) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 8, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 11);
}
TEST(WgmmaSS, Bf16N64KMajor128B) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 12);
}
TEST(WgmmaSS, Bf16N128KMajor128B) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 13);
}
TEST(WgmmaSS, Bf16N256KMajor128B) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 256, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 14);
}
TEST(WgmmaSS, Bf16N64EverySmemLayout) {
  // A and B in each of the 8 layouts of §8.4 (K- and MN-major x none/32B/64B/128B).
  REQUIRE_SM90();
  for (GmmaSwizzle sw : {GmmaSwizzle::none, GmmaSwizzle::sw32, GmmaSwizzle::sw64, GmmaSwizzle::sw128}) {
    run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, false>(sw, sw, true, 20);
    run_wgmma<WgmmaType::bf16, 64, GmmaMajor::mn, GmmaMajor::mn, false>(sw, sw, true, 21);
  }
}
TEST(WgmmaSS, Bf16N128KMajorNoSwizzle) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::none, GmmaSwizzle::none, true, 22);
}
TEST(WgmmaSS, Bf16N256MnMajor128BAcrossMnBlocks) {
  // B is four 64-element MN blocks wide: LBO (MN-major, swizzled) is used.
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 256, GmmaMajor::k, GmmaMajor::mn, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 23);
}
TEST(WgmmaSS, Bf16N128MnMajor32BAnd64B) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::mn, GmmaMajor::mn, false>(GmmaSwizzle::sw64, GmmaSwizzle::sw32, true, 24);
}
TEST(WgmmaSS, Bf16N256MnMajorNoSwizzle) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 256, GmmaMajor::mn, GmmaMajor::mn, false>(GmmaSwizzle::none, GmmaSwizzle::none, true, 25);
}
TEST(WgmmaSS, Bf16N128ScaleDFalseIgnoresC) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 128, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, false, 26);
}
TEST(WgmmaSS, Bf16N64NegatedA) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::bf16, 64, GmmaMajor::k, GmmaMajor::k, false, -1>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true,
                                                                        27);
}
TEST(WgmmaSS, F16N128KMajor128B) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::f16, 128, GmmaMajor::k, GmmaMajor::k, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 28);
}
TEST(WgmmaSS, F16N64MnMajor128B) {
  REQUIRE_SM90();
  run_wgmma<WgmmaType::f16, 64, GmmaMajor::mn, GmmaMajor::mn, false>(GmmaSwizzle::sw128, GmmaSwizzle::sw128, true, 29);
}

// -------------------------------------------- every generated shape, both types, both forms
TEST(WgmmaEveryN, SsBf16) {
  REQUIRE_SM90();
  run_every_n<WgmmaType::bf16, false>(std::make_integer_sequence<int, 32>{});
}
TEST(WgmmaEveryN, RsBf16) {
  REQUIRE_SM90();
  run_every_n<WgmmaType::bf16, true>(std::make_integer_sequence<int, 32>{});
}
TEST(WgmmaEveryN, SsF16) {
  REQUIRE_SM90();
  run_every_n<WgmmaType::f16, false>(std::make_integer_sequence<int, 32>{});
}
TEST(WgmmaEveryN, RsF16) {
  REQUIRE_SM90();
  run_every_n<WgmmaType::f16, true>(std::make_integer_sequence<int, 32>{});
}
