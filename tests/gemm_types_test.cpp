// The GEMM ladder's names (tessel/gemm_types.hpp) without CUDA: spellings,
// parsers and their round trips.  The header is CUDA-free, so these run in
// the host-only build; the host API's checks are tests/cuda/gemm_api_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "tessel/gemm_types.hpp"

using namespace tessel;

// Everything but name(GemmLayout) works in constant expressions.
static_assert(parse_gemm_layout("A:m,B:k") == GemmLayout{MajorA::m, MajorB::k});
static_assert(parse_gemm_impl("k04") == GemmImpl::k04_mma_sync);
static_assert(parse_dtype("f16") == DType::f16 && size_bytes(DType::f32) == 4);

TEST(GemmTypes, ImplNamesRoundTrip) {
  for (GemmImpl impl : kAllGemmImpls) {
    EXPECT_EQ(parse_gemm_impl(short_name(impl)), impl) << short_name(impl);
    EXPECT_EQ(parse_gemm_impl(name(impl)), impl) << name(impl);
    EXPECT_EQ(std::string(name(impl)).rfind(short_name(impl), 0), 0u)
        << name(impl);  // "k04_mma_sync" starts with "k04"
  }
  EXPECT_EQ(parse_gemm_impl("k01"), GemmImpl::k01_naive);
  EXPECT_EQ(parse_gemm_impl("k09_tma_mbarriers"), GemmImpl::k09_tma_mbarriers);
  EXPECT_EQ(parse_gemm_impl("k10_persistent_warpgroup"), GemmImpl::k10_persistent_warpgroup);
  EXPECT_EQ(parse_gemm_impl("k11"), GemmImpl::k11_tma_store_epilogue);
  EXPECT_EQ(parse_gemm_impl("k13"), GemmImpl::k13_wgmma_in_flight);
  EXPECT_EQ(parse_gemm_impl("auto"), GemmImpl::automatic);
  EXPECT_EQ(kBestGemmImpl, GemmImpl::automatic);  // the bench's default: the plan chooses
  // The small-M kernel: not a ladder step, named like one.
  EXPECT_EQ(parse_gemm_impl("small_m"), GemmImpl::small_m_stream);
  EXPECT_EQ(parse_gemm_impl("Small_M_Stream"), GemmImpl::small_m_stream);
  EXPECT_STREQ(short_name(GemmImpl::small_m_stream), "small_m");
  EXPECT_FALSE(is_teaching_step(GemmImpl::small_m_stream));
  EXPECT_FALSE(is_fp32_step(GemmImpl::small_m_stream));
  // Case is ignored, as in layouts: the command line's --impl always took
  // "K04", and it now uses this parser (it was case-sensitive before).
  EXPECT_EQ(parse_gemm_impl("K01"), GemmImpl::k01_naive);
  EXPECT_EQ(parse_gemm_impl("K04_MMA_Sync"), GemmImpl::k04_mma_sync);
  for (const char* bad : {"", "k1", "k16", "k00", "k01_", "naive", "k02_smem", " k01", "k01 ", "cublas", "all",
                          "k09_best_mma_sync", "small", "small_m_"})
    EXPECT_FALSE(parse_gemm_impl(bad).has_value()) << '"' << bad << '"';
  EXPECT_STREQ(short_name(static_cast<GemmImpl>(42)), "unknown");  // no table read out of bounds
  EXPECT_STREQ(name(static_cast<GemmImpl>(42)), "unknown");
}

// The fp32 ladder: its own list, names f01..f12, parsed like the 16-bit steps.
TEST(GemmTypes, Fp32LadderNames) {
  for (GemmImpl impl : kFp32GemmImpls) {
    EXPECT_EQ(parse_gemm_impl(short_name(impl)), impl) << short_name(impl);
    EXPECT_EQ(parse_gemm_impl(name(impl)), impl) << name(impl);
    EXPECT_EQ(std::string(name(impl)).rfind(short_name(impl), 0), 0u) << name(impl);
    EXPECT_EQ(short_name(impl)[0], 'f') << name(impl);
    EXPECT_TRUE(is_fp32_step(impl));
  }
  for (GemmImpl impl : kAllGemmImpls) EXPECT_FALSE(is_fp32_step(impl)) << name(impl);
  EXPECT_FALSE(is_fp32_step(GemmImpl::automatic));
  EXPECT_EQ(parse_gemm_impl("f01"), GemmImpl::f01_naive);
  EXPECT_EQ(parse_gemm_impl("F03_SMEM_PADDED"), GemmImpl::f03_smem_padded);
  EXPECT_EQ(parse_gemm_impl("f06_vector_smem"), GemmImpl::f06_vector_smem);
  EXPECT_EQ(parse_gemm_impl("f07"), GemmImpl::f07_two_ctas_per_sm);
  EXPECT_EQ(parse_gemm_impl("F07_Two_CTAs_per_SM"), GemmImpl::f07_two_ctas_per_sm);
  EXPECT_EQ(std::size(kFp32GemmImpls), 12u);  // f01..f12, in order
  EXPECT_EQ(kFp32GemmImpls[6], GemmImpl::f07_two_ctas_per_sm);
  EXPECT_EQ(kFp32GemmImpls[7], GemmImpl::f08_thread_tile_16x8);
  EXPECT_EQ(kFp32GemmImpls[8], GemmImpl::f09_spread_copies);
  EXPECT_EQ(kFp32GemmImpls[9], GemmImpl::f10_tma_loads);
  EXPECT_EQ(kFp32GemmImpls[10], GemmImpl::f11_stream_k);
  EXPECT_EQ(parse_gemm_impl("F11_Stream_K"), GemmImpl::f11_stream_k);
  EXPECT_EQ(kFp32GemmImpls[11], GemmImpl::f12_operand_copies);
  EXPECT_EQ(parse_gemm_impl("f12_operand_copies"), GemmImpl::f12_operand_copies);
  EXPECT_EQ(parse_gemm_impl("F09_Spread_Copies"), GemmImpl::f09_spread_copies);
  EXPECT_EQ(parse_gemm_impl("f08"), GemmImpl::f08_thread_tile_16x8);
  EXPECT_EQ(parse_gemm_impl("F08_Thread_Tile_16x8"), GemmImpl::f08_thread_tile_16x8);
  for (const char* bad : {"f00", "f13", "f1", "f01_", "f06_vector", "f07_two_ctas"})
    EXPECT_FALSE(parse_gemm_impl(bad).has_value()) << '"' << bad << '"';
}

TEST(GemmTypes, DTypeNamesRoundTrip) {
  for (DType t : {DType::bf16, DType::f16, DType::f32, DType::e4m3, DType::e5m2})
    EXPECT_EQ(parse_dtype(name(t)), t) << name(t);
  EXPECT_EQ(parse_dtype("fp8_e4m3"), DType::e4m3);
  EXPECT_EQ(parse_dtype("fp8_e5m2"), DType::e5m2);
  EXPECT_FALSE(parse_dtype("fp8").has_value());  // which of the two: said, never guessed
  EXPECT_EQ(parse_dtype("bf16"), DType::bf16);
  EXPECT_EQ(parse_dtype("fp16"), DType::f16);
  EXPECT_EQ(parse_dtype("f16"), DType::f16);
  EXPECT_EQ(parse_dtype("fp32"), DType::f32);
  EXPECT_EQ(parse_dtype("f32"), DType::f32);
  // Types stay exact, as both copies had them (the CLI trims spaces first).
  for (const char* bad : {"", "half", "float", "bf32", "int8", "BF16", " bf16"})
    EXPECT_FALSE(parse_dtype(bad).has_value()) << '"' << bad << '"';
  EXPECT_EQ(size_bytes(DType::bf16), 2);
  EXPECT_EQ(size_bytes(DType::f16), 2);
  EXPECT_EQ(size_bytes(DType::f32), 4);
  EXPECT_EQ(size_bytes(DType::e4m3), 1);
  EXPECT_EQ(size_bytes(DType::e5m2), 1);
  EXPECT_TRUE(is_fp8(DType::e4m3) && is_fp8(DType::e5m2));
  EXPECT_FALSE(is_fp8(DType::bf16) || is_fp8(DType::f16) || is_fp8(DType::f32));
}

TEST(GemmTypes, LayoutNamesRoundTrip) {
  for (GemmLayout l : kAllGemmLayouts) EXPECT_EQ(parse_gemm_layout(name(l)), l) << name(l);
  EXPECT_EQ(name(GemmLayout{MajorA::k, MajorB::n}), "A:k,B:n");
  EXPECT_EQ(name(GemmLayout{MajorA::m, MajorB::k}), "A:m,B:k");
  EXPECT_EQ(parse_gemm_layout("A:k,B:n"), (GemmLayout{MajorA::k, MajorB::n}));
  EXPECT_EQ(parse_gemm_layout("B:k, A:m"), (GemmLayout{MajorA::m, MajorB::k}));  // any order, spaces
  EXPECT_EQ(parse_gemm_layout(" A:m , B:n "), (GemmLayout{MajorA::m, MajorB::n}));
  EXPECT_EQ(parse_gemm_layout("a : k ,\tb : n"), (GemmLayout{MajorA::k, MajorB::n}));  // spaces anywhere
  EXPECT_EQ(parse_gemm_layout("mk"), (GemmLayout{MajorA::m, MajorB::k}));
  EXPECT_EQ(parse_gemm_layout("kn"), (GemmLayout{MajorA::k, MajorB::n}));
  EXPECT_EQ(parse_gemm_layout("kk"), (GemmLayout{MajorA::k, MajorB::k}));
  EXPECT_EQ(parse_gemm_layout("mn"), (GemmLayout{MajorA::m, MajorB::n}));
  EXPECT_EQ(parse_gemm_layout("KN"), (GemmLayout{MajorA::k, MajorB::n}));  // case-insensitive
  EXPECT_EQ(parse_gemm_layout(" m k "), (GemmLayout{MajorA::m, MajorB::k}));
  for (const char* bad :
       {"",        "k",       "knn",     "nk",       "xk",       "kx",       "A:k",     "B:n",         "A:k,A:m",
        "B:n,B:k", "A:n,B:n", "A:k,B:m", "A:k,B:n,", ",A:k,B:n", "A:k,,B:n", "A:k;B:n", "A:k,B:n,A:m", "A:kB:n,",
        "A,k:B:n", "Ak:,B:n", "all",     "A:k,B:nn"})
    EXPECT_FALSE(parse_gemm_layout(bad).has_value()) << '"' << bad << '"';
}

// The fused epilogue's names (GemmEpilogue, host/gemm.hpp): round trips,
// case ignored, unknown words rejected.
TEST(GemmTypes, EpilogueNamesRoundTrip) {
  for (Activation a : kAllActivations) {
    EXPECT_EQ(parse_activation(name(a)), a) << name(a);
    std::string upper = name(a);
    for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    EXPECT_EQ(parse_activation(upper), a) << upper;
  }
  for (BiasKind b : kAllBiasKinds) EXPECT_EQ(parse_bias_kind(name(b)), b) << name(b);
  EXPECT_EQ(parse_bias_kind("column"), BiasKind::col);
  EXPECT_EQ(std::string(name(Activation::gelu_tanh)), "gelu_tanh");
  EXPECT_EQ(std::string(name(BiasKind::col)), "col");
  for (const char* bad : {"", "gelu", "re lu", "relu ", "swish", "tanh"}) EXPECT_FALSE(parse_activation(bad)) << bad;
  for (const char* bad : {"", "rows", "c", "both"}) EXPECT_FALSE(parse_bias_kind(bad)) << bad;
}
