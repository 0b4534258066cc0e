// The host API of the GEMM ladder without a GPU: gemm_check on each rule
// (it never touches the device) and gemm() refusing malformed calls before
// any CUDA call.  Runs in CI on machines without a GPU.  The names of
// implementations, types and layouts need no CUDA at all: tests/gemm_types_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "bench_gemm_args.hpp"
#include "tessel/gemm_tune.hpp"
#include "tessel/host/gemm.hpp"
#include "tessel/host/jit.hpp"

using namespace tessel;

namespace {

/// A fake device address, 2^40 bytes apart per `slot`: never dereferenced,
/// and far enough apart that no operand of these tests overlaps another.
void* fake(int slot) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(slot) << 40); }

/// A well-formed problem with pointers that are never dereferenced.
GemmArgs valid_args() {
  GemmArgs g;
  g.m = 100, g.n = 60, g.k = 40;
  g.lda = 40, g.ldb = 60, g.ldc = 60, g.ldd = 60;  // A:k, B:n
  g.a = fake(1), g.b = fake(2), g.c = fake(3);
  g.d = fake(4);
  g.alpha = 1.0f, g.beta = 1.0f;
  return g;
}

/// Is `g` a call that this build's instance set leaves out?  Only in a
/// TESSEL_LADDER_INSTANCES=one build (scripts/test.sh without a GPU), for the
/// teaching steps outside their one instance: their status is
/// TeachingStepsOfAOneInstanceBuild's subject, and tests of other rules skip
/// those calls.
bool outside_built_instance(GemmImpl impl, const GemmArgs& g) {
#if defined(TESSEL_GEMM_BUILT_ONE)
  // TESSEL_GEMM_INSTANCES=one: every step holds one input type and layout.
#if defined(TESSEL_LADDER_OFF)
  if (is_teaching_step(impl)) return true;
#else
  (void)impl;
#endif
  return !is_one_instance_call(g.ab_type == DType::f32, g.ab_type, g.layout);
#elif defined(TESSEL_LADDER_OFF)
  // TESSEL_BUILD_LADDER=OFF: no teaching step is built, in any instance.
  (void)g;
  return is_teaching_step(impl);
#elif defined(TESSEL_LADDER_BUILT_ONE)
  if (!is_teaching_step(impl)) return false;
  if (is_fp32_step(impl)) return g.layout.a != MajorA::m || g.layout.b != MajorB::n;
  return g.ab_type != DType::bf16 || g.layout.a != MajorA::k || g.layout.b != MajorB::n;
#else
  (void)impl;
  (void)g;
  return false;
#endif
}

bool is_placeholder(const Status& s) {
  return s.code == Status::unsupported && (s.message.find("not built yet") != std::string::npos ||
                                           s.message.find("-DTESSEL_BUILD_LADDER=ON") != std::string::npos);
}

void expect_invalid(const GemmArgs& g, const char* what, const char* keyword) {
  for (GemmImpl impl : kAllGemmImpls) {
    const Status s = gemm_check(impl, g);
    EXPECT_EQ(s.code, Status::invalid_argument)
        << name(impl) << ", " << what << ": got " << to_string(s.code) << ": " << s.message;
    EXPECT_NE(s.message.find(keyword), std::string::npos) << name(impl) << ", " << what << ": " << s.message;
    // gemm() checks first and returns before any CUDA call: safe without a GPU.
    EXPECT_EQ(gemm(impl, g).code, Status::invalid_argument) << name(impl) << ", " << what;
  }
}

}  // namespace

TEST(GemmApi, ValidArgumentsPassTheCommonChecks) {
  for (GemmLayout l : kAllGemmLayouts)
    for (DType ab : {DType::bf16, DType::f16})
      for (DType cd : {DType::bf16, DType::f16, DType::f32})
        for (GemmImpl impl : kAllGemmImpls) {
          GemmArgs g = valid_args();
          g.layout = l;
          g.ab_type = ab, g.cd_type = cd;
          g.lda = l.a == MajorA::k ? g.k : g.m;
          g.ldb = l.b == MajorB::n ? g.n : g.k;
          const Status s = gemm_check(impl, g);
          // A built step serves it or names its own rule; a placeholder says so.
          EXPECT_NE(s.code, Status::invalid_argument) << name(impl) << " " << name(l) << ": " << s.message;
          if (!s.is_ok()) {
            EXPECT_FALSE(s.message.empty());
          }
        }
}

// TESSEL_LADDER_INSTANCES=one (scripts/test.sh where no GPU is present)
// builds each teaching step for one input type and layout: every other call
// to those steps is `unsupported`, naming the option, from gemm_check and from
// gemm() before any CUDA call.  Every other step, and every call in an `all`
// build, is untouched by the rule.
TEST(GemmApi, TeachingStepsOfAOneInstanceBuild) {
#if defined(TESSEL_GEMM_BUILT_ONE) && defined(TESSEL_LADDER_OFF)
  GTEST_SKIP() << "TESSEL_GEMM_INSTANCES=one without the ladder: not a configuration the project tests";
#endif
  int refused = 0, steps16 = 0, steps32 = 0;
  std::vector<GemmImpl> impls(std::begin(kAllGemmImpls), std::end(kAllGemmImpls));
  impls.insert(impls.end(), std::begin(kFp32GemmImpls), std::end(kFp32GemmImpls));
  for (GemmImpl impl : impls) {
    if (impl == GemmImpl::automatic) continue;
    const bool fp32 = is_fp32_step(impl);
    ++(fp32 ? steps32 : steps16);
    for (GemmLayout l : kAllGemmLayouts)
      for (DType ab : {DType::bf16, DType::f16, DType::f32}) {
        if (fp32 != (ab == DType::f32)) continue;
        GemmArgs g = valid_args();
        g.layout = l;
        g.ab_type = ab, g.cd_type = fp32 ? DType::f32 : DType::bf16;
        g.lda = l.a == MajorA::k ? g.k : g.m;
        g.ldb = l.b == MajorB::n ? g.n : g.k;
        const Status s = gemm_check(impl, g);
#if defined(TESSEL_LADDER_OFF)
        const bool names_option = s.message.find("-DTESSEL_BUILD_LADDER=ON") != std::string::npos;
#else
        const bool names_option = s.message.find("TESSEL_LADDER_INSTANCES") != std::string::npos;
#endif
        if (outside_built_instance(impl, g)) {
          ++refused;
          EXPECT_EQ(s.code, Status::unsupported) << name(impl) << " " << name(l) << ": " << s.message;
          EXPECT_TRUE(names_option) << s.message;
          EXPECT_NE(s.message.find(short_name(impl)), std::string::npos) << s.message;
          EXPECT_EQ(gemm(impl, g).code, Status::unsupported) << name(impl) << " " << name(l);
        } else {
          EXPECT_FALSE(names_option) << name(impl) << " " << name(l) << ": " << s.message;
        }
      }
  }
  (void)steps16, (void)steps32;  // counted for the one-instance build's total
#if defined(TESSEL_GEMM_BUILT_ONE)
  // Every step x 7 of its 8 (type, layout), every fp32 step x 3 of its 4.
  EXPECT_EQ(refused, steps16 * 7 + steps32 * 3);
#elif defined(TESSEL_LADDER_OFF)
  // 11 16-bit teaching steps x their 8 (type, layout) + 7 fp32 steps x 4.
  EXPECT_EQ(refused, 11 * 8 + 7 * 4);
#elif defined(TESSEL_LADDER_BUILT_ONE)
  // 11 16-bit teaching steps x 7 of their 8 (type, layout) + 7 fp32 steps x 3 of 4.
  EXPECT_EQ(refused, 11 * 7 + 7 * 3);
#else
  EXPECT_EQ(refused, 0);
#endif
}

TEST(GemmApi, TheCudaCoreStepsServeEveryWellFormedProblem) {
  // k01..k03 have no rule of their own below the grid limit.
  for (GemmImpl impl : {GemmImpl::k01_naive, GemmImpl::k02_smem_fma, GemmImpl::k03_smem_padded}) {
    GemmArgs g = valid_args();
    for (index_t m : {1, 7, 129, 1000})
      for (index_t k : {1, 3, 1000}) {
        g.m = m, g.n = m + 2, g.k = k;
        g.lda = k + 3, g.ldb = g.n + 1, g.ldc = g.n, g.ldd = g.n + 5;
        const Status s = gemm_check(impl, g);
        if (is_placeholder(s)) GTEST_SKIP() << name(impl) << " not built yet";
        EXPECT_TRUE(s.is_ok()) << name(impl) << " " << m << "x" << g.n << "x" << k << ": " << s.message;
      }
  }
}

TEST(GemmApi, GridLimitsAreUnsupportedAndNamed) {
  // M = 2*10^7 needs more than 65535 CTA rows for 16- and 128-row tiles.
  GemmArgs g = valid_args();
  g.m = 20'000'000;  // A:k (lda = K), the layout every build holds of these steps
  for (GemmImpl impl : {GemmImpl::k01_naive, GemmImpl::k02_smem_fma, GemmImpl::k03_smem_padded}) {
    const Status s = gemm_check(impl, g);
    if (is_placeholder(s)) continue;
    EXPECT_EQ(s.code, Status::unsupported) << name(impl) << ": " << s.message;
    EXPECT_NE(s.message.find("gridDim.y"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find(short_name(impl)), std::string::npos) << s.message;
  }
}

// k13's work units and k14's tile pairs are counted in 32 bits in the
// kernels (SplitKScheduler; PersistentScheduler<..., unsigned>): a grid past
// 2^31 - 2^20 of them is refused by name, before any CUDA call.
TEST(GemmApi, ThirtyTwoBitSchedulersRefuseHugeGrids) {
  GemmArgs g = valid_args();
  g.m = index_t{1} << 26, g.n = index_t{1} << 26;  // 2^20 x 2^20 tiles of 64 x 64
  g.ldb = g.n, g.ldd = g.n;
  g.c = nullptr, g.beta = 0.0f;
  for (GemmImpl impl : {GemmImpl::k13_wgmma_in_flight, GemmImpl::k14_cluster_multicast}) {
    const Status s = gemm_check(impl, g);
    if (is_placeholder(s)) continue;
    EXPECT_EQ(s.code, Status::unsupported) << name(impl) << ": " << s.message;
    EXPECT_NE(s.message.find("2^31 - 2^20"), std::string::npos) << name(impl) << ": " << s.message;
  }
  g.m = 4096, g.n = 4096, g.ldb = g.n, g.ldd = g.n;  // the same call at an ordinary size passes
  EXPECT_TRUE(gemm_check(GemmImpl::k14_cluster_multicast, g).is_ok())
      << gemm_check(GemmImpl::k14_cluster_multicast, g).message;
}

// tuning.cluster: k14 takes its pairs (2) and 2 x 2 clusters (4), k13 refuses them by name, a value no step takes
// (3) is malformed for both.
TEST(GemmApi, ClusterValuesGoToTheirSteps) {
  GemmArgs g = valid_args();
  for (int c : {2, 4}) {
    g.tuning.cluster = c;
    g.tuning.tile_n = 128;
    const Status k14 = gemm_check(GemmImpl::k14_cluster_multicast, g);
    if (is_placeholder(k14)) GTEST_SKIP() << "k14 not built";
    EXPECT_TRUE(k14.is_ok()) << "cluster " << c << ": " << k14.message;
    const Status k13 = gemm_check(GemmImpl::k13_wgmma_in_flight, g);
    EXPECT_EQ(k13.code, Status::unsupported) << "cluster " << c << ": " << k13.message;
    EXPECT_NE(k13.message.find("k14's"), std::string::npos) << k13.message;
  }
  g.tuning.cluster = 3;
  for (GemmImpl impl : {GemmImpl::k13_wgmma_in_flight, GemmImpl::k14_cluster_multicast}) {
    const Status s = gemm_check(impl, g);
    EXPECT_EQ(s.code, Status::invalid_argument) << name(impl) << ": " << s.message;
    EXPECT_NE(s.message.find("tuning.cluster"), std::string::npos) << name(impl) << ": " << s.message;
  }
}

// Under `auto`, tuning.cluster 1 (k13's split K through global memory) keeps the plan on k13 wherever it would take
// k14's pairs (rules 5, 17; the model), k15 (rule 10) or the small-M kernel (rule 15); and the caller's cluster,
// cluster_share and stages reach the planned step (its own check refuses what it cannot take), not dropped.
TEST(GemmApi, AutoKeepsTheCallersClusterKnobs) {
  struct Case {
    index_t m, n, k;
    float beta;
    GemmImpl untuned;
  };
  for (const Case c :
       {Case{16384, 8192, 256, 1.0f, GemmImpl::k14_cluster_multicast},
        Case{2049, 4040, 1208, 0.0f, GemmImpl::k14_cluster_multicast},
        Case{192, 4544, 384, 0.0f, GemmImpl::k14_cluster_multicast},
        Case{2048, 2048, 2048, 0.0f, GemmImpl::k15_pingpong}, Case{4, 7762, 6848, 0.0f, GemmImpl::small_m_stream}}) {
    GemmArgs g = valid_args();
    g.m = c.m, g.n = c.n, g.k = c.k, g.lda = c.k, g.ldb = c.n, g.ldc = c.n, g.ldd = c.n, g.beta = c.beta;
    const std::string shape = std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k);
    EXPECT_EQ(gemm_plan(g, GemmDevice{}).impl, c.untuned) << shape << ": " << gemm_plan(g, GemmDevice{}).why;
    g.tuning.cluster = 1;
    const GemmPlan p = gemm_plan(g, GemmDevice{});
    EXPECT_EQ(p.impl, GemmImpl::k13_wgmma_in_flight) << shape << ": " << p.why;
    EXPECT_EQ(p.tuning.cluster, 1) << shape;
  }
  GemmArgs g = valid_args();
  g.tuning.cluster_share = ClusterShare::a;
  g.tuning.stages = 6;
  const GemmPlan p = gemm_plan(g, GemmDevice{});
  EXPECT_EQ(p.tuning.cluster_share, ClusterShare::a) << p.why;
  EXPECT_EQ(p.tuning.stages, 6) << p.why;
  g.m = 2049, g.n = 4040, g.k = 1208, g.lda = 1208, g.ldb = g.ldc = g.ldd = 4040;  // rule 17's k14, sharing A as asked
  const GemmPlan shared = gemm_plan(g, GemmDevice{});
  EXPECT_EQ(shared.impl, GemmImpl::k14_cluster_multicast) << shared.why;
  EXPECT_NE(shared.why.find("cluster_share a"), std::string::npos) << shared.why;
}

// tuning.cluster_share (k14's pairs sharing A or B): a value outside the enum is malformed on every step; a valid
// one that k14 cannot run (split, 64-row, 128 x 64 sharing B) or that another step takes is refused by name.
TEST(GemmApi, ClusterShareIsK14sOnly) {
  GemmArgs g = valid_args();
  g.tuning.cluster_share = static_cast<ClusterShare>(7);
  expect_invalid(g, "cluster_share 7", "cluster_share");
  g = valid_args();
  g.tuning.cluster_share = ClusterShare::a;
  g.tuning.tile_n = 192;
  const Status ok = gemm_check(GemmImpl::k14_cluster_multicast, g);
  if (is_placeholder(ok)) GTEST_SKIP() << "k14 not built";
  EXPECT_TRUE(ok.is_ok()) << ok.message;
  for (GemmImpl impl : {GemmImpl::k13_wgmma_in_flight, GemmImpl::k15_pingpong}) {
    GemmArgs other = g;
    other.tuning.tile_n = 128, other.beta = 0.0f;  // k15's tile, beta
    const Status s = gemm_check(impl, other);
    if (is_placeholder(s)) continue;
    EXPECT_EQ(s.code, Status::unsupported) << name(impl) << ": " << s.message;
    EXPECT_NE(s.message.find("cluster_share"), std::string::npos) << name(impl) << ": " << s.message;
  }
  const auto refused = [&](GemmArgs a, const char* what) {
    const Status s = gemm_check(GemmImpl::k14_cluster_multicast, a);
    EXPECT_EQ(s.code, Status::unsupported) << what << ": " << s.message;
    EXPECT_NE(s.message.find("cluster_share"), std::string::npos) << what << ": " << s.message;
  };
  GemmArgs split = g;
  split.k = split.lda = 4096;  // two k-ranges to split into
  split.tuning.tile_n = 128, split.tuning.splits = 2;
  refused(split, "split");
  GemmArgs rows64 = g;
  rows64.tuning.tile_n = 128, rows64.tuning.tile_m = 64;
  refused(rows64, "tile_m 64");
  GemmArgs narrow_b = g;
  narrow_b.tuning.tile_n = 64, narrow_b.tuning.cluster_share = ClusterShare::b;
  refused(narrow_b, "128 x 64 sharing B");
}

TEST(GemmApi, EachInvalidRuleIsInvalidArgument) {
  GemmArgs g = valid_args();
  g.a = nullptr;
  expect_invalid(g, "null A", "null");
  g = valid_args(), g.b = nullptr;
  expect_invalid(g, "null B", "null");
  g = valid_args(), g.d = nullptr;
  expect_invalid(g, "null D", "null");
  g = valid_args(), g.m = 0;
  expect_invalid(g, "M = 0", "positive");
  g = valid_args(), g.n = 0;
  expect_invalid(g, "N = 0", "positive");
  g = valid_args(), g.k = 0;
  expect_invalid(g, "K = 0", "positive");
  g = valid_args(), g.k = -1;
  expect_invalid(g, "K < 0", "positive");
  g = valid_args(), g.lda = g.k - 1;
  expect_invalid(g, "lda < K for A:k", "lda");
  g = valid_args(), g.layout.a = MajorA::m, g.lda = g.m - 1;
  expect_invalid(g, "lda < M for A:m", "lda");
  g = valid_args(), g.ldb = g.n - 1;
  expect_invalid(g, "ldb < N for B:n", "ldb");
  g = valid_args(), g.layout.b = MajorB::k, g.ldb = g.k - 1;
  expect_invalid(g, "ldb < K for B:k", "ldb");
  g = valid_args(), g.ldd = g.n - 1;
  expect_invalid(g, "ldd < N", "ldd");
  g = valid_args(), g.ldc = g.n - 1;
  expect_invalid(g, "ldc < N with beta != 0", "ldc");
  g = valid_args(), g.c = nullptr;
  expect_invalid(g, "beta != 0 with null C", "C is null");
  g = valid_args(), g.ab_type = DType::f32;
  expect_invalid(g, "fp32 inputs", "bf16 or fp16");
  // The caller's workspace and the scalars in device memory.
  g = valid_args(), g.workspace_bytes = 4096;
  expect_invalid(g, "workspace_bytes without a workspace", "workspace is null");
  g = valid_args(), g.workspace = static_cast<char*>(fake(5)) + 16, g.workspace_bytes = 4096;
  expect_invalid(g, "a misaligned workspace", "256-byte aligned");
  g = valid_args(), g.c = nullptr, g.beta = 0.0f, g.beta_device = static_cast<const float*>(fake(6));
  expect_invalid(g, "beta_device with null C", "beta_device");
  g = valid_args(), g.alpha_device = reinterpret_cast<const float*>(static_cast<char*>(fake(6)) + 2);
  expect_invalid(g, "a misaligned alpha_device", "4-byte aligned");
  // beta_device counts as a nonzero beta: C's rules apply whatever the host beta says.
  g = valid_args(), g.beta = 0.0f, g.beta_device = static_cast<const float*>(fake(6)), g.ldc = g.n - 1;
  expect_invalid(g, "ldc < N with beta_device", "ldc");
}

// The two ladders' type rules, each invalid_argument naming the rule: the
// 16-bit steps refuse fp32 A and B, the fp32 steps refuse 16-bit A and B and
// 16-bit C and D; the fp32 steps serve every well-formed fp32 problem.
TEST(GemmApi, TypeRulesOfTheTwoLadders) {
  GemmArgs g = valid_args();
  g.ab_type = DType::f32, g.cd_type = DType::f32;
  for (GemmImpl impl : kAllGemmImpls) {
    const Status s = gemm_check(impl, g);
    EXPECT_EQ(s.code, Status::invalid_argument) << name(impl) << ": " << s.message;
    EXPECT_NE(s.message.find("A and B must be bf16 or fp16"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("f01..f12"), std::string::npos) << s.message;  // says where fp32 goes
    EXPECT_EQ(gemm(impl, g).code, Status::invalid_argument);
  }
  for (GemmImpl impl : kFp32GemmImpls) {
    if (!outside_built_instance(impl, g)) {
      EXPECT_TRUE(gemm_check(impl, g).is_ok()) << name(impl) << ": " << gemm_check(impl, g).message;
    }
    for (DType ab : {DType::bf16, DType::f16}) {
      GemmArgs h = g;
      h.ab_type = ab;
      const Status s = gemm_check(impl, h);
      EXPECT_EQ(s.code, Status::invalid_argument) << name(impl) << ": " << s.message;
      EXPECT_NE(s.message.find("A and B must be fp32"), std::string::npos) << s.message;
      EXPECT_NE(s.message.find(short_name(impl)), std::string::npos) << s.message;
      EXPECT_EQ(gemm(impl, h).code, Status::invalid_argument);  // before any CUDA call
    }
    for (DType cd : {DType::bf16, DType::f16}) {
      GemmArgs h = g;
      h.cd_type = cd;
      const Status s = gemm_check(impl, h);
      EXPECT_EQ(s.code, Status::invalid_argument) << name(impl) << ": " << s.message;
      EXPECT_NE(s.message.find("C and D must be fp32"), std::string::npos) << s.message;
    }
    // Every shape and leading dimension below the grid limit.
    for (index_t m : {1, 7, 129, 1000})
      for (index_t k : {1, 3, 1000}) {
        GemmArgs h = g;
        h.m = m, h.n = m + 2, h.k = k;
        h.lda = k + 3, h.ldb = h.n + 1, h.ldc = h.n, h.ldd = h.n + 5;
        if (!outside_built_instance(impl, h)) {
          EXPECT_TRUE(gemm_check(impl, h).is_ok()) << name(impl) << " " << m << "x" << h.n << "x" << k;
        }
      }
  }
  // `auto` with fp32 inputs plans an fp32 step (rule 9: f12, f11, f10 or
  // f07 by the layouts and the grid's size against the SM count), on any device.
  const GemmPlan p = gemm_plan(g);
  EXPECT_TRUE(p.impl == GemmImpl::f10_tma_loads || p.impl == GemmImpl::f11_stream_k ||
              p.impl == GemmImpl::f12_operand_copies || p.impl == GemmImpl::f07_two_ctas_per_sm)
      << p.why;
  EXPECT_EQ(p.why.rfind("fp32 inputs: f", 0), 0u) << p.why;
  if (!outside_built_instance(GemmImpl::automatic, g)) {
    EXPECT_TRUE(gemm_check(GemmImpl::automatic, g).is_ok());
  }
  g.cd_type = DType::bf16;
  EXPECT_EQ(gemm_check(GemmImpl::automatic, g).code, Status::invalid_argument);
}

/// A well-formed FP8 problem (A:k, B:k, rows of 16-byte multiples), D bf16.
GemmArgs fp8_args() {
  GemmArgs g = valid_args();
  g.ab_type = DType::e4m3;
  g.layout = {MajorA::k, MajorB::k};
  g.m = 200, g.n = 136, g.k = 256;
  g.lda = g.ldb = 256, g.ldc = g.ldd = 136;
  g.beta = 0.0f;
  return g;
}

TEST(GemmApi, Fp8RulesAreNamed) {
  // What FP8 A and B need (k13's FP8 tiles): each rule broken alone gets a status naming it.
  for (DType ab : {DType::e4m3, DType::e5m2}) {
    GemmArgs g = fp8_args();
    g.ab_type = ab;
    EXPECT_TRUE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).is_ok())
        << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
    EXPECT_TRUE(gemm_check(GemmImpl::automatic, g).is_ok()) << gemm_check(GemmImpl::automatic, g).message;
    g.beta = 1.0f;  // C in D's type, read in the epilogue
    EXPECT_TRUE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).is_ok());
  }
  const auto refused = [](const GemmArgs& g, GemmImpl impl, Status::Code code, const char* words) {
    const Status s = gemm_check(impl, g);
    EXPECT_EQ(s.code, code) << s.message;
    EXPECT_NE(s.message.find(words), std::string::npos) << s.message;
  };
  constexpr GemmImpl k13 = GemmImpl::k13_wgmma_in_flight;
  for (GemmLayout l : kAllGemmLayouts) {
    if (l == GemmLayout{MajorA::k, MajorB::k}) continue;
    GemmArgs g = fp8_args();
    g.layout = l;
    g.lda = l.a == MajorA::k ? g.k : g.m + 8;
    g.ldb = l.b == MajorB::k ? g.k : g.n;
    refused(g, k13, Status::unsupported, "K-major");
    refused(g, GemmImpl::automatic, Status::unsupported, "K-major");
  }
  GemmArgs g = fp8_args();
  g.lda = 264;
  refused(g, k13, Status::unsupported, "multiples of 16");
  g = fp8_args();
  g.b = static_cast<const char*>(g.b) + 8;
  refused(g, k13, Status::unsupported, "16-byte aligned");
  g = fp8_args();  // a strided batch: the grouped FP8 kernel over the batches, or a launch per batch
  g.batch = 2, g.stride_a = g.m * g.lda, g.stride_b = g.n * g.ldb, g.stride_d = g.m * g.ldd;
  EXPECT_TRUE(gemm_check(GemmImpl::automatic, g).is_ok()) << gemm_check(GemmImpl::automatic, g).message;
  g.tuning.tile_n = 192;  // no batched FP8 instance that wide: one launch per batch
  EXPECT_TRUE(gemm_check(k13, g).is_ok()) << gemm_check(k13, g).message;
  g = fp8_args();  // an epilogue: the plain FP8 GEMM, then the elementwise pass over D
  g.epilogue.act = Activation::relu;
  EXPECT_TRUE(gemm_check(GemmImpl::automatic, g).is_ok()) << gemm_check(GemmImpl::automatic, g).message;
  g = fp8_args();
  g.tuning.tile_n = 64;
  refused(g, k13, Status::unsupported, "tile_n must be 0 (the plan's), 128, 192 or 256, or 16, 32, 64 swapped");
  g.tuning.tile_n = 256;  // sums in the tensor core only
  refused(g, k13, Status::unsupported, "fp8_fast_accum");
  g.fp8_fast_accum = true;
  EXPECT_TRUE(gemm_check(k13, g).is_ok()) << gemm_check(k13, g).message;
  g = fp8_args();
  g.fp8_promote_every = 65;
  refused(g, k13, Status::invalid_argument, "fp8_promote_every must be in 0..64");
  g.tuning.tile_n = 256, g.tuning.tile_m = 64;
  refused(g, k13, Status::invalid_argument, "64 x 128");
  g = fp8_args();
  g.tuning.swap_ab = SwapAB::on;  // the swapped tiles: 64 rows of N by 16, 32 or 64 of M
  for (int w : {0, 16, 32, 64}) {
    g.tuning.tile_n = w;
    EXPECT_TRUE(gemm_check(k13, g).is_ok()) << w << ": " << gemm_check(k13, g).message;
  }
  g.tuning.tile_m = 128;
  refused(g, k13, Status::unsupported, "64 x 16, 32 and 64");
  g = fp8_args();
  g.tuning.splits = 3;  // K = 256 FP8 elements: two k-tiles of 128 bytes
  refused(g, k13, Status::invalid_argument, "2 k-tiles of 128 bytes");
  g.tuning.splits = 2;
  EXPECT_TRUE(gemm_check(k13, g).is_ok()) << gemm_check(k13, g).message;
  for (GemmImpl impl : {GemmImpl::k12_wgmma, GemmImpl::k15_pingpong, GemmImpl::small_m_stream})
    if (!outside_built_instance(impl, valid_args())) refused(fp8_args(), impl, Status::unsupported, "k13 only");
  g = fp8_args();  // 2^19 x 2^19: the swapped 64 x 16 tiles times 16 splits would overflow the scheduler's int
  g.m = g.n = index_t{1} << 19, g.k = 16, g.lda = g.ldb = 16, g.ldd = g.n;
  refused(g, k13, Status::unsupported, "work units");
  g.tuning.swap_ab = SwapAB::off, g.tuning.splits = 1;
  EXPECT_TRUE(gemm_check(k13, g).is_ok()) << gemm_check(k13, g).message;
  g = fp8_args();
  g.cd_type = DType::e4m3;  // FP8 is an input type
  refused(g, GemmImpl::automatic, Status::invalid_argument, "cd_type must be bf16, fp16 or fp32");
}

TEST(GemmApi, Fp8FormatsOfAAndBMayDiffer) {
  // b_type: B's format where it differs from A's (wgmma's e4m3 x e5m2 and e5m2 x e4m3); only FP8 pairs differ.
  for (auto [a, b] : {std::pair{DType::e4m3, DType::e5m2}, std::pair{DType::e5m2, DType::e4m3}}) {
    GemmArgs g = fp8_args();
    g.ab_type = a, g.b_type = b;
    EXPECT_EQ(b_type_of(g), b);
    for (GemmImpl impl : {GemmImpl::automatic, GemmImpl::k13_wgmma_in_flight})
      EXPECT_TRUE(gemm_check(impl, g).is_ok()) << gemm_check(impl, g).message;
    g.tuning.swap_ab = SwapAB::on;  // the swapped tiles read the formats the other way round
    EXPECT_TRUE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).is_ok());
  }
  GemmArgs g = fp8_args();
  g.b_type = DType::e4m3;  // the same as ab_type: one format
  EXPECT_TRUE(gemm_check(GemmImpl::automatic, g).is_ok());
  EXPECT_EQ(b_type_of(fp8_args()), DType::e4m3);  // unset: ab_type's
  const auto refused = [](const GemmArgs& x, const char* words) {
    const Status s = gemm_check(GemmImpl::automatic, x);
    EXPECT_EQ(s.code, Status::invalid_argument) << s.message;
    EXPECT_NE(s.message.find(words), std::string::npos) << s.message;
  };
  g = valid_args();  // bf16 A
  g.b_type = DType::f16;
  refused(g, "only FP8 A and B may differ in format");
  g.b_type = DType::e4m3;
  refused(g, "b_type e4m3 differs from ab_type bf16");
  g = fp8_args();
  g.b_type = static_cast<DType>(42);
  refused(g, "b_type must be a DType");
  // A group shares its formats.
  GemmArgs group[2] = {fp8_args(), fp8_args()};
  group[1].m = 70, group[1].a = fake(5), group[1].b = fake(6), group[1].d = fake(7);
  group[0].b_type = group[1].b_type = DType::e5m2;
  EXPECT_TRUE(gemm_grouped_check(group, 2).is_ok()) << gemm_grouped_check(group, 2).message;
  group[1].b_type.reset();
  const Status s = gemm_grouped_check(group, 2);
  EXPECT_EQ(s.code, Status::invalid_argument);
  EXPECT_NE(s.message.find("share ab_type, b_type and cd_type"), std::string::npos) << s.message;
}

TEST(GemmApi, Fp8GroupRulesAreNamed) {
  // An FP8 group: each problem meets the single FP8 call's rules; the group runs 128 x 128 tiles, shares its
  // promotion, and takes per-tensor scales as alpha only.
  GemmArgs group[2] = {fp8_args(), fp8_args()};
  group[1].m = 70, group[1].a = fake(5), group[1].b = fake(6), group[1].d = fake(7);
  const auto group_refused = [&](Status::Code code, const char* words) {
    const Status s = gemm_grouped_check(group, 2);
    EXPECT_EQ(s.code, code) << s.message;
    EXPECT_NE(s.message.find(words), std::string::npos) << s.message;
    group[1] = group[0];
    group[1].m = 70, group[1].a = fake(5), group[1].b = fake(6), group[1].d = fake(7);
  };
  EXPECT_TRUE(gemm_grouped_check(group, 2).is_ok()) << gemm_grouped_check(group, 2).message;
  group[1].tuning.tile_n = 256, group[1].fp8_fast_accum = true, group[0].fp8_fast_accum = true;
  group_refused(Status::invalid_argument, "FP8 group runs tiles 128 wide");
  group[0].fp8_fast_accum = group[1].fp8_fast_accum = false;
  group[0].tuning.tile_m = group[1].tuning.tile_m = 64;  // 64-row tiles: FP8 groups only
  EXPECT_TRUE(gemm_grouped_check(group, 2).is_ok()) << gemm_grouped_check(group, 2).message;
  group[1].tuning.tile_m = 128;
  group_refused(Status::invalid_argument, "one tuning.tile_n and tile_m");
  group[0].tuning.tile_m = 0;
  group[1].fp8_promote_every = 2;
  group_refused(Status::invalid_argument, "share fp8_fast_accum, fp8_promote_every and the fp8_scale mode");
  static const float sa[1] = {1.0f}, sb[1] = {1.0f};
  group[1].fp8_scale = Fp8Scale::tensor, group[1].fp8_scale_a = sa, group[1].fp8_scale_b = sb;
  group_refused(Status::invalid_argument, "the fp8_scale mode");  // the group shares its scales' mode
  for (GemmArgs& x : group) x.fp8_scale = Fp8Scale::block, x.fp8_scale_a = sa, x.fp8_scale_b = sb;
  EXPECT_TRUE(gemm_grouped_check(group, 2).is_ok()) << gemm_grouped_check(group, 2).message;
  group[1].fp8_promote_every = group[0].fp8_promote_every = 2;  // block scales promote every k-tile
  group_refused(Status::unsupported, "block scales promote every k-tile");
  for (GemmArgs& x : group) x.fp8_scale = Fp8Scale::none, x.fp8_scale_a = x.fp8_scale_b = nullptr;
  group[0].fp8_promote_every = group[1].fp8_promote_every = 0;
  GemmArgs batch = fp8_args();  // a strided batch with scales in memory: refused, naming the way out
  batch.batch = 2, batch.stride_a = batch.m * batch.lda, batch.stride_b = 0, batch.stride_d = batch.m * batch.ldd;
  batch.fp8_scale = Fp8Scale::channel, batch.fp8_scale_a = sa, batch.fp8_scale_b = sb;
  EXPECT_EQ(gemm_check(GemmImpl::automatic, batch).code, Status::unsupported);
  EXPECT_NE(gemm_check(GemmImpl::automatic, batch).message.find("with a strided batch"), std::string::npos);
  group[1].layout = {MajorA::k, MajorB::n}, group[1].ldb = group[1].n;
  group_refused(Status::unsupported, "K-major");
  group[1].lda = 264;
  group_refused(Status::unsupported, "multiples of 16");
}

TEST(GemmApi, MaskedRowsAreGroupedOnly) {
  // m_device: a row count read on the device, for gemm_grouped's masked problems; tessel::gemm refuses it.
  static const int counts[2] = {70, 0};
  GemmArgs g = fp8_args();
  g.m_device = counts;
  EXPECT_EQ(gemm_check(GemmImpl::automatic, g).code, Status::invalid_argument);
  EXPECT_NE(gemm_check(GemmImpl::automatic, g).message.find("gemm_grouped's masked problems"), std::string::npos);
  EXPECT_EQ(gemm(GemmImpl::automatic, g).code, Status::invalid_argument);  // before anything is launched
  GemmArgs group[2] = {fp8_args(), fp8_args()};
  group[1].a = fake(5), group[1].b = fake(6), group[1].d = fake(7);
  group[0].m_device = counts, group[1].m_device = counts + 1;
  EXPECT_TRUE(gemm_grouped_check(group, 2).is_ok()) << gemm_grouped_check(group, 2).message;
  group[1].m_device = reinterpret_cast<const int*>(reinterpret_cast<const char*>(counts) + 2);
  EXPECT_NE(gemm_grouped_check(group, 2).message.find("m_device must be 4-byte aligned"), std::string::npos);
  GemmArgs bf16[2] = {valid_args(), valid_args()};  // 16-bit problems take it too
  bf16[1].a = fake(5), bf16[1].b = fake(6), bf16[1].c = fake(7), bf16[1].d = fake(8);
  bf16[0].m_device = counts;
  EXPECT_TRUE(gemm_grouped_check(bf16, 2).is_ok()) << gemm_grouped_check(bf16, 2).message;
}

TEST(GemmApi, Fp8ScaleRulesAreNamed) {
  // FP8 scales: each rule broken alone gets a status naming it; nothing is launched.
  static const float sa[1] = {1.0f}, sb[1] = {1.0f};
  const auto refused = [](const GemmArgs& g, GemmImpl impl, Status::Code code, const char* words) {
    const Status s = gemm_check(impl, g);
    EXPECT_EQ(s.code, code) << s.message;
    EXPECT_NE(s.message.find(words), std::string::npos) << s.message;
  };
  constexpr GemmImpl k13 = GemmImpl::k13_wgmma_in_flight;
  for (Fp8Scale mode : {Fp8Scale::tensor, Fp8Scale::channel, Fp8Scale::block}) {
    GemmArgs g = fp8_args();
    g.fp8_scale = mode, g.fp8_scale_a = sa, g.fp8_scale_b = sb;
    for (GemmImpl impl : {k13, GemmImpl::automatic})
      EXPECT_TRUE(gemm_check(impl, g).is_ok()) << name(mode) << ": " << gemm_check(impl, g).message;
    GemmArgs x = g;
    x.fp8_scale_b = nullptr;
    refused(x, GemmImpl::automatic, Status::invalid_argument, "needs fp8_scale_a and fp8_scale_b");
    x = g;
    x.fp8_scale_a = reinterpret_cast<const float*>(reinterpret_cast<const char*>(sa) + 2);
    refused(x, GemmImpl::automatic, Status::invalid_argument, "4-byte aligned");
    x = valid_args();  // bf16
    x.fp8_scale = mode, x.fp8_scale_a = sa, x.fp8_scale_b = sb;
    refused(x, GemmImpl::automatic, Status::invalid_argument, "needs FP8 A and B");
  }
  GemmArgs g = fp8_args();
  g.fp8_scale_a = sa;  // a scale without a mode would be ignored: refused instead
  refused(g, GemmImpl::automatic, Status::invalid_argument, "fp8_scale is none");
  g = fp8_args();
  g.fp8_scale = static_cast<Fp8Scale>(9), g.fp8_scale_a = sa, g.fp8_scale_b = sb;
  refused(g, GemmImpl::automatic, Status::invalid_argument, "must be an Fp8Scale");
  g = fp8_args();
  g.fp8_scale = Fp8Scale::block, g.fp8_scale_a = sa, g.fp8_scale_b = sb;
  GemmArgs x = g;
  x.fp8_fast_accum = true;
  refused(x, k13, Status::unsupported, "block scales promote every k-tile");
  x = g;
  x.fp8_promote_every = 4;
  refused(x, k13, Status::unsupported, "block scales promote every k-tile");
  x = g;
  x.tuning.tile_n = 192;
  refused(x, k13, Status::unsupported, "unswapped 128-wide tiles");
  x = g;
  x.tuning.swap_ab = SwapAB::on;
  refused(x, k13, Status::unsupported, "unswapped 128-wide tiles");
  x = g;
  x.fp8_promote_every = 1, x.tuning.tile_n = 128, x.tuning.tile_m = 64;
  EXPECT_TRUE(gemm_check(k13, x).is_ok()) << gemm_check(k13, x).message;
}

TEST(GemmApi, NullCAndSmallLdcAreFineWhenBetaIsZero) {
  GemmArgs g = valid_args();
  g.beta = 0.0f;
  g.c = nullptr;
  g.ldc = 0;
  for (GemmImpl impl : kAllGemmImpls) EXPECT_NE(gemm_check(impl, g).code, Status::invalid_argument) << name(impl);
}

// GemmArgs::tuning (k13's tile width and split K): each rule is
// invalid_argument with its field named, for k13 and for `auto` alike (on
// every device: `auto` checks the fields even where it would not run k13).
TEST(GemmApi, BadTuningIsInvalidArgument) {
  struct Bad {
    GemmTuning t;
    const char* keyword;
  };
  // valid_args() has K = 40: one k-tile of 64, so any split beyond 1 is empty.
  // (tile_n 32 is the swapped tile's width: bad only with the swap off.)
  for (const Bad& b : {Bad{{100, 0}, "tile_n"}, Bad{{48, 1}, "tile_n"}, Bad{{32, 1, SwapAB::off}, "tile_n"},
                       Bad{{0, -1}, "splits"}, Bad{{0, 65}, "splits"}, Bad{{256, 2}, "k-tiles"}})
    for (GemmImpl impl : {GemmImpl::k13_wgmma_in_flight, GemmImpl::automatic}) {
      GemmArgs g = valid_args();
      g.tuning = b.t;
      const Status s = gemm_check(impl, g);
      EXPECT_EQ(s.code, Status::invalid_argument)
          << name(impl) << " " << b.t.tile_n << "/" << b.t.splits << ": " << s.message;
      EXPECT_NE(s.message.find(b.keyword), std::string::npos) << s.message;
      EXPECT_EQ(gemm(impl, g).code, Status::invalid_argument);  // before any CUDA call
    }
  GemmArgs g = valid_args();
  g.k = 64 * 7;
  g.n = 64;
  g.lda = g.k, g.ldb = g.ldc = g.ldd = g.n;
  g.tuning = {192, 7};  // seven splits of one k-tile each: allowed
  EXPECT_TRUE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).is_ok())
      << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
  // A split tail needs the tail's splits: split_tail with splits 0 (the plan's) or 1 is refused by name.
  for (int splits : {0, 1})
    for (GemmImpl impl : {GemmImpl::k13_wgmma_in_flight, GemmImpl::automatic}) {
      g.tuning = {192, splits};
      g.tuning.split_tail = true;
      const Status s = gemm_check(impl, g);
      EXPECT_EQ(s.code, Status::invalid_argument) << name(impl) << " splits " << splits << ": " << s.message;
      EXPECT_NE(s.message.find("split_tail"), std::string::npos) << s.message;
    }
  g.tuning = {192, 2};
  g.tuning.split_tail = true;
  EXPECT_TRUE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).is_ok())
      << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
}

// Rule 10b: at 4096^3 the GEMM runs k13, with or without a fused epilogue
// (k15 alone meets the power cap); 2048^3 stays k15's (rule 10).  On a
// Hopper GPU only: elsewhere the plan is k08's (PlanNamesItsRule).
// Measured tuning chooses the step: a named step with tuning.tune is refused
// before any CUDA call (auto takes it: checked like any auto call).
TEST(GemmApi, TuneTakesAutoOnly) {
  GemmArgs g = valid_args();
  g.tuning.tune = true;
  for (GemmImpl impl : {GemmImpl::k13_wgmma_in_flight, GemmImpl::k08_smem_epilogue, GemmImpl::f10_tma_loads}) {
    const Status s = gemm_check(impl, g);
    EXPECT_EQ(s.code, Status::invalid_argument) << name(impl) << ": " << s.message;
    EXPECT_NE(s.message.find("tuning.tune"), std::string::npos) << s.message;
    EXPECT_EQ(gemm(impl, g).code, Status::invalid_argument) << name(impl);
  }
  EXPECT_NE(gemm_check(GemmImpl::automatic, g).code, Status::invalid_argument)
      << gemm_check(GemmImpl::automatic, g).message;
}

TEST(GemmApi, PingpongStaysBelowThePowerCap) {
  GemmArgs g = valid_args();
  g.beta = 0.0f;
  const auto square = [&g](index_t s) {
    g.m = g.n = g.k = s;
    g.lda = g.ldb = g.ldc = g.ldd = s;
    return gemm_plan(g);
  };
  const GemmPlan big = square(4096);
  if (big.impl == GemmImpl::k08_smem_epilogue) GTEST_SKIP() << "no sm_90 GPU: " << big.why;
  EXPECT_EQ(big.impl, GemmImpl::k13_wgmma_in_flight) << big.why;
  EXPECT_EQ(big.tuning.tile_n, 256) << big.why;
  const GemmPlan small = square(2048);
  EXPECT_EQ(small.impl, GemmImpl::k15_pingpong) << small.why;
  g.epilogue.act = Activation::relu;
  const GemmPlan fused = square(4096);
  EXPECT_EQ(fused.impl, GemmImpl::k13_wgmma_in_flight) << fused.why;
  EXPECT_EQ(square(2048).impl, GemmImpl::k15_pingpong) << square(2048).why;
}

// Rule 6b: rule 10's k15 runs at its own tile's raster group (0: the launcher's), not the 128 x 256 plan's 16 it
// replaced, unless the caller set one; rule 10c: A's rows straddling lines leave k15 at short K too (for rule 5's k14
// here; planned for an sm_90 device of 132 SMs, no GPU needed).
TEST(GemmApi, PingpongTakesItsOwnRasterGroup) {
  GemmArgs g = valid_args();
  const auto plan = [&g](index_t m, index_t n, index_t k) {
    g.m = m, g.n = n, g.k = k, g.lda = k, g.ldb = g.ldc = g.ldd = n, g.beta = 0.0f;
    return gemm_plan(g, GemmDevice{});
  };
  const GemmPlan square = plan(2048, 2048, 2048);
  EXPECT_EQ(square.impl, GemmImpl::k15_pingpong) << square.why;
  EXPECT_EQ(square.tuning.raster_group, 0) << square.why;
  g.tuning.raster_group = 4;
  const GemmPlan asked = plan(2048, 2048, 2048);
  EXPECT_EQ(asked.impl, GemmImpl::k15_pingpong) << asked.why;
  EXPECT_EQ(asked.tuning.raster_group, 4) << asked.why;
  g.tuning.raster_group = 0;
  const GemmPlan k13 = plan(4096, 4096, 14336);  // rule 10b keeps k13's 128 x 256 and its group
  EXPECT_EQ(k13.impl, GemmImpl::k13_wgmma_in_flight) << k13.why;
  EXPECT_EQ(k13.tuning.raster_group, 16) << k13.why;
  const GemmPlan straddled = plan(4864, 10496, 472);  // A's rows 944 bytes apart: k13 ran it 1.39x as fast as k15
  EXPECT_NE(straddled.impl, GemmImpl::k15_pingpong) << straddled.why;
  const GemmPlan whole = plan(4864, 10496, 448);
  EXPECT_EQ(whole.impl, GemmImpl::k15_pingpong) << whole.why;
}

// Without a GPU (or on another architecture) the plan falls back to k08, and
// says so; the choice never depends on anything but the device and the shape.
// On sm_90 this small problem (below 10^10 flops) is the model's: one of
// gemm_candidates' configurations, named in the plan's words, that the
// chosen step accepts.
TEST(GemmApi, PlanNamesItsRule) {
  GemmArgs g = valid_args();
  const GemmPlan p = gemm_plan(g);
  EXPECT_FALSE(p.why.empty());
  if (p.impl == GemmImpl::k08_smem_epilogue) return;
  EXPECT_EQ(p.why.rfind("model ", 0), 0u) << p.why;
  bool listed = false;
  for (const GemmCandidate& c : gemm_candidates(g.m, g.n, g.k, 132, false, true))
    listed = listed || (c.impl == p.impl && c.tile_n == p.tuning.tile_n && c.splits == p.tuning.splits);
  EXPECT_TRUE(listed) << p.why;
  GemmArgs planned = g;
  planned.tuning = p.tuning;
  EXPECT_TRUE(gemm_check(p.impl, planned).is_ok()) << p.why << ": " << gemm_check(p.impl, planned).message;
}

// ------------------------------------------------------------------ the epilogue (GemmEpilogue)

namespace {

/// valid_args() with disjoint fake ranges for every matrix (A, B, C, D, the
/// bias and aux 1 MiB apart), beta = 1, and an epilogue using all of them.
GemmArgs epilogue_args() {
  GemmArgs g = valid_args();
  const auto at = [](int mib) { return reinterpret_cast<void*>((static_cast<std::uintptr_t>(mib) + 1) << 20); };
  g.a = at(1), g.b = at(2), g.c = at(3), g.d = at(4);
  g.epilogue.act = Activation::gelu_tanh;
  g.epilogue.bias_kind = BiasKind::col;
  g.epilogue.bias = at(5);
  g.epilogue.aux = at(6);
  g.epilogue.ldaux = g.n;
  return g;
}

/// Every step and `auto` refuse `g` with invalid_argument naming `keyword`,
/// before any CUDA call; so does gemm_epilogue_apply when `apply_too`.
void expect_epilogue_invalid(const GemmArgs& g, const char* what, const char* keyword, bool apply_too = true) {
  std::vector<GemmImpl> impls(std::begin(kAllGemmImpls), std::end(kAllGemmImpls));
  impls.push_back(GemmImpl::automatic);
  for (GemmImpl impl : impls) {
    const Status s = gemm_check(impl, g);
    EXPECT_EQ(s.code, Status::invalid_argument) << name(impl) << ", " << what << ": " << s.message;
    EXPECT_NE(s.message.find(keyword), std::string::npos) << name(impl) << ", " << what << ": " << s.message;
    EXPECT_EQ(gemm(impl, g).code, Status::invalid_argument) << name(impl) << ", " << what;
  }
  if (apply_too) {
    const Status s = gemm_epilogue_apply(g);
    EXPECT_EQ(s.code, Status::invalid_argument) << "gemm_epilogue_apply, " << what << ": " << s.message;
    EXPECT_NE(s.message.find(keyword), std::string::npos) << "gemm_epilogue_apply, " << what << ": " << s.message;
  }
}

}  // namespace

TEST(GemmApi, DefaultEpilogueIsInactive) {
  const GemmArgs g = valid_args();
  EXPECT_FALSE(g.epilogue.active());
  GemmEpilogue e;
  e.act = Activation::relu;
  EXPECT_TRUE(e.active());
  e = GemmEpilogue{};
  e.bias_kind = BiasKind::row;
  EXPECT_TRUE(e.active());
  // Nothing to do: gemm_epilogue_apply accepts it and launches nothing (safe without a GPU).
  EXPECT_TRUE(gemm_epilogue_apply(g).is_ok()) << gemm_epilogue_apply(g).message;
}

TEST(GemmApi, ValidEpiloguePassesTheChecks) {
  for (Activation act : kAllActivations)
    for (BiasKind kind : kAllBiasKinds)
      for (bool aux : {false, true}) {
        GemmArgs g = epilogue_args();
        g.epilogue.act = act;
        g.epilogue.bias_kind = kind;
        if (kind == BiasKind::none) g.epilogue.bias = nullptr;
        if (!aux) g.epilogue.aux = nullptr, g.epilogue.ldaux = 0;
        for (GemmImpl impl : kAllGemmImpls) {
          const Status s = gemm_check(impl, g);
          EXPECT_NE(s.code, Status::invalid_argument)
              << name(impl) << " " << name(act) << " " << name(kind) << " aux " << aux << ": " << s.message;
        }
      }
  // aux with a padded ldaux, and fp32 D (4-byte elements) on the fp32 ladder.
  GemmArgs g = epilogue_args();
  g.epilogue.ldaux = g.n + 3;
  EXPECT_TRUE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).is_ok())
      << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
  g.ab_type = g.cd_type = DType::f32;
  if (!outside_built_instance(GemmImpl::f07_two_ctas_per_sm, g)) {
    EXPECT_TRUE(gemm_check(GemmImpl::f07_two_ctas_per_sm, g).is_ok())
        << gemm_check(GemmImpl::f07_two_ctas_per_sm, g).message;
  }
}

TEST(GemmApi, EachEpilogueRuleIsInvalidArgument) {
  GemmArgs g = epilogue_args();
  g.epilogue.act = static_cast<Activation>(9);
  expect_epilogue_invalid(g, "activation out of range", "epilogue.act");
  g = epilogue_args(), g.epilogue.bias_kind = static_cast<BiasKind>(7);
  expect_epilogue_invalid(g, "bias kind out of range", "epilogue.bias_kind");
  g = epilogue_args(), g.epilogue.bias = nullptr;
  expect_epilogue_invalid(g, "col bias kind without a bias", "epilogue.bias is null");
  g = epilogue_args(), g.epilogue.bias_kind = BiasKind::row, g.epilogue.bias = nullptr;
  expect_epilogue_invalid(g, "row bias kind without a bias", "epilogue.bias is null");
  g = epilogue_args(), g.epilogue.bias_kind = BiasKind::none;
  expect_epilogue_invalid(g, "a bias without its kind", "bias_kind is none");
  g = epilogue_args(), g.epilogue.ldaux = g.n - 1;
  expect_epilogue_invalid(g, "ldaux < N", "epilogue.ldaux");
  g = epilogue_args(), g.epilogue.ldaux = 0;
  expect_epilogue_invalid(g, "ldaux 0 with aux", "epilogue.ldaux");
  // Misaligned element pointers (2-byte elements: odd addresses; fp32: not a multiple of 4).
  g = epilogue_args(), g.epilogue.bias = static_cast<const char*>(g.epilogue.bias) + 1;
  expect_epilogue_invalid(g, "odd bias address", "epilogue.bias must be aligned");
  g = epilogue_args(), g.epilogue.aux = static_cast<char*>(g.epilogue.aux) + 1;
  expect_epilogue_invalid(g, "odd aux address", "epilogue.aux must be aligned");
  g = epilogue_args(), g.cd_type = DType::f32, g.epilogue.aux = static_cast<char*>(g.epilogue.aux) + 2;
  expect_epilogue_invalid(g, "fp32 aux at 2 mod 4", "epilogue.aux must be aligned");
  // Overlaps, by byte range.
  g = epilogue_args(), g.epilogue.bias = static_cast<const char*>(g.d) + 2 * 59;  // the last element of D's first row
  expect_epilogue_invalid(g, "bias inside D", "epilogue.bias must not overlap D");
  g = epilogue_args(), g.epilogue.bias = static_cast<const char*>(g.d) - 2;  // ends in D's first element
  expect_epilogue_invalid(g, "bias running into D", "epilogue.bias must not overlap D");
  g = epilogue_args(), g.epilogue.aux = g.d;
  expect_epilogue_invalid(g, "aux = D", "epilogue.aux must not overlap D");
  g = epilogue_args(), g.epilogue.aux = static_cast<char*>(g.d) + 2 * 60 * 99;  // D's last row
  expect_epilogue_invalid(g, "aux starting in D's last row", "epilogue.aux must not overlap D");
  g = epilogue_args(), g.epilogue.bias = static_cast<const char*>(g.epilogue.aux) + 2 * 60 * 50;
  expect_epilogue_invalid(g, "bias inside aux", "epilogue.aux must not overlap the bias");
  g = epilogue_args(), g.epilogue.aux = const_cast<void*>(g.a);
  expect_epilogue_invalid(g, "aux = A", "epilogue.aux must not overlap A", false);
  g = epilogue_args(), g.epilogue.aux = const_cast<void*>(g.b);
  expect_epilogue_invalid(g, "aux = B", "epilogue.aux must not overlap B", false);
  g = epilogue_args(), g.epilogue.aux = const_cast<void*>(g.c);
  expect_epilogue_invalid(g, "aux = C", "epilogue.aux must not overlap C", false);
  // C is not read when beta == 0: aux may then share its memory.
  g = epilogue_args(), g.epilogue.aux = const_cast<void*>(g.c), g.beta = 0.0f;
  EXPECT_TRUE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).is_ok())
      << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
  // Just after D's last element: no overlap.
  g = epilogue_args(), g.epilogue.aux = static_cast<char*>(g.d) + 2 * 60 * 100;
  EXPECT_TRUE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).is_ok())
      << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
}

TEST(GemmApi, EpilogueApplyChecksItsOwnArguments) {
  GemmArgs g = epilogue_args();
  g.a = g.b = g.c = nullptr;  // not read by the elementwise pass
  g.k = 0;
  GemmArgs h = g;
  h.d = nullptr;
  EXPECT_EQ(gemm_epilogue_apply(h).code, Status::invalid_argument);
  h = g, h.m = 0;
  EXPECT_EQ(gemm_epilogue_apply(h).code, Status::invalid_argument);
  h = g, h.ldd = h.n - 1;
  EXPECT_EQ(gemm_epilogue_apply(h).code, Status::invalid_argument);
  EXPECT_NE(gemm_epilogue_apply(h).message.find("ldd"), std::string::npos);
  h = g, h.cd_type = DType::e4m3;  // FP8 is an input type: D is never FP8
  EXPECT_EQ(gemm_epilogue_apply(h).code, Status::invalid_argument);
  EXPECT_NE(gemm_epilogue_apply(h).message.find("cd_type"), std::string::npos);
}

// Rule 7 of the plan: with an epilogue, `auto` never picks k14 and, on sm_90,
// k13 only at a tuning with a fused instance; elsewhere it says "unfused".
TEST(GemmApi, PlanWithAnEpilogueNamesThePath) {
  GemmArgs g = epilogue_args();
  const GemmPlan p = gemm_plan(g);
  EXPECT_NE(p.impl, GemmImpl::k14_cluster_multicast) << p.why;
  if (p.impl == GemmImpl::k13_wgmma_in_flight) {
    EXPECT_TRUE(k13_fused_instance(p.tuning)) << p.why;
    // beta = 1 and an aux output: C and aux take the unfused path (k13_fuses).
    EXPECT_NE(p.why.find("unfused epilogue"), std::string::npos) << p.why;
    GemmArgs h = g;
    h.beta = 0.0f, h.c = nullptr, h.epilogue.aux = nullptr, h.epilogue.ldaux = 0;
    const GemmPlan q = gemm_plan(h);
    EXPECT_NE(q.why.find(" fused epilogue"), std::string::npos) << q.why;
    EXPECT_EQ(q.why.find("unfused"), std::string::npos) << q.why;
  } else {
    EXPECT_NE(p.why.find("unfused epilogue"), std::string::npos) << p.why;
  }
}

// gemm_jit_prepare checks its arguments as gemm_check does, and has nothing
// to do (ok, no compile) where the call asks for no run-time compiled kernel.
TEST(GemmApi, JitPrepareChecksAndIsANoOpWithoutJit) {
  GemmArgs g = epilogue_args();
  for (GemmImpl impl : {GemmImpl::automatic, GemmImpl::k13_wgmma_in_flight, GemmImpl::k11_tma_store_epilogue}) {
    GemmArgs bad = g;
    bad.epilogue.bias = nullptr;  // bias_kind col without a bias
    const Status s = gemm_jit_prepare(impl, bad);
    EXPECT_EQ(s.code, Status::invalid_argument) << name(impl) << ": " << s.message;
    EXPECT_NE(s.message.find("epilogue.bias"), std::string::npos) << s.message;
  }
  const JitStats before = jit_stats();
  EXPECT_TRUE(gemm_jit_prepare(GemmImpl::k08_smem_epilogue, g).is_ok());  // k08 compiles nothing at run time
  g.tuning = GemmTuning{256, 1, SwapAB::off, 8, GemmJit::off};
  EXPECT_TRUE(gemm_jit_prepare(GemmImpl::k13_wgmma_in_flight, g).is_ok());  // jit off
  const JitStats after = jit_stats();
  EXPECT_EQ(after.compiled, before.compiled);
  EXPECT_EQ(after.disk_hits, before.disk_hits);
}

// ------------------------------------------------------------------ strided batched

// Each rule of the batch (GemmArgs::batch and the strides) is
// invalid_argument naming it, for every step and `auto`, before any CUDA call.
TEST(GemmApi, BatchRulesAreInvalidArgument) {
  const auto batched = [] {
    GemmArgs g = valid_args();
    g.batch = 3;
    g.stride_a = 100 * 40, g.stride_b = 40 * 60, g.stride_c = 100 * 60, g.stride_d = 100 * 60;
    return g;
  };
  for (GemmImpl impl : kAllGemmImpls)
    EXPECT_NE(gemm_check(impl, batched()).code, Status::invalid_argument) << name(impl);
  EXPECT_NE(gemm_check(GemmImpl::automatic, batched()).code, Status::invalid_argument);
  GemmArgs g = batched();
  g.batch = 0;
  expect_invalid(g, "batch = 0", "batch must be at least 1");
  g = batched(), g.stride_a = -8;
  expect_invalid(g, "negative stride_a", "batch strides");
  g = batched(), g.stride_d = -6000;
  expect_invalid(g, "negative stride_d", "batch strides");
  // One D's footprint is 99 * 60 + 60 = 6000 elements: 5999 overlaps the next batch.
  g = batched(), g.stride_d = 5999;
  expect_invalid(g, "stride_d below D's footprint", "batches' D overlap");
  g = batched(), g.stride_d = 0;
  expect_invalid(g, "stride_d = 0", "batches' D overlap");
  // Broadcast A, B and C (stride 0) are fine; D side by side in its rows too.
  g = batched(), g.stride_a = 0, g.stride_b = 0, g.stride_c = 0;
  EXPECT_NE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).code, Status::invalid_argument)
      << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
  g = batched(), g.ldd = 3 * 60, g.stride_d = 60;
  EXPECT_NE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).code, Status::invalid_argument)
      << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
  g = batched(), g.ldd = 3 * 60 - 1, g.stride_d = 60;  // the third batch's last column passes ldd
  expect_invalid(g, "side by side beyond ldd", "batches' D overlap");
  // batch = 1 ignores the strides.
  g = valid_args(), g.stride_d = -1, g.stride_a = -5;
  EXPECT_NE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).code, Status::invalid_argument);
}

// k15 serves a batch at beta = 0 (its batched kernel, or one launch per
// batch) and refuses one that reads C, naming the rule, on every device.
TEST(GemmApi, K15BatchesWithoutCOnly) {
  GemmArgs g = valid_args();
  g.batch = 3;
  g.stride_a = 100 * 40, g.stride_b = 40 * 60, g.stride_c = 100 * 60, g.stride_d = 100 * 60;
  const Status with_c = gemm_check(GemmImpl::k15_pingpong, g);
  if (is_placeholder(with_c)) GTEST_SKIP() << "k15 not built";
  EXPECT_EQ(with_c.code, Status::unsupported) << with_c.message;
  EXPECT_NE(with_c.message.find("beta must be 0"), std::string::npos) << with_c.message;
  g.beta = 0.0f, g.c = nullptr;
  EXPECT_TRUE(gemm_check(GemmImpl::k15_pingpong, g).is_ok()) << gemm_check(GemmImpl::k15_pingpong, g).message;
  g.tuning.tile_n = 256;  // k15's tile is 128 wide
  EXPECT_EQ(gemm_check(GemmImpl::k15_pingpong, g).code, Status::invalid_argument);
}

// D must not overlap A, B or C (except C as D in place), over every batch.
TEST(GemmApi, OverlappingOutputIsInvalidArgument) {
  GemmArgs g = valid_args();
  g.d = const_cast<void*>(g.a);
  expect_invalid(g, "D is A", "D overlaps A");
  g = valid_args(), g.d = static_cast<char*>(const_cast<void*>(g.b)) + 64;
  expect_invalid(g, "D inside B", "D overlaps B");
  g = valid_args(), g.d = const_cast<void*>(g.c), g.ldd = g.ldc + 1;
  expect_invalid(g, "D over C with another ld", "D overlaps C");
  // C in place (same pointer and ld) is allowed, and so is any C when beta = 0.
  g = valid_args(), g.d = const_cast<void*>(g.c);
  EXPECT_NE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).code, Status::invalid_argument)
      << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
  g = valid_args(), g.beta = 0.0f, g.d = static_cast<char*>(const_cast<void*>(g.c)) + 2;
  EXPECT_NE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).code, Status::invalid_argument);
  // A later batch's D reaching into A: A's range starts 3 D footprints after D.
  g = valid_args();
  g.batch = 4, g.stride_d = 6000, g.stride_a = 4000, g.stride_b = 0, g.stride_c = 6000;
  g.a = static_cast<char*>(g.d) + 3 * 6000 * 2;
  expect_invalid(g, "batch 3's D is A", "D overlaps A");
  g.batch = 3;  // three batches of D end where A starts
  EXPECT_NE(gemm_check(GemmImpl::k13_wgmma_in_flight, g).code, Status::invalid_argument)
      << gemm_check(GemmImpl::k13_wgmma_in_flight, g).message;
}

// ------------------------------------------------------------------ grouped

namespace {

/// `count` well-formed problems with disjoint operands (4 fake slots each).
std::vector<GemmArgs> valid_group(int count) {
  std::vector<GemmArgs> v;
  for (int g = 0; g < count; ++g) {
    GemmArgs x = valid_args();
    x.m = 1 + 37 * g;
    x.k = 40 + g;
    x.lda = x.k;
    x.a = fake(8 + 4 * g), x.b = fake(9 + 4 * g), x.c = fake(10 + 4 * g), x.d = fake(11 + 4 * g);
    x.alpha = static_cast<float>(g + 1);  // scalars may differ
    v.push_back(x);
  }
  return v;
}

void expect_group_invalid(const std::vector<GemmArgs>& v, const char* what, const char* keyword) {
  const Status s = gemm_grouped_check(v.data(), static_cast<int>(v.size()));
  EXPECT_EQ(s.code, Status::invalid_argument) << what << ": got " << to_string(s.code) << ": " << s.message;
  EXPECT_NE(s.message.find(keyword), std::string::npos) << what << ": " << s.message;
  // gemm_grouped() checks first and returns before any CUDA call.
  EXPECT_EQ(gemm_grouped(v.data(), static_cast<int>(v.size())).code, Status::invalid_argument) << what;
}

}  // namespace

TEST(GemmApi, GroupRulesAreInvalidArgument) {
  for (int count : {1, 8, 300}) {
    const std::vector<GemmArgs> v = valid_group(count);
    const Status s = gemm_grouped_check(v.data(), count);
    EXPECT_TRUE(s.is_ok()) << count << ": " << s.message;
  }
  EXPECT_EQ(gemm_grouped_check(nullptr, 3).code, Status::invalid_argument);
  std::vector<GemmArgs> v = valid_group(8);
  EXPECT_EQ(gemm_grouped_check(v.data(), 0).code, Status::invalid_argument);
  EXPECT_EQ(gemm_grouped(v.data(), -1).code, Status::invalid_argument);
  // A problem breaking a single-problem rule names its index.
  v = valid_group(8), v[5].lda = v[5].k - 1;
  expect_group_invalid(v, "problem 5's lda", "problem 5: lda");
  v = valid_group(8), v[2].d = nullptr;
  expect_group_invalid(v, "problem 2's null D", "problem 2:");
  v = valid_group(8), v[3].batch = 2, v[3].stride_d = 1 << 20;
  expect_group_invalid(v, "a batched problem", "batch = 1");
  v = valid_group(8), v[4].ab_type = DType::f16;
  expect_group_invalid(v, "mixed input types", "share ab_type");
  v = valid_group(8), v[4].cd_type = DType::f32;
  expect_group_invalid(v, "mixed output types", "share ab_type, b_type and cd_type");
  v = valid_group(8), v[7].layout.b = MajorB::k, v[7].ldb = v[7].k;
  expect_group_invalid(v, "mixed layouts", "share the layout");
  v = valid_group(8), v[1].tuning.splits = 2;
  expect_group_invalid(v, "split K", "tuning");
  v = valid_group(8), v[1].tuning.tile_n = 64;
  expect_group_invalid(v, "tile_n 64", "tuning");
  v = valid_group(8), v[1].tuning.tile_m = 64;  // 64-row tiles: FP8 groups only
  expect_group_invalid(v, "tile_m 64", "or 64 for FP8");
  v = valid_group(8), v[1].tuning.swap_ab = SwapAB::on;
  expect_group_invalid(v, "the swap", "tuning");
  v = valid_group(8), v[1].tuning.tile_n = 128, v[6].tuning.tile_n = 256;
  expect_group_invalid(v, "two tile widths", "one tuning.tile_n");
  v = valid_group(8), v[2].workspace = fake(20), v[2].workspace_bytes = 1 << 20;
  expect_group_invalid(v, "a workspace", "problem 2: gemm_grouped takes no workspace");
  v = valid_group(8), v[4].alpha_device = static_cast<const float*>(fake(21));
  expect_group_invalid(v, "alpha_device", "problem 4: gemm_grouped takes no workspace and no alpha_device");
  // Overlaps between problems: D with D, D with another's A, B, C.
  v = valid_group(8), v[6].d = static_cast<char*>(v[2].d) + 100;
  expect_group_invalid(v, "D over D", "D overlaps problem");
  v = valid_group(8), v[6].d = const_cast<void*>(v[1].a);
  expect_group_invalid(v, "D over another's A", "'s A");
  v = valid_group(8), v[0].b = static_cast<char*>(v[7].d) + 8;
  expect_group_invalid(v, "another's B over D", "'s B");
  v = valid_group(8), v[3].c = v[5].d;
  expect_group_invalid(v, "another's C over D", "'s C");
  // Two problems reading the same A and B (shared weights) are fine.
  v = valid_group(8);
  for (GemmArgs& x : v) x.b = v[0].b, x.k = 40, x.lda = 40;
  EXPECT_TRUE(gemm_grouped_check(v.data(), 8).is_ok()) << gemm_grouped_check(v.data(), 8).message;
  // The plan names its rule.
  const GemmPlan p = gemm_plan_grouped(v.data(), 8);
  EXPECT_FALSE(p.why.empty());
}

// The plan's record: every problem of tests/data/plan_record.csv (the suite and
// random shapes of the any-shape distribution) planned for the default device
// (sm_90, 132 SMs) as `tessel bench gemm --plan` wrote it.  A change of the plan
// shows here as the rows it moves; the commit that makes it rewrites the record
// (the file's header says how) and says why, as a change of measured machine
// code rewrites the SASS record.
TEST(GemmPlanRecord, EveryProblemPlansAsRecorded) {
  const std::string path = std::string(TESSEL_TEST_DATA) + "/plan_record.csv";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::vector<bench::GemmProblem> problems;
  std::string error;
  ASSERT_TRUE(bench::read_suite(in, path, bench::SuiteDefaults{}, problems, error)) << error;
  in.clear();
  in.seekg(0);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    ASSERT_TRUE(bench::split_csv_line(line, header.empty() ? header : rows.emplace_back())) << line;
  }
  ASSERT_EQ(rows.size(), problems.size());
  ASSERT_GE(rows.size(), 200u);
  const auto column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t impl = column("impl"), tile_m = column("tile_m"), tile_n = column("tile_n"),
                    splits = column("splits"), swap = column("swap_ab"), tail = column("split_tail"),
                    raster = column("raster_group"), why = column("why");
  ASSERT_LT(why, header.size()) << "the record's header lacks a plan column";
  int moved = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bench::GemmProblem& p = problems[i];
    const GemmPlan plan = gemm_plan(bench::plan_args(p, GemmTuning{}), GemmDevice{});
    const GemmTuning& t = plan.tuning;
    const std::string swap_ab = bench::swap_ab_name(t.swap_ab);
    const std::vector<std::string>& r = rows[i];
    const bool same = r[impl] == short_name(plan.impl) && r[tile_m] == std::to_string(t.tile_m) &&
                      r[tile_n] == std::to_string(t.tile_n) && r[splits] == std::to_string(t.splits) &&
                      r[swap] == swap_ab && r[tail] == std::to_string(t.split_tail ? 1 : 0) &&
                      r[raster] == std::to_string(t.raster_group);
    if (!same && ++moved <= 20)
      ADD_FAILURE() << p.m << " x " << p.n << " x " << p.k << " " << r[column("layout")] << ": recorded " << r[impl]
                    << " " << r[tile_m] << "x" << r[tile_n] << " s" << r[splits] << " swap " << r[swap] << " ("
                    << r[why] << "); now " << short_name(plan.impl) << " " << t.tile_m << "x" << t.tile_n << " s"
                    << t.splits << " swap " << swap_ab << " (" << plan.why << ")";
  }
  EXPECT_EQ(moved, 0) << moved << " of " << rows.size()
                      << " problems plan otherwise than recorded; if that is meant, rewrite the record as its header "
                         "says";
}

// k14 swaps A and B only for k13's 128-row swapped widths (pairs sharing the caller's A, read K-major, unsplit);
// every other swapped or fitted width, A:m, a split, 2 x 2 clusters and a share asked for are refused by name.  k13's
// 64-row swapped-only widths asked for unswapped get the 64 x 128 rule's refusal, not a launch.
TEST(GemmApi, K14SwapsOnlyTheWideTiles) {
  GemmArgs g = valid_args();
  g.m = 300, g.n = 500, g.k = 200, g.lda = 200, g.ldb = g.ldc = g.ldd = 500;
  g.tuning.swap_ab = SwapAB::on;
  g.tuning.tile_n = 176;
  const Status ok = gemm_check(GemmImpl::k14_cluster_multicast, g);
  if (is_placeholder(ok)) GTEST_SKIP() << "k14 not built";
  EXPECT_TRUE(ok.is_ok()) << ok.message;
  const auto refused = [](GemmArgs a, const char* what, const char* words) {
    const Status s = gemm_check(GemmImpl::k14_cluster_multicast, a);
    EXPECT_FALSE(s.is_ok()) << what;
    EXPECT_NE(s.message.find(words), std::string::npos) << what << ": " << s.message;
  };
  GemmArgs narrow = g;
  narrow.tuning.tile_n = 64;
  refused(narrow, "swapped 64", "128-row swapped tiles");
  GemmArgs am = g;
  am.layout.a = MajorA::m, am.lda = 300;
  refused(am, "A:m", "A:k");
  GemmArgs quad = g;
  quad.tuning.cluster = 4;
  refused(quad, "2 x 2", "pairs sharing A");
  GemmArgs share = g;
  share.tuning.cluster_share = ClusterShare::b;
  refused(share, "share B", "pairs sharing A");
  GemmArgs split = g;  // 128 wide: past the split check that refuses the other widths
  split.tuning.tile_n = 128, split.tuning.splits = 2;
  refused(split, "split", "runs unsplit");
  GemmArgs fitted = g;
  fitted.tuning.swap_ab = SwapAB::off, fitted.tuning.tile_n = 160;
  refused(fitted, "unswapped 160", "128 x 160");
  GemmArgs rows64 = valid_args();
  rows64.tuning.tile_m = 64, rows64.tuning.tile_n = 80, rows64.tuning.swap_ab = SwapAB::off;
  const Status s = gemm_check(GemmImpl::k13_wgmma_in_flight, rows64);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message.find("64 x 128"), std::string::npos) << s.message;
}
