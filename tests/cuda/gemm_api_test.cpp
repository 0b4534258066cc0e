// The host API of the GEMM ladder without a GPU: gemm_check on each rule
// (it never touches the device) and gemm() refusing malformed calls before
// any CUDA call.  Runs in CI on machines without a GPU.  The names of
// implementations, types and layouts need no CUDA at all: tests/gemm_types_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tessel/host/gemm.hpp"

using namespace tessel;

namespace {

/// A well-formed problem with pointers that are never dereferenced.
GemmArgs valid_args() {
  GemmArgs g;
  g.m = 100, g.n = 60, g.k = 40;
  g.lda = 40, g.ldb = 60, g.ldc = 60, g.ldd = 60;  // A:k, B:n
  void* fake = reinterpret_cast<void*>(std::uintptr_t{1} << 20);
  g.a = g.b = g.c = fake;
  g.d = fake;
  g.alpha = 1.0f, g.beta = 1.0f;
  return g;
}

bool is_placeholder(const Status& s) {
  return s.code == Status::unsupported && s.message.find("not built yet") != std::string::npos;
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
  g.m = 20'000'000;
  g.layout.a = MajorA::m;
  g.lda = g.m;
  for (GemmImpl impl : {GemmImpl::k01_naive, GemmImpl::k02_smem_fma, GemmImpl::k03_smem_padded}) {
    const Status s = gemm_check(impl, g);
    if (is_placeholder(s)) continue;
    EXPECT_EQ(s.code, Status::unsupported) << name(impl) << ": " << s.message;
    EXPECT_NE(s.message.find("gridDim.y"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find(short_name(impl)), std::string::npos) << s.message;
  }
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
    EXPECT_NE(s.message.find("f01..f07"), std::string::npos) << s.message;  // says where fp32 goes
    EXPECT_EQ(gemm(impl, g).code, Status::invalid_argument);
  }
  for (GemmImpl impl : kFp32GemmImpls) {
    EXPECT_TRUE(gemm_check(impl, g).is_ok()) << name(impl) << ": " << gemm_check(impl, g).message;
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
        EXPECT_TRUE(gemm_check(impl, h).is_ok()) << name(impl) << " " << m << "x" << h.n << "x" << k;
      }
  }
  // `auto` with fp32 inputs plans the best fp32 step, on any device.
  const GemmPlan p = gemm_plan(g);
  EXPECT_EQ(p.impl, GemmImpl::f07_two_ctas_per_sm) << p.why;
  EXPECT_TRUE(gemm_check(GemmImpl::automatic, g).is_ok());
  g.cd_type = DType::bf16;
  EXPECT_EQ(gemm_check(GemmImpl::automatic, g).code, Status::invalid_argument);
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
}

// Without a GPU (or on another architecture) the plan falls back to k08, and
// says so; the choice never depends on anything but the device and the shape.
TEST(GemmApi, PlanNamesItsRule) {
  GemmArgs g = valid_args();
  const GemmPlan p = gemm_plan(g);
  EXPECT_FALSE(p.why.empty());
  EXPECT_TRUE(p.impl == GemmImpl::k13_wgmma_in_flight || p.impl == GemmImpl::k08_smem_epilogue) << p.why;
  if (p.impl == GemmImpl::k13_wgmma_in_flight) {
    EXPECT_TRUE(p.tuning.tile_n == 128 || p.tuning.tile_n == 192 || p.tuning.tile_n == 256);
    EXPECT_GE(p.tuning.splits, 1);
  }
}
