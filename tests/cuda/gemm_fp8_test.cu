// k13 on FP8 operands (kernels/gemm/wgmma_fp8.cuh): the 16-bit kernel's main
// loop, scheduler, split K and epilogue with the FP8 atom as its TiledMMA and
// k-tiles of 128 FP8 elements, launched through k13's own launch body
// (src/kernels/gemm/k13_tiles.hpp) before the library takes FP8 calls.  Exact
// against the host for small integers (e4m3 and e5m2 hold [-4, 4] exactly,
// the sums fit f32's mantissa), D in f32, A:k and B:k (FP8 reads K-major only),
// whole and partial tiles, split K, the promoted sums' intervals (a run's end
// inside and at the end of a unit) and fast accumulation; scales; groups through
// tessel::gemm_grouped (k13's grouped kernel).  GPU; skips without one.
#include <gtest/gtest.h>

#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_test.hpp"
#include "src/kernels/gemm/k13_tiles.hpp"
#include "src/kernels/gemm/launch.hpp"
#include "tessel/kernels/gemm/wgmma_fp8.cuh"

using namespace tessel;
namespace gk = tessel::gemm_kernels::k13;

namespace {

/// `count` integers in [-4, 4] (e4m3 and e5m2 hold them exactly) drawn from `rng`, and their FP8 copy on the device.
template <class T>
struct Fp8Ints {
  std::vector<int> v;
  tessel::testing::DeviceArray<T> dev;
  bool uploaded = false;
  Fp8Ints(std::size_t count, std::mt19937& rng) : v(count), dev(count) {
    std::uniform_int_distribution<int> dist(-4, 4);
    std::vector<T> h(count);
    for (std::size_t i = 0; i < count; ++i) h[i] = T(static_cast<float>(v[i] = dist(rng)));
    uploaded = dev.ptr != nullptr && dev.upload(h) == cudaSuccess;
  }
};

/// Row i of A (M x K) times row j of B (N x K), both K-major small integers.
long dot_ints(const std::vector<int>& a, const std::vector<int>& b, index_t i, index_t j, index_t k) {
  long sum = 0;
  for (index_t l = 0; l < k; ++l)
    sum += a[static_cast<std::size_t>(i * k + l)] * b[static_cast<std::size_t>(j * k + l)];
  return sum;
}

/// D's elements (M x N, row-major f32) that differ from want(i, j), the first five reported.
template <class Want>
int count_wrong(const std::vector<float>& d, index_t m, index_t n, const Want& want, const std::string& what = "") {
  int bad = 0;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      const float w = want(i, j), got = d[static_cast<std::size_t>(i * n + j)];
      if (got != w && bad++ < 5) ADD_FAILURE() << what << "D(" << i << "," << j << ") = " << got << ", expected " << w;
    }
  return bad;
}

template <class T, int BN, int BM = 128>
Status launch_fp8(const GemmArgs& g) {
  using Cfg = gk::Config<BN, false, BM>;
  return gemm_launch::k13::launch_kernel<Cfg, T, MajorA::k, MajorB::k>(g, nullptr, false,
                                                                       gemm_launch::k13::AotKernel<BN, false, BM>{});
}

/// D (M x N, f32) = A (M x K) B^T, B stored as N x K (B:k); `splits` along
/// K; sums promoted every `promote` k-tiles (0: the default), or none (`fast`).
template <class T, int BN, int BM = 128>
void run(index_t m, index_t n, index_t k, int splits, int promote = 0, bool fast = false) {
  SCOPED_TRACE(::testing::Message() << m << " x " << n << " x " << k << " tile " << BM << " x " << BN << " split "
                                    << splits << (std::is_same_v<T, __nv_fp8_e5m2> ? " e5m2" : " e4m3") << " promote "
                                    << promote << (fast ? " fast" : ""));
  std::mt19937 rng(static_cast<unsigned>(m * 7 + n * 3 + k));
  const Fp8Ints<T> a(static_cast<std::size_t>(m * k), rng), b(static_cast<std::size_t>(n * k), rng);
  tessel::testing::DeviceArray<float> dd(static_cast<std::size_t>(m * n));
  ASSERT_TRUE(a.uploaded && b.uploaded && dd.ptr);
  CUDA_CHECK(dd.fill_bytes(0xFF));  // NaN poison

  GemmArgs g;
  g.a = a.dev.ptr;
  g.b = b.dev.ptr;
  g.d = dd.ptr;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = k;
  g.ldb = k;
  g.ldd = n;
  g.ldc = n;
  g.cd_type = DType::f32;
  g.layout = {MajorA::k, MajorB::k};
  g.tuning.splits = splits;
  g.fp8_promote_every = promote;
  g.fp8_fast_accum = fast;
  const Status s = launch_fp8<T, BN, BM>(g);
  ASSERT_TRUE(s.is_ok()) << s.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> d;
  CUDA_CHECK(dd.download(d));
  EXPECT_EQ(count_wrong(d, m, n, [&](index_t i, index_t j) { return static_cast<float>(dot_ints(a.v, b.v, i, j, k)); }),
            0);
}

}  // namespace

TEST(GemmFp8K13, WholeTiles) {
  REQUIRE_SM90();
  run<__nv_fp8_e4m3, 128>(256, 256, 512, 1);
  run<__nv_fp8_e4m3, 256>(256, 512, 1024, 1);
}
TEST(GemmFp8K13, PartialTilesAndKTail) {
  REQUIRE_SM90();
  run<__nv_fp8_e4m3, 128>(200, 136, 144, 1);  // K = 144: one whole 128-element k-tile and a tail
  run<__nv_fp8_e5m2, 128>(1000, 520, 400, 1);
}
TEST(GemmFp8K13, SplitK) {
  REQUIRE_SM90();
  run<__nv_fp8_e4m3, 128>(256, 384, 2048, 4);
  run<__nv_fp8_e4m3, 128, 64>(64, 1024, 1536, 3);  // the 64-row tile: one consumer warpgroup
}
TEST(GemmFp8K13, PromotionIntervals) {
  REQUIRE_SM90();
  // K = 1664: 13 k-tiles, so every interval below ends a run inside the unit and one at its end.
  for (int every : {1, 2, 4, 5, 64}) run<__nv_fp8_e4m3, 128>(256, 256, 1664, 1, every);
  run<__nv_fp8_e4m3, 192>(300, 400, 1664, 1, 3);
  run<__nv_fp8_e5m2, 192>(128, 192, 1664, 2, 2);  // split K: each unit's runs start at its own k-tile
  run<__nv_fp8_e4m3, 128, 64>(64, 200, 1664, 1, 1);
  run<__nv_fp8_e4m3, 128>(256, 256, 1664, 1, 0, true);  // fast: one run over the unit
}

namespace {

/// The DType of an FP8 element type.
template <class T>
constexpr DType fp8_dtype() {
  return std::is_same_v<T, __nv_fp8_e5m2> ? DType::e5m2 : DType::e4m3;
}

/// tessel::gemm (auto, or the tile asked for) with FP8 scales `mode`:
/// exact against the host for small integers and power-of-two scales (the
/// dequantized products are integers times powers of two, the sums exact in
/// f32), D in f32.  Block scales at every residue of N and K against their
/// 128-element blocks.  A's elements TA, B's TB (b_type where they differ).
template <class TA = __nv_fp8_e4m3, class TB = TA>
void run_scaled(Fp8Scale mode, index_t m, index_t n, index_t k, int tile_m = 0, int tile_n = 0, int splits = 0,
                bool fast = false, SwapAB swap = SwapAB::plan) {
  SCOPED_TRACE(::testing::Message() << name(mode) << " " << m << " x " << n << " x " << k << " tile " << tile_m << " x "
                                    << tile_n << " splits " << splits << (fast ? " fast" : "") << " "
                                    << name(fp8_dtype<TA>()) << " x " << name(fp8_dtype<TB>()));
  std::mt19937 rng(static_cast<unsigned>(m * 5 + n * 11 + k));
  std::uniform_int_distribution<int> pow2(-2, 2);
  const Fp8Ints<TA> a(static_cast<std::size_t>(m * k), rng);
  const Fp8Ints<TB> b(static_cast<std::size_t>(n * k), rng);
  const index_t kb = (k + 127) / 128, nb = (n + 127) / 128;
  const bool per_tensor = mode == Fp8Scale::tensor || mode == Fp8Scale::none;  // none: scales of 1, not passed
  const std::size_t na = per_tensor ? 1 : mode == Fp8Scale::channel ? m : m * kb;
  const std::size_t nbs = per_tensor ? 1 : mode == Fp8Scale::channel ? n : nb * kb;
  std::vector<float> sa(na), sb(nbs);
  for (float& x : sa) x = mode == Fp8Scale::none ? 1.0f : std::ldexp(1.0f, pow2(rng));
  for (float& x : sb) x = mode == Fp8Scale::none ? 1.0f : std::ldexp(1.0f, pow2(rng));
  const auto scale_a = [&](index_t i, index_t l) {
    return per_tensor ? sa[0] : mode == Fp8Scale::channel ? sa[i] : sa[(l / 128) * m + i];
  };
  const auto scale_b = [&](index_t l, index_t j) {
    return per_tensor ? sb[0] : mode == Fp8Scale::channel ? sb[j] : sb[(j / 128) * kb + l / 128];
  };
  tessel::testing::DeviceArray<float> dd(static_cast<std::size_t>(m * n)), dsa(na), dsb(nbs);
  ASSERT_TRUE(a.uploaded && b.uploaded && dd.ptr && dsa.ptr && dsb.ptr);
  CUDA_CHECK(dsa.upload(sa));
  CUDA_CHECK(dsb.upload(sb));
  CUDA_CHECK(dd.fill_bytes(0xFF));  // NaN poison
  GemmArgs g;
  g.ab_type = fp8_dtype<TA>();
  if constexpr (!std::is_same_v<TA, TB>) g.b_type = fp8_dtype<TB>();
  g.cd_type = DType::f32;
  g.a = a.dev.ptr, g.b = b.dev.ptr, g.d = dd.ptr;
  g.m = m, g.n = n, g.k = k;
  g.lda = g.ldb = k, g.ldd = g.ldc = n;
  g.layout = {MajorA::k, MajorB::k};
  g.alpha = 0.5f;
  g.tuning.tile_m = tile_m, g.tuning.tile_n = tile_n, g.tuning.splits = splits;
  g.tuning.swap_ab = tile_n == 16 || tile_n == 32 ? SwapAB::on : swap;
  g.fp8_fast_accum = fast;
  if (mode != Fp8Scale::none) g.fp8_scale = mode, g.fp8_scale_a = dsa.ptr, g.fp8_scale_b = dsb.ptr;
  const Status s = gemm(GemmImpl::automatic, g);
  ASSERT_TRUE(s.is_ok()) << s.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> d;
  CUDA_CHECK(dd.download(d));
  const auto want = [&](index_t i, index_t j) {
    double ref = 0;
    for (index_t l = 0; l < k; ++l)
      ref += double{scale_a(i, l)} * a.v[static_cast<std::size_t>(i * k + l)] * scale_b(l, j) *
             b.v[static_cast<std::size_t>(j * k + l)];
    return static_cast<float>(0.5 * ref);
  };
  EXPECT_EQ(count_wrong(d, m, n, want), 0);
}

}  // namespace

namespace {

/// FP8 problems of M x N x K each (M from `ms`, each its own A, B, C and D)
/// through tessel::gemm_grouped: exact against the host for small integers,
/// D = 2 A B^T + beta C in f32 with beta -1 on every other problem; sums
/// promoted every `promote` k-tiles (0: the default) or none (`fast`).
template <class T, class TB = T>
void run_group(const std::vector<index_t>& ms, index_t n, index_t k, int promote, bool fast, int tile_m = 0,
               Fp8Scale mode = Fp8Scale::none) {
  SCOPED_TRACE(::testing::Message() << ms.size() << " problems, N " << n << " K " << k << " tile_m " << tile_m
                                    << " promote " << promote << (fast ? " fast" : "") << " " << name(fp8_dtype<T>())
                                    << " x " << name(fp8_dtype<TB>()) << " scales " << name(mode));
  std::mt19937 rng(static_cast<unsigned>(n * 3 + k + ms.size()));
  std::uniform_int_distribution<int> dist(-4, 4);
  using tessel::testing::DeviceArray;
  struct Problem {
    std::unique_ptr<Fp8Ints<T>> a;
    std::unique_ptr<Fp8Ints<TB>> b;
    std::vector<int> c;
    std::vector<float> sa, sb;  // powers of two (mode's layout; none: one 1 each, not passed)
    std::unique_ptr<DeviceArray<float>> dc, dd, dsa, dsb;
  };
  std::uniform_int_distribution<int> pow2(-2, 2);
  const index_t kb = (k + 127) / 128, nb = (n + 127) / 128;
  std::vector<Problem> ps(ms.size());
  std::vector<GemmArgs> group(ms.size());
  for (std::size_t g = 0; g < ms.size(); ++g) {
    Problem& p = ps[g];
    const index_t m = ms[g];
    p.a = std::make_unique<Fp8Ints<T>>(static_cast<std::size_t>(m * k), rng);
    p.b = std::make_unique<Fp8Ints<TB>>(static_cast<std::size_t>(n * k), rng);
    p.c.resize(static_cast<std::size_t>(m * n));
    for (int& x : p.c) x = dist(rng);
    std::vector<float> hc(p.c.begin(), p.c.end());
    p.dc = std::make_unique<DeviceArray<float>>(hc.size()), p.dd = std::make_unique<DeviceArray<float>>(hc.size());
    ASSERT_TRUE(p.a->uploaded && p.b->uploaded && p.dc->ptr && p.dd->ptr);
    CUDA_CHECK(p.dc->upload(hc));
    CUDA_CHECK(p.dd->fill_bytes(0xFF));  // NaN poison
    const bool one = mode == Fp8Scale::none || mode == Fp8Scale::tensor;
    p.sa.resize(one ? 1 : mode == Fp8Scale::channel ? m : m * kb);
    p.sb.resize(one ? 1 : mode == Fp8Scale::channel ? n : nb * kb);
    for (float& v : p.sa) v = mode == Fp8Scale::none ? 1.0f : std::ldexp(1.0f, pow2(rng));
    for (float& v : p.sb) v = mode == Fp8Scale::none ? 1.0f : std::ldexp(1.0f, pow2(rng));
    p.dsa = std::make_unique<DeviceArray<float>>(p.sa.size()),
    p.dsb = std::make_unique<DeviceArray<float>>(p.sb.size());
    ASSERT_TRUE(p.dsa->ptr && p.dsb->ptr);
    CUDA_CHECK(p.dsa->upload(p.sa));
    CUDA_CHECK(p.dsb->upload(p.sb));
    GemmArgs& x = group[g];
    x.ab_type = fp8_dtype<T>();
    if constexpr (!std::is_same_v<T, TB>) x.b_type = fp8_dtype<TB>();
    x.cd_type = DType::f32;
    x.layout = {MajorA::k, MajorB::k};
    x.a = p.a->dev.ptr, x.b = p.b->dev.ptr, x.c = p.dc->ptr, x.d = p.dd->ptr;
    x.m = m, x.n = n, x.k = k;
    x.lda = x.ldb = k, x.ldc = x.ldd = n;
    x.alpha = 2.0f, x.beta = g % 2 ? -1.0f : 0.0f;
    x.fp8_promote_every = promote, x.fp8_fast_accum = fast;
    x.tuning.tile_m = tile_m;
    if (mode != Fp8Scale::none) x.fp8_scale = mode, x.fp8_scale_a = p.dsa->ptr, x.fp8_scale_b = p.dsb->ptr;
  }
  const GemmPlan plan = gemm_plan_grouped(group.data(), static_cast<int>(group.size()));
  const std::string tile = tile_m == 0 ? "" : std::to_string(tile_m) + "x128";
  EXPECT_EQ(plan.why.rfind("k13 grouped FP8 tile " + tile, 0), 0u) << plan.why;
  const Status s = gemm_grouped(group.data(), static_cast<int>(group.size()));
  ASSERT_TRUE(s.is_ok()) << s.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t g = 0; g < ms.size(); ++g) {
    const Problem& p = ps[g];
    const index_t m = ms[g];
    std::vector<float> d;
    CUDA_CHECK(p.dd->download(d));
    // Scale of A's row i and B's column j at k-element l, in the mode's layout (Fp8Scales).
    const auto sa = [&](index_t i, index_t l) {
      return p.sa.size() == 1 ? p.sa[0] : mode == Fp8Scale::channel ? p.sa[i] : p.sa[(l / 128) * m + i];
    };
    const auto sb = [&](index_t l, index_t j) {
      return p.sb.size() == 1 ? p.sb[0] : mode == Fp8Scale::channel ? p.sb[j] : p.sb[(j / 128) * kb + l / 128];
    };
    const auto want = [&](index_t i, index_t j) {
      double sum = 0;
      for (index_t l = 0; l < k; ++l)
        sum += double{sa(i, l)} * p.a->v[static_cast<std::size_t>(i * k + l)] * sb(l, j) *
               p.b->v[static_cast<std::size_t>(j * k + l)];
      return static_cast<float>(2.0 * sum + group[g].beta * p.c[static_cast<std::size_t>(i * n + j)]);
    };
    EXPECT_EQ(count_wrong(d, m, n, want, "problem " + std::to_string(g) + ": "), 0) << "problem " << g;
  }
}

}  // namespace

TEST(GemmFp8Grouped, ExactThroughTheApi) {
  REQUIRE_SM90();
  for (int tile_m : {128, 64}) {
    run_group<__nv_fp8_e4m3>({1, 64, 130, 300}, 136, 400, 0, false, tile_m);  // partial tiles, a K tail
    run_group<__nv_fp8_e5m2>({200, 7, 128}, 264, 1664, 1, false, tile_m);     // promoted every k-tile
    run_group<__nv_fp8_e4m3>({129, 256}, 128, 1664, 3, false, tile_m);        // runs ending inside and at a unit's end
    run_group<__nv_fp8_e4m3>({129, 256}, 128, 1664, 0, true, tile_m);         // fast: one run a unit
  }
  run_group<__nv_fp8_e4m3>({64, 64, 64}, 256, 512, 0, false);  // the plan's rows (64 here: fp8_group_tile_rows)
}

TEST(GemmFp8Grouped, MaskedRowsCountedOnTheDevice) {
  // The masked group: every expert has a capacity of 256 rows and a row count in device memory (0, 1, 70,
  // 200, 256, and 300, taken as 256).  Rows below the count are exact; D's rows past it keep their poison.
  REQUIRE_SM90();
  using T = __nv_fp8_e4m3;
  const index_t cap = 256, n = 264, k = 400;
  const std::vector<int> counts = {0, 1, 70, 200, 256, 300};
  std::mt19937 rng(11);
  using tessel::testing::DeviceArray;
  std::vector<std::unique_ptr<Fp8Ints<T>>> as, bs;
  std::vector<std::unique_ptr<DeviceArray<float>>> ds;
  DeviceArray<int> dcounts(counts.size());
  ASSERT_TRUE(dcounts.ptr);
  CUDA_CHECK(dcounts.upload(counts));
  for (int tile_m : {128, 64}) {
    SCOPED_TRACE(::testing::Message() << "tile_m " << tile_m);
    std::vector<GemmArgs> group(counts.size());
    as.clear(), bs.clear(), ds.clear();
    for (std::size_t g = 0; g < counts.size(); ++g) {
      as.push_back(std::make_unique<Fp8Ints<T>>(static_cast<std::size_t>(cap * k), rng));
      bs.push_back(std::make_unique<Fp8Ints<T>>(static_cast<std::size_t>(n * k), rng));
      ds.push_back(std::make_unique<DeviceArray<float>>(static_cast<std::size_t>(cap * n)));
      ASSERT_TRUE(as[g]->uploaded && bs[g]->uploaded && ds[g]->ptr);
      CUDA_CHECK(ds[g]->fill_bytes(0xFF));  // NaN poison: must stay in the rows past the count
      GemmArgs& x = group[g];
      x.ab_type = DType::e4m3;
      x.cd_type = DType::f32;
      x.layout = {MajorA::k, MajorB::k};
      x.a = as[g]->dev.ptr, x.b = bs[g]->dev.ptr, x.d = ds[g]->ptr;
      x.m = cap, x.n = n, x.k = k;
      x.lda = x.ldb = k, x.ldd = n;
      x.m_device = dcounts.ptr + g;
      x.tuning.tile_m = tile_m;
    }
    const Status s = gemm_grouped(group.data(), static_cast<int>(group.size()));
    ASSERT_TRUE(s.is_ok()) << s.message;
    CUDA_CHECK(cudaDeviceSynchronize());
    for (std::size_t g = 0; g < counts.size(); ++g) {
      std::vector<float> d;
      CUDA_CHECK(ds[g]->download(d));
      const index_t rows = counts[g] < cap ? counts[g] : cap;
      const std::vector<float> computed(d.begin(), d.begin() + rows * n);
      EXPECT_EQ(count_wrong(
                    computed, rows, n,
                    [&](index_t i, index_t j) { return static_cast<float>(dot_ints(as[g]->v, bs[g]->v, i, j, k)); },
                    "problem " + std::to_string(g) + ": "),
                0);
      int written = 0;
      for (std::size_t e = static_cast<std::size_t>(rows * n); e < d.size(); ++e) written += !std::isnan(d[e]);
      EXPECT_EQ(written, 0) << "problem " << g << ": D written past its " << rows << " rows";
    }
  }
}

TEST(GemmFp8Grouped, ScalesOfEachProblem) {
  // Scales in memory per problem, the mode shared: block (1 x 128 of A, 128 x 128 of B: N and K not multiples of
  // 128), per channel and per tensor; both tile heights, a mixed pair of formats.
  REQUIRE_SM90();
  for (int tile_m : {128, 64}) {
    run_group<__nv_fp8_e4m3>({1, 64, 130, 300}, 264, 400, 0, false, tile_m, Fp8Scale::block);
    run_group<__nv_fp8_e4m3>({200, 7}, 136, 1664, 0, false, tile_m, Fp8Scale::channel);
    run_group<__nv_fp8_e5m2, __nv_fp8_e4m3>({129, 256}, 128, 1664, 3, false, tile_m, Fp8Scale::tensor);
  }
}

TEST(GemmFp8Scales, TensorAndChannel) {
  REQUIRE_SM90();
  for (Fp8Scale mode : {Fp8Scale::tensor, Fp8Scale::channel}) {
    run_scaled(mode, 200, 136, 400);                      // the plan's tile
    run_scaled(mode, 300, 400, 1664, 128, 192);           // promoted 128 x 192
    run_scaled(mode, 256, 520, 1024, 128, 256, 0, true);  // 128 x 256, fast accumulation
    run_scaled(mode, 64, 200, 1664, 64, 128, 3);          // 64 x 128, split K
    run_scaled(mode, 24, 300, 1024, 64, 16);              // swapped: A's scales index the kernel's columns
    run_scaled(mode, 40, 264, 512, 64, 32, 2);
  }
}
TEST(GemmFp8Mixed, EveryTileThroughTheApi) {
  // A and B in different formats (b_type): every FP8 instance, where the swapped tiles read B's format as wgmma's A.
  REQUIRE_SM90();
  using E4 = __nv_fp8_e4m3;
  using E5 = __nv_fp8_e5m2;
  run_scaled<E4, E5>(Fp8Scale::none, 200, 136, 400);                               // the plan's tile
  run_scaled<E5, E4>(Fp8Scale::none, 256, 384, 1664, 128, 128, 4);                 // split K
  run_scaled<E4, E5>(Fp8Scale::none, 300, 400, 1664, 128, 192);                    // promoted 128 x 192
  run_scaled<E5, E4>(Fp8Scale::none, 256, 520, 1024, 128, 256, 0, true);           // 128 x 256, fast accumulation
  run_scaled<E4, E5>(Fp8Scale::none, 64, 200, 1664, 64, 128, 3);                   // 64 x 128
  run_scaled<E5, E4>(Fp8Scale::none, 24, 300, 1024, 64, 16);                       // swapped 64 x 16
  run_scaled<E4, E5>(Fp8Scale::none, 40, 264, 512, 64, 32, 2);                     // swapped 64 x 32, split K
  run_scaled<E5, E4>(Fp8Scale::none, 56, 200, 512, 64, 64, 0, false, SwapAB::on);  // swapped 64 x 64
  run_scaled<E4, E5>(Fp8Scale::channel, 40, 264, 512, 64, 32);
  run_scaled<E5, E4>(Fp8Scale::tensor, 300, 400, 1664);
  run_scaled<E4, E5>(Fp8Scale::block, 200, 392, 400, 128, 128);
  for (int tile_m : {128, 64}) {
    run_group<E4, E5>({1, 64, 130, 300}, 136, 400, 0, false, tile_m);
    run_group<E5, E4>({129, 256}, 128, 1664, 3, false, tile_m);
  }
}

TEST(GemmFp8Batched, ExactThroughTheApi) {
  // A strided batch of FP8 problems (B shared by a stride of 0 in one case): the grouped FP8 kernel over the batches
  // where it serves (128 or 64 x 128 tiles), else a launch per batch (a forced 128 x 192); D f32, beta -1 with C.
  REQUIRE_SM90();
  using T = __nv_fp8_e4m3;
  struct Case {
    index_t m, n, k, batch;
    bool shared_b;
    int tile_m, tile_n;
  };
  for (const Case& c : {Case{200, 136, 400, 3, false, 0, 0}, Case{64, 264, 1664, 4, true, 64, 0},
                        Case{130, 128, 512, 2, false, 128, 128}, Case{100, 200, 256, 3, false, 0, 192}}) {
    SCOPED_TRACE(::testing::Message() << c.batch << " x " << c.m << " x " << c.n << " x " << c.k << " tile " << c.tile_m
                                      << " x " << c.tile_n << (c.shared_b ? " shared B" : ""));
    std::mt19937 rng(static_cast<unsigned>(c.m + c.n + c.k + c.batch));
    const std::size_t per_a = static_cast<std::size_t>(c.m * c.k), per_b = static_cast<std::size_t>(c.n * c.k),
                      per_d = static_cast<std::size_t>(c.m * c.n);
    const Fp8Ints<T> a(per_a * c.batch, rng), b(per_b * (c.shared_b ? 1 : c.batch), rng);
    std::uniform_int_distribution<int> dist(-4, 4);
    std::vector<float> hc(per_d * c.batch);  // C: small integers
    for (float& x : hc) x = static_cast<float>(dist(rng));
    tessel::testing::DeviceArray<float> dc(hc.size()), dd(hc.size());
    ASSERT_TRUE(a.uploaded && b.uploaded && dc.ptr && dd.ptr);
    CUDA_CHECK(dc.upload(hc));
    CUDA_CHECK(dd.fill_bytes(0xFF));  // NaN poison
    GemmArgs g;
    g.ab_type = DType::e4m3;
    g.cd_type = DType::f32;
    g.layout = {MajorA::k, MajorB::k};
    g.a = a.dev.ptr, g.b = b.dev.ptr, g.c = dc.ptr, g.d = dd.ptr;
    g.m = c.m, g.n = c.n, g.k = c.k;
    g.lda = g.ldb = c.k, g.ldc = g.ldd = c.n;
    g.alpha = 2.0f, g.beta = -1.0f;
    g.batch = c.batch;
    g.stride_a = static_cast<index_t>(per_a), g.stride_b = c.shared_b ? 0 : static_cast<index_t>(per_b);
    g.stride_c = g.stride_d = static_cast<index_t>(per_d);
    g.tuning.tile_m = c.tile_m, g.tuning.tile_n = c.tile_n;
    const GemmPlan plan = gemm_plan(g);
    EXPECT_EQ(plan.why.rfind(c.tile_n == 192 ? "k13 FP8 tile" : "k13 batched FP8 tile", 0), 0u) << plan.why;
    const Status s = gemm(GemmImpl::automatic, g);
    ASSERT_TRUE(s.is_ok()) << s.message;
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> d;
    CUDA_CHECK(dd.download(d));
    for (index_t q = 0; q < c.batch; ++q) {
      const std::vector<int> aq(a.v.begin() + q * per_a, a.v.begin() + (q + 1) * per_a);
      const std::size_t b0 = c.shared_b ? 0 : q * per_b;
      const std::vector<int> bq(b.v.begin() + b0, b.v.begin() + b0 + per_b);
      const std::vector<float> dq(d.begin() + q * per_d, d.begin() + (q + 1) * per_d);
      const auto want = [&](index_t i, index_t j) {
        return 2.0f * static_cast<float>(dot_ints(aq, bq, i, j, c.k)) - hc[q * per_d + i * c.n + j];
      };
      EXPECT_EQ(count_wrong(dq, c.m, c.n, want, "batch " + std::to_string(q) + ": "), 0);
    }
  }
}

TEST(GemmFp8Epilogue, BiasActivationAndAuxAfterThePlainGemm) {
  // An epilogue on FP8 inputs: the plain FP8 GEMM, then the elementwise pass over D (bias per column, ReLU, the
  // value before it in aux); exact for small integers, D and aux f32.
  REQUIRE_SM90();
  using T = __nv_fp8_e4m3;
  const index_t m = 200, n = 136, k = 400;
  std::mt19937 rng(7);
  const Fp8Ints<T> a(static_cast<std::size_t>(m * k), rng), b(static_cast<std::size_t>(n * k), rng);
  std::vector<float> bias(static_cast<std::size_t>(n));
  for (index_t j = 0; j < n; ++j) bias[static_cast<std::size_t>(j)] = static_cast<float>(j % 7) - 3.0f;
  tessel::testing::DeviceArray<float> dbias(bias.size()), dd(static_cast<std::size_t>(m * n)),
      daux(static_cast<std::size_t>(m * n));
  ASSERT_TRUE(a.uploaded && b.uploaded && dbias.ptr && dd.ptr && daux.ptr);
  CUDA_CHECK(dbias.upload(bias));
  CUDA_CHECK(dd.fill_bytes(0xFF));
  CUDA_CHECK(daux.fill_bytes(0xFF));
  GemmArgs g;
  g.ab_type = DType::e4m3;
  g.cd_type = DType::f32;
  g.layout = {MajorA::k, MajorB::k};
  g.a = a.dev.ptr, g.b = b.dev.ptr, g.d = dd.ptr;
  g.m = m, g.n = n, g.k = k;
  g.lda = g.ldb = k, g.ldd = n;
  g.epilogue.act = Activation::relu;
  g.epilogue.bias_kind = BiasKind::col;
  g.epilogue.bias = dbias.ptr;
  g.epilogue.aux = daux.ptr;
  g.epilogue.ldaux = n;
  EXPECT_NE(gemm_plan(g).why.find("unfused epilogue"), std::string::npos) << gemm_plan(g).why;
  const Status s = gemm(GemmImpl::automatic, g);
  ASSERT_TRUE(s.is_ok()) << s.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> d, aux;
  CUDA_CHECK(dd.download(d));
  CUDA_CHECK(daux.download(aux));
  const auto pre = [&](index_t i, index_t j) {
    return static_cast<float>(dot_ints(a.v, b.v, i, j, k)) + bias[static_cast<std::size_t>(j)];
  };
  EXPECT_EQ(count_wrong(aux, m, n, pre, "aux: "), 0);
  EXPECT_EQ(count_wrong(
                d, m, n, [&](index_t i, index_t j) { return std::max(pre(i, j), 0.0f); }, "D: "),
            0);
}

TEST(GemmFp8Scales, Block) {
  REQUIRE_SM90();
  run_scaled(Fp8Scale::block, 256, 256, 1664);             // 13 k-tiles: 13 blocks of K
  run_scaled(Fp8Scale::block, 200, 392, 400, 128, 128);    // N and K not multiples of 128: partial blocks
  run_scaled(Fp8Scale::block, 72, 136, 1040, 64, 128, 3);  // the 64-row tile, split K
  run_scaled(Fp8Scale::block, 8, 520, 2048);               // small M: the plan's unswapped tile
}

// The FP8 plan on 132 SMs (no GPU needed): the choices the H200 runs measured (docs/fp8.md), each
// following from the bf16 plan of (M, N, K/2) and, promoted, the waves-times-width model.
TEST(GemmFp8Plan, ChoicesOfTheMeasuredSuite) {
  struct Case {
    index_t m, n, k;
    bool fast;
    int tile_m, tile_n;
    bool swapped;
  };
  const Case cases[] = {
      {1024, 1024, 1024, false, 64, 128, false},   // small: the one-warpgroup tile
      {4096, 4096, 4096, false, 128, 128, false},  // 8 waves of 128 x 128 beat 6 of 192 (1024 < 1152 / 1.075)
      {8192, 8192, 8192, false, 128, 192, false},  // 21 waves of 192 beat 32 of 128
      {4096, 4096, 4096, true, 128, 256, false},   // fast accumulation: the 16-bit plan's 256
      {16, 8192, 8192, false, 64, 16, true},       // small M swapped
      {64, 8192, 8192, false, 64, 64, true},      {128, 8192, 8192, false, 64, 128, false},
  };
  for (const Case& c : cases) {
    GemmArgs g;
    g.ab_type = DType::e4m3;
    g.layout = {MajorA::k, MajorB::k};
    g.m = c.m, g.n = c.n, g.k = c.k;
    g.lda = g.ldb = c.k;
    g.fp8_fast_accum = c.fast;
    const GemmTuning t = gemm_launch::plan_k13_fp8(g, 132);
    EXPECT_EQ(t.tile_m == 64 ? 64 : 128, c.tile_m) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(t.tile_n, c.tile_n) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(t.swap_ab == SwapAB::on, c.swapped) << c.m << "x" << c.n << "x" << c.k;
    EXPECT_EQ(t.splits, 1) << c.m << "x" << c.n << "x" << c.k;
  }
}

// With channel scales the plan keeps to 128-wide tiles (the scaled 192 and 256 instances spill,
// docs/fp8.md); without scales, or per tensor (alpha carries them on the unscaled instances),
// 8192^3 takes 192 promoted and 256 fast.
TEST(GemmFp8Plan, ChannelScaledCallsTakeTheNarrowerTiles) {
  for (bool fast : {false, true})
    for (Fp8Scale mode : {Fp8Scale::none, Fp8Scale::tensor, Fp8Scale::channel}) {
      GemmArgs g;
      g.ab_type = DType::e4m3;
      g.layout = {MajorA::k, MajorB::k};
      g.m = g.n = g.k = 8192;
      g.lda = g.ldb = g.k;
      g.fp8_fast_accum = fast;
      g.fp8_scale = mode;
      const GemmTuning t = gemm_launch::plan_k13_fp8(g, 132);
      EXPECT_EQ(t.tile_n, mode == Fp8Scale::channel ? 128 : fast ? 256 : 192) << name(mode) << (fast ? " fast" : "");
      EXPECT_EQ(t.swap_ab, SwapAB::off);
    }
}
