// `tessel bench gemm` without a GPU: size lists and ranges, the problem
// product, the other flags and their errors, suite reading, CSV and JSON
// writing, and the summary (tools/tessel/bench_gemm_args.hpp).
#include "bench_gemm_args.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>  // getpid: a file name of our own in the temporary directory

namespace {

using namespace tessel;
using namespace tessel::bench;
using Values = std::vector<std::int64_t>;

Values extents(const std::string& text) {
  Values v;
  std::string error;
  EXPECT_TRUE(parse_extent_list(text, "--m", v, error)) << text << ": " << error;
  return v;
}

std::string extent_error(const std::string& text) {
  Values v;
  std::string error;
  EXPECT_FALSE(parse_extent_list(text, "--m", v, error)) << text;
  return error;
}

GemmBenchArgs mnk(const std::string& m, const std::string& n, const std::string& k) {
  GemmBenchArgs a;
  a.m = m;
  a.n = n;
  a.k = k;
  return a;
}

GemmBenchOptions parse_ok(const GemmBenchArgs& a) {
  GemmBenchOptions o;
  std::string error;
  EXPECT_TRUE(parse_gemm_bench_args(a, o, error)) << error;
  return o;
}

std::string parse_error(const GemmBenchArgs& a) {
  GemmBenchOptions o;
  std::string error;
  EXPECT_FALSE(parse_gemm_bench_args(a, o, error));
  EXPECT_EQ(error.find('\n'), std::string::npos) << "one line: " << error;
  return error;
}

/// A CSV line back into fields (RFC 4180 quoting), to check the writer.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        out.back() += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// ------------------------------------------------------------------ sizes

TEST(BenchGemmExtents, SingleListRangeMixed) {
  EXPECT_EQ(extents("4096"), (Values{4096}));
  EXPECT_EQ(extents("1024,2048"), (Values{1024, 2048}));
  EXPECT_EQ(extents("1024:8192:1024"), (Values{1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192}));
  EXPECT_EQ(extents("16,1024:3072:1024,4097"), (Values{16, 1024, 2048, 3072, 4097}));
  EXPECT_EQ(extents(" 64 , 128 "), (Values{64, 128}));
}

TEST(BenchGemmExtents, RangeEdges) {
  EXPECT_EQ(extents("8:8:1"), (Values{8}));         // start == stop
  EXPECT_EQ(extents("1:10:4"), (Values{1, 5, 9}));  // stop not hit: it is an upper bound
  EXPECT_EQ(extents("1:2:100"), (Values{1}));
  EXPECT_EQ(extents("2147483646:2147483647:1000000000"), (Values{2147483646}));  // no overflow past stop
}

TEST(BenchGemmExtents, DuplicatesKeepFirstOrder) {
  EXPECT_EQ(extents("2048,1024,2048"), (Values{2048, 1024}));
  EXPECT_EQ(extents("1024:4096:1024,2048"), (Values{1024, 2048, 3072, 4096}));
}

TEST(BenchGemmExtents, Errors) {
  auto has = [](const std::string& error, const std::string& part) {
    EXPECT_NE(error.find(part), std::string::npos) << "'" << error << "' should mention '" << part << "'";
    EXPECT_EQ(error.rfind("--m", 0), 0u) << "the message names the flag: " << error;
  };
  has(extent_error("0"), "zero");
  has(extent_error("-5"), "negative");
  has(extent_error("abc"), "not a positive integer");
  has(extent_error("4k"), "not a positive integer");
  has(extent_error("1.5"), "not a positive integer");
  has(extent_error("99999999999"), "too large");
  has(extent_error(""), "empty");
  has(extent_error("1024,,2048"), "empty entry");
  has(extent_error("1024,"), "empty entry");
  has(extent_error("1:8:0"), "step 0");
  has(extent_error("8:1:1"), "start > stop");
  has(extent_error("0:8:1"), "start");
  has(extent_error("1:x:1"), "stop");
  has(extent_error("1:8"), "start:stop:step");
  has(extent_error("1:8:1:1"), "start:stop:step");
  has(extent_error("1:100000:1"), "more than");
}

// ------------------------------------------------------------------ names

// The names themselves are tessel's (tessel/gemm_types.hpp; their own tests
// are in tests/cuda/gemm_api_test.cpp, which needs the CUDA build).  These
// check the grammar the command line relies on, without CUDA.

TEST(BenchGemmNames, Layouts) {
  const GemmLayout kn{MajorA::k, MajorB::n}, kk{MajorA::k, MajorB::k}, mn{MajorA::m, MajorB::n},
      mk{MajorA::m, MajorB::k};
  EXPECT_EQ(parse_gemm_layout("A:k,B:n"), kn);
  EXPECT_EQ(parse_gemm_layout("B:n,A:k"), kn);
  EXPECT_EQ(parse_gemm_layout(" a:K , b:N "), kn);
  EXPECT_EQ(parse_gemm_layout("kn"), kn);
  EXPECT_EQ(parse_gemm_layout("kk"), kk);
  EXPECT_EQ(parse_gemm_layout("MN"), mn);
  EXPECT_EQ(parse_gemm_layout("A:m,B:k"), mk);
  for (const char* bad : {"", "nk", "km,", "A:k", "A:k,B:n,A:k", "A:k,A:m", "A:n,B:n", "A:k;B:n", "all", "knn"})
    EXPECT_FALSE(parse_gemm_layout(bad)) << bad;
  for (GemmLayout l : kAllGemmLayouts) EXPECT_EQ(parse_gemm_layout(name(l)), l);
  EXPECT_EQ(name(mk), "A:m,B:k");
}

TEST(BenchGemmNames, TypesAndSteps) {
  EXPECT_EQ(parse_dtype("bf16"), DType::bf16);
  EXPECT_EQ(parse_dtype("f16"), DType::f16);
  EXPECT_EQ(parse_dtype("fp32"), DType::f32);
  EXPECT_FALSE(parse_dtype("fp8"));
  EXPECT_STREQ(name(DType::f16), "fp16");
  EXPECT_EQ(parse_gemm_impl("k01"), GemmImpl::k01_naive);
  EXPECT_EQ(parse_gemm_impl("k04_mma_sync"), GemmImpl::k04_mma_sync);
  EXPECT_EQ(parse_gemm_impl("k09_tma_mbarriers"), GemmImpl::k09_tma_mbarriers);
  EXPECT_EQ(parse_gemm_impl("k10"), GemmImpl::k10_persistent_warpgroup);
  EXPECT_EQ(parse_gemm_impl("k11_tma_store_epilogue"), GemmImpl::k11_tma_store_epilogue);
  EXPECT_EQ(parse_gemm_impl("K04"), GemmImpl::k04_mma_sync);  // --impl ignores case
  EXPECT_EQ(parse_gemm_impl("k13"), GemmImpl::k13_wgmma_in_flight);
  EXPECT_EQ(parse_gemm_impl("AUTO"), GemmImpl::automatic);  // the plan chooses
  EXPECT_EQ(parse_gemm_impl("k14"), GemmImpl::k14_cluster_multicast);
  EXPECT_EQ(parse_gemm_impl("k15"), GemmImpl::k15_pingpong);
  EXPECT_FALSE(parse_gemm_impl("k16"));
  EXPECT_FALSE(parse_gemm_impl("k09_best_mma_sync"));  // the name of k09 before it was split into k09..k11
  EXPECT_FALSE(parse_gemm_impl("cublas"));
  for (GemmImpl g : kAllGemmImpls) {
    EXPECT_EQ(parse_gemm_impl(short_name(g)), g);
    EXPECT_EQ(parse_gemm_impl(name(g)), g);
  }
  // The fp32 ladder.
  EXPECT_EQ(parse_gemm_impl("f01"), GemmImpl::f01_naive);
  EXPECT_EQ(parse_gemm_impl("F06"), GemmImpl::f06_vector_smem);
  EXPECT_EQ(parse_gemm_impl("f05_warp_tiling"), GemmImpl::f05_warp_tiling);
  EXPECT_EQ(parse_gemm_impl("F07"), GemmImpl::f07_two_ctas_per_sm);
  EXPECT_EQ(parse_gemm_impl("F11"), GemmImpl::f11_stream_k);
  EXPECT_EQ(parse_gemm_impl("F12"), GemmImpl::f12_operand_copies);
  EXPECT_FALSE(parse_gemm_impl("f13"));
  for (GemmImpl g : kFp32GemmImpls) {
    EXPECT_EQ(parse_gemm_impl(short_name(g)), g);
    EXPECT_EQ(parse_gemm_impl(name(g)), g);
    EXPECT_TRUE(is_fp32_step(g));
  }
  for (GemmImpl g : kAllGemmImpls) EXPECT_FALSE(is_fp32_step(g));
}

// ------------------------------------------------------------------ options

TEST(BenchGemmArgs, Defaults) {
  const GemmBenchOptions o = parse_ok(mnk("4096", "4096", "4096"));
  ASSERT_EQ(o.problems.size(), 1u);
  const GemmProblem& p = o.problems[0];
  EXPECT_EQ(p.group, "cli");
  EXPECT_EQ(shape_name(p), "4096x4096x4096");
  EXPECT_EQ(p.in, DType::bf16);
  EXPECT_EQ(p.out, DType::bf16);
  EXPECT_EQ(p.layout, (GemmLayout{MajorA::k, MajorB::n}));
  EXPECT_EQ(p.alpha, 1.0);
  EXPECT_EQ(p.beta, 0.0);
  EXPECT_EQ(o.steps, (std::vector<GemmImpl>{GemmImpl::automatic}));  // the plan's choice
  EXPECT_TRUE(o.cublas_rows);
  EXPECT_EQ(o.iterations, 50);
  EXPECT_EQ(o.timed_ms, 200);  // the protocol's minimum
  EXPECT_EQ(o.warmup, 10);
  EXPECT_EQ(o.repeat, 1);
  EXPECT_EQ(o.verify, VerifyTier::tier2);
  EXPECT_EQ(o.flush, L2Flush::read);             // docs/bench-protocol.md §2: flush by reading
  EXPECT_EQ(o.order, TimingOrder::interleaved);  // §3: every implementation of a problem in one loop
  EXPECT_EQ(o.csv, "");
  EXPECT_EQ(o.json, "");
}

TEST(BenchGemmArgs, CartesianProduct) {
  GemmBenchArgs a = mnk("1024,2048", "512:1536:512", "64");
  a.layouts = {"kn;mk"};
  const GemmBenchOptions o = parse_ok(a);
  ASSERT_EQ(o.problems.size(), 2u * 3u * 1u * 2u);
  // m outermost, then n, k, and the layouts innermost.
  EXPECT_EQ(shape_name(o.problems[0]), "1024x512x64");
  EXPECT_EQ(name(o.problems[0].layout), "A:k,B:n");
  EXPECT_EQ(name(o.problems[1].layout), "A:m,B:k");
  EXPECT_EQ(shape_name(o.problems[2]), "1024x1024x64");
  EXPECT_EQ(shape_name(o.problems.back()), "2048x1536x64");
}

TEST(BenchGemmArgs, Layouts) {
  GemmBenchArgs a = mnk("64", "64", "64");
  a.layouts = {"all"};
  EXPECT_EQ(parse_ok(a).problems.size(), 4u);
  a.layouts = {"A:m,B:n", "kn", "A:m, B:n"};  // repeated flag, duplicates dropped
  const GemmBenchOptions o = parse_ok(a);
  ASSERT_EQ(o.problems.size(), 2u);
  EXPECT_EQ(name(o.problems[0].layout), "A:m,B:n");
  EXPECT_EQ(name(o.problems[1].layout), "A:k,B:n");
  a.layouts = {"kn; all"};
  EXPECT_EQ(parse_ok(a).problems.size(), 4u);
  a.layouts = {"A:k,B:x"};
  EXPECT_NE(parse_error(a).find("--layout: 'A:k,B:x' is not a layout"), std::string::npos);
  a.layouts = {"kn;"};
  EXPECT_NE(parse_error(a).find("--layout"), std::string::npos);
}

TEST(BenchGemmArgs, Impls) {
  GemmBenchArgs a = mnk("64", "64", "64");
  a.impls = {"k04,k11"};
  GemmBenchOptions o = parse_ok(a);
  EXPECT_EQ(o.steps, (std::vector<GemmImpl>{GemmImpl::k04_mma_sync, GemmImpl::k11_tma_store_epilogue}));
  EXPECT_FALSE(o.cublas_rows);  // cuBLAS is still measured, but gets no rows of its own
  a.impls = {"cublas"};
  o = parse_ok(a);
  EXPECT_TRUE(o.steps.empty());
  EXPECT_TRUE(o.cublas_rows);
  a.impls = {"all"};
  o = parse_ok(a);
  EXPECT_EQ(o.steps.size(), 15u);                     // the steps, not "auto"
  EXPECT_EQ(o.steps.back(), GemmImpl::k15_pingpong);  // in ladder order
  EXPECT_TRUE(o.cublas_rows);
  // `all` is the ladder of the input type: f01..f12 for fp32.
  a.impls = {"all"};
  a.dtype = "fp32";
  o = parse_ok(a);
  EXPECT_EQ(o.steps, (std::vector<GemmImpl>(std::begin(kFp32GemmImpls), std::end(kFp32GemmImpls))));
  EXPECT_TRUE(o.cublas_rows);
  EXPECT_EQ(o.steps.size(), 12u);  // f01..f12
  a.impls = {"f04,F06_vector_smem,f07"};
  o = parse_ok(a);
  EXPECT_EQ(o.steps, (std::vector<GemmImpl>{GemmImpl::f04_double_buffer, GemmImpl::f06_vector_smem,
                                            GemmImpl::f07_two_ctas_per_sm}));
  a.dtype = "";
  a.impls = {"k10_persistent_warpgroup", "K01, k10,k09", "CUBLAS"};  // repeated flag, long names, spaces, case
  o = parse_ok(a);
  EXPECT_EQ(o.steps, (std::vector<GemmImpl>{GemmImpl::k10_persistent_warpgroup, GemmImpl::k01_naive,
                                            GemmImpl::k09_tma_mbarriers}));
  EXPECT_TRUE(o.cublas_rows);
  a.impls = {"tuned,cublas"};  // auto with measured tuning: a row of its own, no step
  o = parse_ok(a);
  EXPECT_TRUE(o.tuned);
  EXPECT_TRUE(o.steps.empty());
  EXPECT_TRUE(o.cublas_rows);
  a.impls = {"k16"};
  EXPECT_NE(parse_error(a).find("--impl: unknown implementation 'k16'"), std::string::npos);
  EXPECT_NE(parse_error(a).find("k01..k15"), std::string::npos);  // the message lists the steps
  a.impls = {"k01,"};
  EXPECT_NE(parse_error(a).find("--impl"), std::string::npos);
}

TEST(BenchGemmArgs, TypesAndScales) {
  GemmBenchArgs a = mnk("64", "64", "64");
  a.dtype = "fp16";
  GemmBenchOptions o = parse_ok(a);
  EXPECT_EQ(o.problems[0].in, DType::f16);
  EXPECT_EQ(o.problems[0].out, DType::f16);  // the output follows the input by default
  a.out_dtype = "fp32";
  a.alpha = "-2";
  a.beta = "0.1";
  o = parse_ok(a);
  EXPECT_EQ(o.problems[0].out, DType::f32);
  EXPECT_EQ(o.problems[0].alpha, -2.0);
  EXPECT_EQ(o.problems[0].beta, static_cast<double>(0.1f));  // what the kernel sees (GemmArgs holds float)
  a = mnk("64", "64", "64");
  a.dtype = "fp32";  // the fp32 ladder: C and D follow (fp32)
  o = parse_ok(a);
  EXPECT_EQ(o.problems[0].in, DType::f32);
  EXPECT_EQ(o.problems[0].out, DType::f32);
  a.out_dtype = "bf16";  // fp32 inputs take fp32 outputs only
  EXPECT_NE(parse_error(a).find("--out-dtype: fp32 inputs take fp32 C and D"), std::string::npos);
  a = mnk("64", "64", "64");
  a.dtype = "int8";
  EXPECT_NE(parse_error(a).find("--dtype"), std::string::npos);
  a = mnk("64", "64", "64");
  a.out_dtype = "fp64";
  EXPECT_NE(parse_error(a).find("--out-dtype"), std::string::npos);
  a = mnk("64", "64", "64");
  a.alpha = "one";
  EXPECT_NE(parse_error(a).find("--alpha"), std::string::npos);
  a.alpha = "1e40";  // not a float
  EXPECT_NE(parse_error(a).find("--alpha"), std::string::npos);
  a.alpha = "nan";
  EXPECT_NE(parse_error(a).find("--alpha"), std::string::npos);
  a = mnk("64", "64", "64");
  a.beta = "1,5";
  EXPECT_NE(parse_error(a).find("--beta"), std::string::npos);
}

TEST(BenchGemmArgs, Fp8Inputs) {
  GemmBenchArgs a = mnk("64", "64", "64");
  a.dtype = "e4m3";  // FP8: the output bf16 and the layout A:k, B:k unless named
  GemmBenchOptions o = parse_ok(a);
  ASSERT_EQ(o.problems.size(), 1u);
  EXPECT_EQ(o.problems[0].in, DType::e4m3);
  EXPECT_EQ(o.problems[0].out, DType::bf16);
  EXPECT_EQ(o.problems[0].layout, (GemmLayout{MajorA::k, MajorB::k}));
  a.dtype = "e5m2";
  a.out_dtype = "fp32";
  a.layouts = {"kn"};  // named: kept (tessel and cuBLASLt then say what they refuse)
  o = parse_ok(a);
  EXPECT_EQ(o.problems[0].in, DType::e5m2);
  EXPECT_EQ(o.problems[0].out, DType::f32);
  EXPECT_EQ(o.problems[0].layout, (GemmLayout{MajorA::k, MajorB::n}));
  a = mnk("64", "64", "64");
  a.out_dtype = "e4m3";  // FP8 is an input type only
  EXPECT_NE(parse_error(a).find("FP8 is an input type"), std::string::npos);
}

TEST(BenchGemmArgs, Fp8ScalesOnSinglesAndGroups) {
  // Scales in memory: each problem of a group its own; a strided batch with them is refused by name.
  GemmBenchArgs a = mnk("64", "128", "256");
  a.dtype = "e4m3";
  a.scale = "block";
  parse_ok(a);
  a.m = "", a.group_m = "64,128";
  EXPECT_EQ(parse_ok(a).problems[0].fp8_scale, Fp8Scale::block);
  a = mnk("64", "128", "256");
  a.dtype = "e4m3", a.scale = "channel", a.batch = "4";
  EXPECT_NE(parse_error(a).find("--scale channel: scales in memory are benched on single problems and groups"),
            std::string::npos);
}

TEST(BenchGemmArgs, Fp8PairsOfFormats) {
  // A's and B's FP8 formats where they differ: "e4m3xe5m2" (A e4m3, B e5m2), in the dtype column as typed.
  GemmBenchArgs a = mnk("64", "64", "64");
  a.dtype = "e5m2xe4m3";
  GemmBenchOptions o = parse_ok(a);
  ASSERT_EQ(o.problems.size(), 1u);
  EXPECT_EQ(o.problems[0].in, DType::e5m2);
  EXPECT_EQ(o.problems[0].in_b, DType::e4m3);
  EXPECT_EQ(o.problems[0].out, DType::bf16);
  EXPECT_EQ(o.problems[0].layout, (GemmLayout{MajorA::k, MajorB::k}));
  GemmBenchRow r;
  r.problem = o.problems[0];
  EXPECT_EQ(csv_fields(csv_row(DeviceInfo{}, r))[9], "e5m2xe4m3");
  a.dtype = "e4m3";  // one format: no B type of its own
  EXPECT_FALSE(parse_ok(a).problems[0].in_b);
  EXPECT_EQ(input_type_name(DType::e4m3, std::nullopt), "e4m3");
  EXPECT_EQ(input_type_name(DType::e4m3, DType::e4m3), "e4m3");
  for (const char* bad : {"e4m3xe4m3", "bf16xe4m3", "bf16xfp16", "e4m3x", "xe5m2"}) {
    a.dtype = bad;
    EXPECT_NE(parse_error(a).find("--dtype: '" + std::string(bad) + "' is not a type"), std::string::npos) << bad;
  }
  std::istringstream in("group,m,n,k,dtype\ng,64,32,16,e4m3xe5m2\n");
  std::vector<GemmProblem> rows;
  std::string error;
  ASSERT_TRUE(read_suite(in, "s.csv", SuiteDefaults{}, rows, error)) << error;
  EXPECT_EQ(rows[0].in, DType::e4m3);
  EXPECT_EQ(rows[0].in_b, DType::e5m2);
}

TEST(BenchGemmArgs, ProtocolFlags) {
  GemmBenchArgs a = mnk("64", "64", "64");
  a.iterations = "100";
  a.min_ms = "2000";
  a.warmup = "0";
  a.repeat = "2";
  a.verify = "tier1";
  GemmBenchOptions o = parse_ok(a);
  EXPECT_EQ(o.iterations, 100);
  EXPECT_EQ(o.timed_ms, 2000);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_EQ(o.repeat, 2);
  EXPECT_EQ(o.verify, VerifyTier::tier1);
  a.verify = "none";
  EXPECT_EQ(parse_ok(a).verify, VerifyTier::none);
  EXPECT_EQ(o.tuning.tile_n, 0);  // the plan's
  EXPECT_EQ(o.tuning.splits, 0);
  a.tile_n = "192";
  a.splits = "7";
  o = parse_ok(a);
  EXPECT_EQ(o.tuning.tile_n, 192);
  EXPECT_EQ(o.tuning.splits, 7);
  EXPECT_FALSE(o.tuning.split_tail);
  a.split_tail = true;
  EXPECT_TRUE(parse_ok(a).tuning.split_tail);
  a.split_tail = false;
  EXPECT_EQ(o.tuning.swap_ab, SwapAB::plan);
  EXPECT_EQ(o.tuning.raster_group, 0);  // the plan's
  a.raster_group = "16";
  EXPECT_EQ(parse_ok(a).tuning.raster_group, 16);
  a.raster_group = "";
  EXPECT_EQ(o.tuning.stages, 0);  // the launch's
  a.stages = "12";
  EXPECT_EQ(parse_ok(a).tuning.stages, 12);
  a.stages = "";
  a.tile_n = "16";
  a.swap_ab = " On ";
  o = parse_ok(a);
  EXPECT_EQ(o.tuning.tile_n, 16);
  EXPECT_EQ(o.tuning.swap_ab, SwapAB::on);
  a.tile_n = "";
  a.swap_ab = "off";
  EXPECT_EQ(parse_ok(a).tuning.swap_ab, SwapAB::off);
  a.tile_n = "32";  // a swapped width, the swap off
  EXPECT_EQ(parse_error(a).rfind("--tile-n", 0), 0u);
  a.tile_n = "128";  // with the swap on, the 128-row swapped tile 128 x 128
  a.swap_ab = "on";
  EXPECT_EQ(parse_ok(a).tuning.tile_n, 128);
  a.tile_n = "200";  // not a multiple of 16
  EXPECT_EQ(parse_error(a).rfind("--tile-n", 0), 0u);
  a.tile_n = "16";  // the one-warpgroup 64-row tile, swapped
  a.tile_m = "64";
  o = parse_ok(a);
  EXPECT_EQ(o.tuning.tile_m, 64);
  EXPECT_EQ(o.tuning.tile_n, 16);
  a.swap_ab = "off";  // unswapped, the 64-row tile is 64 x 128 only
  a.tile_n = "64";
  EXPECT_EQ(parse_error(a).rfind("--tile-m", 0), 0u);
  a.tile_n = "128";  // the unswapped one-warpgroup tile
  o = parse_ok(a);
  EXPECT_EQ(o.tuning.tile_m, 64);
  EXPECT_EQ(o.tuning.tile_n, 128);
  EXPECT_EQ(o.tuning.swap_ab, SwapAB::off);
  a.tile_n = "";  // its width left to the launcher (128)
  EXPECT_EQ(parse_ok(a).tuning.tile_m, 64);
  a.swap_ab = "";
  a.tile_n = "256";
  EXPECT_EQ(parse_error(a).rfind("--tile-m", 0), 0u);
  a.tile_n = "";
  a.tile_m = "128";
  EXPECT_EQ(parse_ok(a).tuning.tile_m, 128);
  a.tile_m = "";
  // k14's clusters: 2 (pairs) or 4 (2 x 2).
  a.cluster = "4";
  EXPECT_EQ(parse_ok(a).tuning.cluster, 4);
  a.cluster = "3";
  EXPECT_EQ(parse_error(a).rfind("--cluster", 0), 0u);
  a.cluster = "8";
  EXPECT_EQ(parse_error(a).rfind("--cluster", 0), 0u);
  // k13's 1: split K through global memory, not inside clusters.
  a.cluster = "1";
  EXPECT_EQ(parse_ok(a).tuning.cluster, 1);
  a.cluster = "0";
  EXPECT_EQ(parse_error(a).rfind("--cluster", 0), 0u);
  a.cluster = "";
  // k14's shared operand: the plan's by default, A or B by name.
  EXPECT_EQ(parse_ok(a).tuning.cluster_share, ClusterShare::plan);
  a.cluster_share = " A ";
  EXPECT_EQ(parse_ok(a).tuning.cluster_share, ClusterShare::a);
  a.cluster_share = "b";
  EXPECT_EQ(parse_ok(a).tuning.cluster_share, ClusterShare::b);
  a.cluster_share = "c";
  EXPECT_EQ(parse_error(a).rfind("--cluster-share", 0), 0u);
  a.cluster_share = "";
  // Who sums split K's partials: the plan's by default, the last unit or a second kernel by name.
  EXPECT_EQ(parse_ok(a).tuning.split_sum, SplitSum::plan);
  a.split_sum = "kernel";
  EXPECT_EQ(parse_ok(a).tuning.split_sum, SplitSum::second_kernel);
  a.split_sum = " Last ";
  EXPECT_EQ(parse_ok(a).tuning.split_sum, SplitSum::last_unit);
  a.split_sum = "first";
  EXPECT_EQ(parse_error(a).rfind("--split-sum", 0), 0u);
  a.split_sum = "";
  // The swapped widths between the powers of two: the swap on and the 64-row tile, else refused by name.
  a.swap_ab = "on";
  a.tile_m = "64";
  for (const char* w : {"48", "80", "96"}) {
    a.tile_n = w;
    EXPECT_EQ(parse_ok(a).tuning.tile_n, std::stoi(w));
  }
  a.tile_m = "128";  // 80 and 96 are also 128-row swapped widths; 48 is not
  EXPECT_EQ(parse_ok(a).tuning.tile_n, 96);
  a.tile_n = "48";
  EXPECT_EQ(parse_error(a).rfind("--tile-n", 0), 0u);
  // The 128-row swapped widths: multiples of 16 from 80 to 256, the swap on; not on one warpgroup.
  a.tile_m = "";
  for (const char* w : {"80", "112", "176", "240", "256"}) {
    a.tile_n = w;
    EXPECT_EQ(parse_ok(a).tuning.tile_n, std::stoi(w));
  }
  a.tile_m = "64";
  a.tile_n = "112";
  EXPECT_EQ(parse_error(a).rfind("--tile-", 0), 0u);
  // Unswapped, the same widths but the powers of two are 128 rows of M by that much of N (fitted to a thin N).
  a.tile_m = "";
  a.swap_ab = "off";
  for (const char* w : {"80", "160", "240"}) {
    a.tile_n = w;
    EXPECT_EQ(parse_ok(a).tuning.tile_n, std::stoi(w));
  }
  a.tile_m = "64";  // not on one warpgroup
  EXPECT_EQ(parse_error(a).rfind("--tile-m", 0), 0u);
  a.tile_m = "";
  a.swap_ab = "";
  a.tile_n = "";
  for (auto [field, flag, bad] :
       {std::tuple{&GemmBenchArgs::iterations, "--iterations", "0"},
        std::tuple{&GemmBenchArgs::iterations, "--iterations", "x"},
        std::tuple{&GemmBenchArgs::min_ms, "--min-ms", "100"},  // under the protocol's 200 ms
        std::tuple{&GemmBenchArgs::warmup, "--warmup", "-1"}, std::tuple{&GemmBenchArgs::repeat, "--repeat", "0"},
        std::tuple{&GemmBenchArgs::repeat, "--repeat", "1000"}, std::tuple{&GemmBenchArgs::verify, "--verify", "tier3"},
        std::tuple{&GemmBenchArgs::tile_n, "--tile-n", "48"}, std::tuple{&GemmBenchArgs::tile_n, "--tile-n", "200"},
        std::tuple{&GemmBenchArgs::tile_n, "--tile-n", "8"}, std::tuple{&GemmBenchArgs::swap_ab, "--swap-ab", "yes"},
        std::tuple{&GemmBenchArgs::splits, "--splits", "0"}, std::tuple{&GemmBenchArgs::splits, "--splits", "65"},
        std::tuple{&GemmBenchArgs::raster_group, "--raster-group", "0"},
        std::tuple{&GemmBenchArgs::raster_group, "--raster-group", "65537"},
        std::tuple{&GemmBenchArgs::stages, "--stages", "0"}, std::tuple{&GemmBenchArgs::stages, "--stages", "65"},
        std::tuple{&GemmBenchArgs::tile_m, "--tile-m", "96"}, std::tuple{&GemmBenchArgs::tile_m, "--tile-m", "32"}}) {
    GemmBenchArgs b = mnk("64", "64", "64");
    b.*field = bad;
    EXPECT_EQ(parse_error(b).rfind(flag, 0), 0u) << flag << " " << bad;
  }
}

/// --jit and TESSEL_JIT (main.cpp puts either into GemmBenchArgs::jit): GemmTuning::jit.
TEST(BenchGemmArgs, Jit) {
  GemmBenchArgs a = mnk("64", "64", "64");
  EXPECT_EQ(parse_ok(a).tuning.jit, GemmJit::off);  // the default
  for (const char* on : {"on", "1", " ON "}) {
    a.jit = on;
    EXPECT_EQ(parse_ok(a).tuning.jit, GemmJit::on) << on;
  }
  a.jit = "always";
  EXPECT_EQ(parse_ok(a).tuning.jit, GemmJit::always);
  for (const char* off : {"off", "0"}) {
    a.jit = off;
    EXPECT_EQ(parse_ok(a).tuning.jit, GemmJit::off) << off;
  }
  a.jit = "yes";
  EXPECT_EQ(parse_error(a).rfind("--jit", 0), 0u) << parse_error(a);
}

TEST(BenchGemmArgs, Flush) {
  GemmBenchArgs a = mnk("64", "64", "64");
  a.flush = "memset";
  EXPECT_EQ(parse_ok(a).flush, L2Flush::memset);
  a.flush = " READ ";  // case and spaces ignored, as --verify
  EXPECT_EQ(parse_ok(a).flush, L2Flush::read);
  EXPECT_STREQ(flush_name(L2Flush::read), "read");
  EXPECT_STREQ(flush_name(L2Flush::memset), "memset");
  for (const char* bad : {"write", "none", "read,memset", "0"}) {
    a.flush = bad;
    const std::string error = parse_error(a);
    EXPECT_EQ(error.rfind("--flush: '", 0), 0u) << error;
    EXPECT_NE(error.find("is not read or memset"), std::string::npos) << error;
  }
}

TEST(BenchGemmArgs, Order) {
  GemmBenchArgs a = mnk("64", "64", "64");
  a.order = "blocks";
  EXPECT_EQ(parse_ok(a).order, TimingOrder::blocks);
  a.order = " Interleaved ";  // case and spaces ignored, as --flush
  EXPECT_EQ(parse_ok(a).order, TimingOrder::interleaved);
  EXPECT_STREQ(order_name(TimingOrder::interleaved), "interleaved");
  EXPECT_STREQ(order_name(TimingOrder::blocks), "blocks");
  a.order = "none";  // verify only (compute-sanitizer runs): the timing column says so
  EXPECT_EQ(parse_ok(a).order, TimingOrder::none);
  EXPECT_STREQ(order_name(TimingOrder::none), "none");
  for (const char* bad : {"alternate", "block", "interleaved,blocks", "1", "no"}) {
    a.order = bad;
    const std::string error = parse_error(a);
    EXPECT_EQ(error.rfind("--order: '", 0), 0u) << error;
    EXPECT_NE(error.find("is not interleaved, blocks or none"), std::string::npos) << error;
  }
}

/// --heat-ms: untimed launches before a problem's first timed loop.  By
/// default blocks heat for one block (--min-ms), interleaved not at all.
TEST(BenchGemmArgs, Heat) {
  GemmBenchArgs a = mnk("64", "64", "64");
  EXPECT_EQ(parse_ok(a).heat_ms, 0);  // interleaved: one shared clock
  a.order = "blocks";
  EXPECT_EQ(parse_ok(a).heat_ms, 200);
  a.min_ms = "2000";
  EXPECT_EQ(parse_ok(a).heat_ms, 2000);
  a.heat_ms = "0";
  EXPECT_EQ(parse_ok(a).heat_ms, 0);
  a.heat_ms = "500";
  EXPECT_EQ(parse_ok(a).heat_ms, 500);
  a.order = "interleaved";
  EXPECT_EQ(parse_ok(a).heat_ms, 500);  // given: kept
  for (const char* bad : {"-1", "x", "700000"}) {
    a.heat_ms = bad;
    EXPECT_EQ(parse_error(a).rfind("--heat-ms", 0), 0u) << bad;
  }
  a.heat_ms = "100";
  a.order = "none";  // times nothing
  EXPECT_EQ(parse_error(a), "--heat-ms: --order none times nothing");
}

// --epilogue and --bias: every name, the bias kind, the rejected words and
// pairs; every problem carries the epilogue, and the CSV/JSON name it.
TEST(BenchGemmArgs, Epilogue) {
  GemmBenchArgs a = mnk("64", "64,128", "64");
  GemmBenchOptions o = parse_ok(a);
  for (const GemmProblem& p : o.problems) EXPECT_EQ(p.epilogue, BenchEpilogue{});
  struct Want {
    const char* name;
    Activation act;
    bool bias;
  };
  for (const Want& w :
       {Want{"none", Activation::none, false}, Want{"bias", Activation::none, true},
        Want{"relu", Activation::relu, false}, Want{"bias_relu", Activation::relu, true},
        Want{"gelu_erf", Activation::gelu_erf, false}, Want{"bias_gelu_erf", Activation::gelu_erf, true},
        Want{"gelu_tanh", Activation::gelu_tanh, false}, Want{"bias_gelu_tanh", Activation::gelu_tanh, true},
        Want{"silu", Activation::silu, false}, Want{"bias_silu", Activation::silu, true}}) {
    a.epilogue = w.name;
    a.bias.clear();
    o = parse_ok(a);
    ASSERT_EQ(o.problems.size(), 2u);
    for (const GemmProblem& p : o.problems) {
      EXPECT_EQ(p.epilogue.act, w.act) << w.name;
      EXPECT_EQ(p.epilogue.bias, w.bias ? BiasKind::col : BiasKind::none) << w.name;
      EXPECT_EQ(epilogue_name(p.epilogue), w.name);  // the name round-trips
    }
    if (!w.bias) continue;
    a.bias = " Row ";  // case and spaces ignored, as --order
    o = parse_ok(a);
    EXPECT_EQ(o.problems[0].epilogue.bias, BiasKind::row) << w.name;
    EXPECT_EQ(epilogue_name(o.problems[0].epilogue), std::string(w.name) + "@row");
    a.bias = "col";
    EXPECT_EQ(parse_ok(a).problems[0].epilogue.bias, BiasKind::col) << w.name;
  }
  a.bias.clear();
  // gelu is the erf GELU, as in PyTorch and tessel.gemm; the CSV names it explicitly.
  a.epilogue = " BIAS_GELU ";
  EXPECT_EQ(parse_ok(a).problems[0].epilogue.act, Activation::gelu_erf);
  EXPECT_EQ(epilogue_name(parse_ok(a).problems[0].epilogue), "bias_gelu_erf");
  a.epilogue = "gelu";
  EXPECT_EQ(parse_ok(a).problems[0].epilogue.act, Activation::gelu_erf);
  for (const char* bad : {"gelu_exact", "bias-gelu", "swish", "bias,relu", "1"}) {
    a.epilogue = bad;
    const std::string error = parse_error(a);
    EXPECT_EQ(error.rfind("--epilogue: '", 0), 0u) << error;
    EXPECT_NE(error.find("is not none, bias, relu"), std::string::npos) << error;
  }
  a.epilogue = "bias";
  a.bias = "both";
  EXPECT_EQ(parse_error(a).rfind("--bias: 'both' is not row or col", 0), 0u) << parse_error(a);
  a.epilogue = "gelu";  // no bias to place
  a.bias = "row";
  EXPECT_NE(parse_error(a).find("needs an --epilogue with a bias"), std::string::npos) << parse_error(a);
  a.epilogue.clear();
  EXPECT_NE(parse_error(a).find("needs an --epilogue with a bias"), std::string::npos) << parse_error(a);
  // Tier 1 is exact only for the piecewise-linear epilogues.
  a = mnk("64", "64", "64");
  a.verify = "tier1";
  for (const char* ok : {"none", "bias", "relu", "bias_relu"}) {
    a.epilogue = ok;
    EXPECT_EQ(parse_ok(a).verify, VerifyTier::tier1) << ok;
  }
  for (const char* bad : {"gelu", "bias_gelu_erf", "silu"}) {
    a.epilogue = bad;
    EXPECT_NE(parse_error(a).find("--verify tier1: --epilogue"), std::string::npos) << bad;
  }
  // The CSV's epilogue column.
  GemmBenchRow r;
  r.impl = "auto:unfused";
  r.problem.epilogue = BenchEpilogue{Activation::gelu_erf, BiasKind::row};
  const std::vector<std::string> f = csv_fields(csv_row(DeviceInfo{}, r));
  EXPECT_EQ(f[f.size() - 6], "bias_gelu_erf@row");  // then batch, group_m, heat_ms and the reference's two
  EXPECT_EQ(f[3], "auto:unfused");
}

TEST(BenchGemmArgs, Tier1NeedsExactArithmetic) {
  GemmBenchArgs a = mnk("64", "64", "4096");
  a.verify = "tier1";
  a.alpha = "2";
  a.beta = "-3";
  parse_ok(a);
  a.alpha = "0.5";
  EXPECT_NE(parse_error(a).find("integer alpha and beta"), std::string::npos);
  a.alpha = "1";
  a.k = "1048576";  // 16 * 2^20 = 2^24: partial sums may stop being exact
  EXPECT_NE(parse_error(a).find("2^24"), std::string::npos);
  a.verify = "tier2";  // tier 2 has no such limit
  parse_ok(a);
}

TEST(BenchGemmArgs, ProblemSourceAndOutputs) {
  GemmBenchArgs a = mnk("64", "64", "");
  EXPECT_NE(parse_error(a).find("--k is required"), std::string::npos);
  a = GemmBenchArgs{};
  EXPECT_NE(parse_error(a).find("--m is required"), std::string::npos);
  a = mnk("0", "64", "64");
  EXPECT_EQ(parse_error(a).rfind("--m: '0' is zero", 0), 0u);
  a = mnk("0", "", "");  // a bad value is reported before the missing flags
  EXPECT_EQ(parse_error(a).rfind("--m: '0' is zero", 0), 0u);
  a = mnk("64", "1:8:0", "64");
  EXPECT_EQ(parse_error(a).rfind("--n: range '1:8:0' has step 0", 0), 0u);
  a = mnk("64", "64", "64");
  a.suite = std::string(TESSEL_TEST_DATA) + "/bench_suite.csv";
  EXPECT_NE(parse_error(a).find("--suite replaces --m/--n/--k"), std::string::npos);
  a = GemmBenchArgs{};
  a.suite = std::string(TESSEL_TEST_DATA) + "/no_such_suite.csv";
  EXPECT_NE(parse_error(a).find("--suite: cannot read"), std::string::npos);
  a = mnk("64", "64", "64");
  a.json = "-";
  EXPECT_NE(parse_error(a).find("--json -"), std::string::npos);
  a.csv = "out.csv";
  parse_ok(a);
}

// ------------------------------------------------------------------ suites

TEST(BenchGemmSuite, ProtocolSuite) {
  GemmBenchArgs a;
  a.suite = std::string(TESSEL_TEST_DATA) + "/bench_suite.csv";  // the suite of docs/bench-protocol.md §6
  const GemmBenchOptions o = parse_ok(a);
  ASSERT_EQ(o.problems.size(), 21u);
  std::map<std::string, int> groups;
  for (const GemmProblem& p : o.problems) {
    ++groups[p.group];
    EXPECT_EQ(p.in, DType::bf16);
    EXPECT_EQ(p.out, DType::bf16);
    EXPECT_EQ(p.layout, (GemmLayout{MajorA::k, MajorB::n}));
    EXPECT_EQ(p.alpha, 1.0);
    EXPECT_EQ(p.beta, 0.0);
  }
  EXPECT_EQ(groups,
            (std::map<std::string, int>{{"square", 7}, {"llm", 5}, {"small_m", 4}, {"odd", 3}, {"skinny_k", 2}}));
  EXPECT_EQ(o.problems.front().group, "square");
  EXPECT_EQ(shape_name(o.problems.front()), "1024x1024x1024");
  EXPECT_EQ(shape_name(o.problems[7]), "8192x28672x8192");
  EXPECT_EQ(shape_name(o.problems.back()), "16384x16384x128");
  EXPECT_EQ(o.suite, a.suite);

  a.layouts = {"all"};  // a row without a layout runs every --layout
  a.dtype = "fp16";
  const GemmBenchOptions all = parse_ok(a);
  ASSERT_EQ(all.problems.size(), 84u);
  EXPECT_EQ(all.problems[0].in, DType::f16);
  EXPECT_EQ(name(all.problems[3].layout), "A:m,B:k");
}

TEST(BenchGemmSuite, ExtraColumnsOverride) {
  std::istringstream in(
      "# a comment\r\n"
      "m,group,n,k,dtype,out_dtype,layout,alpha,beta,source\r\n"
      "\r\n"
      "64,a,32,16,,,,,,paper\r\n"
      "64,b,32,16,fp16,fp32,\"A:m,B:k\",2,0.5,\"x, y\"\r\n"
      "  # an indented comment\n"
      "64,c,32,16,fp16,,kn;mk,,1,\n");
  SuiteDefaults d;
  d.beta = 0.25;
  std::vector<GemmProblem> out;
  std::string error;
  ASSERT_TRUE(read_suite(in, "s.csv", d, out, error)) << error;
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].group, "a");
  EXPECT_EQ(shape_name(out[0]), "64x32x16");
  EXPECT_EQ(out[0].in, DType::bf16);
  EXPECT_EQ(out[0].beta, 0.25);  // empty cell: the default
  EXPECT_EQ(out[1].in, DType::f16);
  EXPECT_EQ(out[1].out, DType::f32);
  EXPECT_EQ(name(out[1].layout), "A:m,B:k");
  EXPECT_EQ(out[1].alpha, 2.0);
  EXPECT_EQ(out[1].beta, 0.5);
  EXPECT_EQ(out[2].out, DType::f16);  // no out_dtype: the row's input type
  EXPECT_EQ(name(out[2].layout), "A:k,B:n");
  EXPECT_EQ(name(out[3].layout), "A:m,B:k");
}

TEST(BenchGemmSuite, Errors) {
  auto error_of = [](const std::string& text) {
    std::istringstream in(text);
    std::vector<GemmProblem> out;
    std::string error;
    EXPECT_FALSE(read_suite(in, "s.csv", SuiteDefaults{}, out, error)) << text;
    return error;
  };
  EXPECT_NE(error_of("").find("s.csv: empty"), std::string::npos);
  EXPECT_NE(error_of("group,m,n,k\n").find("no problems"), std::string::npos);
  EXPECT_NE(error_of("group,m,n\nx,1,2\n").find("s.csv line 1: the header must name"), std::string::npos);
  EXPECT_NE(error_of("group,m,n,k\nx,1,2\n").find("s.csv line 2: 3 fields"), std::string::npos);
  EXPECT_NE(error_of("group,m,n,k\n\nx,1,0,4\n").find("s.csv line 3: n: '0' is zero"), std::string::npos);
  EXPECT_NE(error_of("group,m,n,k\nx,1,-2,4\n").find("negative"), std::string::npos);
  EXPECT_NE(error_of("group,m,n,k\n\"x,1,2,4\n").find("unterminated quote"), std::string::npos);
  EXPECT_NE(error_of("group,m,n,k,layout\nx,1,2,4,xy\n").find("layout: 'xy' is not a layout"), std::string::npos);
  EXPECT_NE(error_of("group,m,n,k,dtype\nx,1,2,4,fp64\n").find("dtype"), std::string::npos);
  EXPECT_NE(error_of("group,m,m,k\n").find("appears twice"), std::string::npos);
}

// ------------------------------------------------------------------ writers

GemmBenchRow sample_row() {
  GemmBenchRow r;
  r.impl = "k09";
  r.repeat = 2;
  r.problem.group = "square";
  r.problem.m = 4096;
  r.problem.n = 2048;
  r.problem.k = 1024;
  r.problem.out = DType::f32;
  r.problem.layout = GemmLayout{MajorA::m, MajorB::n};
  r.problem.alpha = 1.0;
  r.problem.beta = static_cast<double>(0.1f);
  r.verify = "tier2";
  r.disposition = "passed";
  r.note = "a \"quoted\" note, with a comma";
  r.max_err = 0.25;
  r.cublas_max_err = 0.125;
  r.cublas_disposition = "passed";
  r.median_ms = 0.5;
  r.min_ms = 0.25;
  r.p90_ms = 0.75;
  r.tflops = 34.3597;
  r.cublas_median_ms = 0.4;
  r.cublas_tflops = 42.9497;
  r.ratio = 0.8;
  r.gbytes_per_s = 104.858;
  r.cublas_gbytes_per_s = 131.072;
  r.l2_flush = "read";
  r.sm_clock_mhz = 1755;
  r.power_w = 612.5;
  r.cublas_sm_clock_mhz = 1740.25;
  r.cublas_power_w = 650;
  r.timing = "interleaved";
  r.heat_ms = 2000;
  r.cublas_reference = "cublas";
  r.cublas_reduction = "output_type x4";
  return r;
}

DeviceInfo sample_device() {
  DeviceInfo d;
  d.gpu = "NVIDIA H100 80GB HBM3";
  d.sm_count = 132;
  d.cc_major = 9;
  d.commit = "abc1234";
  d.driver_version = "580.159.04";
  d.l2_bytes = 52428800;
  return d;
}

TEST(BenchGemmWriters, CsvHeaderAndRow) {
  const std::vector<std::string> header = csv_fields(csv_header());
  const std::vector<std::string> want = {"gpu",
                                         "sm_count",
                                         "commit",
                                         "impl",
                                         "group",
                                         "repeat",
                                         "m",
                                         "n",
                                         "k",
                                         "dtype",
                                         "out_dtype",
                                         "layout",
                                         "alpha",
                                         "beta",
                                         "verify",
                                         "disposition",
                                         "note",
                                         "max_err",
                                         "cublas_max_err",
                                         "cublas_disposition",
                                         "median_ms",
                                         "min_ms",
                                         "p90_ms",
                                         "tflops",
                                         "cublas_median_ms",
                                         "cublas_tflops",
                                         "ratio",
                                         "gbytes_per_s",
                                         "cublas_gbytes_per_s",
                                         "l2_flush",
                                         "sm_clock_mhz",
                                         "power_w",
                                         "cublas_sm_clock_mhz",
                                         "cublas_power_w",
                                         "timing",
                                         "epilogue",
                                         "batch",
                                         "group_m",
                                         "heat_ms",
                                         "cublas_reference",
                                         "cublas_reduction"};
  EXPECT_EQ(header, want);

  const std::string line = csv_row(sample_device(), sample_row());
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const std::vector<std::string> f = csv_fields(line);
  ASSERT_EQ(f.size(), header.size()) << line;
  std::map<std::string, std::string> row;
  for (std::size_t i = 0; i < f.size(); ++i) row[header[i]] = f[i];
  EXPECT_EQ(row["gpu"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(row["sm_count"], "132");
  EXPECT_EQ(row["impl"], "k09");
  EXPECT_EQ(row["repeat"], "2");
  EXPECT_EQ(row["m"], "4096");
  EXPECT_EQ(row["layout"], "A:m,B:n");
  EXPECT_EQ(row["dtype"], "bf16");
  EXPECT_EQ(row["out_dtype"], "fp32");
  EXPECT_EQ(row["alpha"], "1");
  EXPECT_EQ(row["beta"], "0.1");  // the shortest text of the float
  EXPECT_EQ(row["note"], "a \"quoted\" note, with a comma");
  EXPECT_EQ(row["ratio"], "0.8");
  EXPECT_EQ(row["median_ms"], "0.5");
  EXPECT_EQ(row["gbytes_per_s"], "104.858");
  EXPECT_EQ(row["cublas_gbytes_per_s"], "131.072");
  EXPECT_EQ(row["l2_flush"], "read");
  EXPECT_EQ(row["sm_clock_mhz"], "1755");
  EXPECT_EQ(row["power_w"], "612.5");
  EXPECT_EQ(row["cublas_sm_clock_mhz"], "1740.25");
  EXPECT_EQ(row["cublas_power_w"], "650");
  EXPECT_EQ(row["timing"], "interleaved");
  EXPECT_EQ(row["cublas_reference"], "cublas");
  EXPECT_EQ(row["cublas_reduction"], "output_type x4");
  EXPECT_EQ(row["epilogue"], "none");
  EXPECT_EQ(row["batch"], "1");
  EXPECT_EQ(row["group_m"], "");
  EXPECT_EQ(row["heat_ms"], "2000");
  // The raw text quotes what needs it and doubles the quotes.
  EXPECT_NE(line.find(",\"A:m,B:n\","), std::string::npos) << line;
  EXPECT_NE(line.find(",\"a \"\"quoted\"\" note, with a comma\","), std::string::npos) << line;
}

TEST(BenchGemmWriters, CsvEmptyCells) {
  GemmBenchRow r = sample_row();
  r.disposition = "not_supported";
  r.note = "unsupported: k09 is not built yet";
  r.max_err.reset();
  r.median_ms.reset();
  r.min_ms.reset();
  r.p90_ms.reset();
  r.tflops.reset();
  r.ratio.reset();
  r.gbytes_per_s.reset();
  r.sm_clock_mhz.reset();  // no NVML
  r.power_w.reset();
  r.cublas_sm_clock_mhz.reset();
  r.cublas_power_w.reset();
  const std::vector<std::string> f = csv_fields(csv_row(sample_device(), r));
  ASSERT_EQ(f.size(), 41u);
  EXPECT_EQ(f[15], "not_supported");
  EXPECT_EQ(f[16], "unsupported: k09 is not built yet");
  EXPECT_EQ(f[17], "");  // max_err
  EXPECT_EQ(f[18], "0.125");
  EXPECT_EQ(f[20], "");  // median_ms
  EXPECT_EQ(f[24], "0.4");
  EXPECT_EQ(f[26], "");  // ratio
  EXPECT_EQ(f[27], "");  // gbytes_per_s
  EXPECT_EQ(f[28], "131.072");
  EXPECT_EQ(f[29], "read");
  for (std::size_t i = 30; i < 34; ++i) EXPECT_EQ(f[i], "") << i;  // clocks and power without NVML
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(BenchGemmWriters, JsonStrings) {
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("a\"b\\c\nd\te\x01"), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
}

/// The JSON parses back (Python's json module) with the expected content.
TEST(BenchGemmWriters, JsonParsesBack) {
  GemmBenchRow failed = sample_row();
  failed.impl = "k04";
  failed.disposition = "incorrect";
  failed.max_err = INFINITY;  // NaN in D: written as null
  failed.median_ms.reset();
  failed.ratio.reset();
  failed.power_w.reset();
  const std::vector<GemmBenchRow> rows = {sample_row(), failed};
  ProtocolInfo proto;
  proto.l2_policy = "flush: 120 MiB";
  proto.l2_flush = "memset";
  proto.timing = "blocks";
  proto.heat_ms = 2000;
  proto.clock_power = "unavailable: no NVML";
  proto.verify = "tier2";
  std::ostringstream js;
  write_json(js, sample_device(), proto, rows, summarize(rows), "stopped \"early\"");
  const std::string text = js.str();
  EXPECT_NE(text.find("\"rows\": ["), std::string::npos);

  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::filesystem::path json_path = dir / ("bench_gemm_args_test_" + std::to_string(::getpid()) + ".json");
  const std::filesystem::path py_path = dir / ("bench_gemm_args_test_" + std::to_string(::getpid()) + ".py");
  std::ofstream(json_path) << text;
  std::ofstream(py_path) << R"(import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"device", "protocol", "rows", "summary", "error"}, d.keys()
assert d["device"]["gpu"] == "NVIDIA H100 80GB HBM3" and d["device"]["sm_count"] == 132
assert d["device"]["compute_capability"] == "9.0" and d["device"]["driver_version"] == "580.159.04"
assert d["protocol"]["l2_policy"] == "flush: 120 MiB" and d["protocol"]["timed_min_ms"] == 200
assert d["protocol"]["l2_flush"] == "memset" and d["protocol"]["clock_power"] == "unavailable: no NVML"
assert d["protocol"]["timing"] == "blocks" and d["rows"][0]["timing"] == "interleaved"
assert d["protocol"]["heat_ms"] == 2000 and d["rows"][0]["heat_ms"] == 2000
r0, r1 = d["rows"]
assert r0["impl"] == "k09" and r0["layout"] == "A:m,B:n" and r0["m"] == 4096 and r0["repeat"] == 2
assert r0["note"] == 'a "quoted" note, with a comma'
assert abs(r0["beta"] - 0.1) < 1e-7 and r0["ratio"] == 0.8 and r0["median_ms"] == 0.5
assert r0["gbytes_per_s"] == 104.858 and r0["cublas_gbytes_per_s"] == 131.072 and r0["l2_flush"] == "read"
assert r0["sm_clock_mhz"] == 1755 and r0["power_w"] == 612.5
assert r0["cublas_sm_clock_mhz"] == 1740.25 and r0["cublas_power_w"] == 650
assert r1["disposition"] == "incorrect" and r1["max_err"] is None and r1["ratio"] is None and r1["power_w"] is None
assert d["summary"] == [{"impl": "k09", "problems": 1, "rows": 1, "geomean_ratio": 0.8, "min_ratio": 0.8,
                         "group": "all", "below_095": 1, "below_085": 1},
                        {"impl": "k04", "problems": 0, "rows": 1, "geomean_ratio": None, "min_ratio": None,
                         "group": "all", "below_095": None, "below_085": None}], d["summary"]
assert d["error"] == 'stopped "early"'
)";
  const std::string cmd = std::string(TESSEL_PYTHON) + " " + py_path.string() + " " + json_path.string();
  const int rc = std::system(cmd.c_str());
  std::filesystem::remove(json_path);
  std::filesystem::remove(py_path);
  EXPECT_EQ(rc, 0) << "python could not read the JSON back:\n" << text;
}

/// The JSON rows carry the CSV's columns, by the same names.
TEST(BenchGemmWriters, JsonRowKeysAreCsvColumns) {
  std::ostringstream js;
  write_json(js, sample_device(), ProtocolInfo{}, {sample_row()}, {});
  const std::string text = js.str();
  const std::string rows = text.substr(text.find("\"rows\": ["));
  for (const std::string& column : csv_fields(csv_header()))
    EXPECT_NE(rows.find("\"" + column + "\": "), std::string::npos) << column;
}

// ------------------------------------------------------------------ operand traffic

TEST(BenchGemmTraffic, OperandBytes) {
  GemmProblem p;
  p.m = 16;
  p.n = 8192;
  p.k = 8192;  // bf16 -> bf16, beta 0: A + B + D
  EXPECT_EQ(gemm_operand_bytes(p), 2 * (16 * 8192 + 8192 * 8192 + 16 * 8192));
  p.beta = 1;  // C is read too
  EXPECT_EQ(gemm_operand_bytes(p), 2 * (16 * 8192 + 8192 * 8192 + 2 * 16 * 8192));
  p.beta = 0;
  p.out = DType::f32;  // D in fp32: 4 bytes an element
  EXPECT_EQ(gemm_operand_bytes(p), 2 * (16 * 8192 + 8192 * 8192) + 4 * 16 * 8192);
  p.in = DType::f16;
  p.beta = -0.5;
  EXPECT_EQ(gemm_operand_bytes(p), 2 * (16 * 8192 + 8192 * 8192) + 2 * 4 * 16 * 8192);
  // 64-bit: 65536^2 bf16 elements are 8 GiB; no overflow at 32 bits.
  GemmProblem big;
  big.m = big.n = big.k = 65536;
  EXPECT_EQ(gemm_operand_bytes(big), 3 * 2 * std::int64_t{65536} * 65536);
  // The layout does not change the traffic.
  GemmProblem t = big;
  t.layout = GemmLayout{MajorA::m, MajorB::k};
  EXPECT_EQ(gemm_operand_bytes(t), gemm_operand_bytes(big));
}

TEST(BenchGemmTraffic, GigabytesPerSecond) {
  GemmProblem p;
  p.m = 16;
  p.n = 8192;
  p.k = 8192;  // 134,742,016 bytes
  ASSERT_EQ(gemm_operand_bytes(p), 134742016);
  EXPECT_NEAR(gemm_gbytes_per_s(p, 0.05), 2694.84032, 1e-6);  // in 50 us: 2.69 TB/s
  EXPECT_NEAR(gemm_gbytes_per_s(p, 1.0), 134.742016, 1e-9);   // 1e9 bytes a GB, not 2^30
  EXPECT_EQ(gemm_gbytes_per_s(p, 0.0), 0.0);                  // no time: no rate
  EXPECT_EQ(gemm_gbytes_per_s(p, -1.0), 0.0);
  EXPECT_EQ(gemm_gbytes_per_s(p, NAN), 0.0);
}

// ------------------------------------------------------------------ summary

TEST(BenchGemmSummary, GeomeanAndMin) {
  std::vector<GemmBenchRow> rows;
  auto add = [&](const std::string& impl, std::int64_t m, int repeat, const std::string& disp,
                 std::optional<double> ratio) {
    GemmBenchRow r;
    r.impl = impl;
    r.repeat = repeat;
    r.problem.m = m;
    r.problem.n = r.problem.k = 64;
    r.disposition = disp;
    r.ratio = ratio;
    rows.push_back(r);
  };
  add("cublas", 64, 1, "passed", 1.0);  // cuBLAS's own rows are not summarized
  add("k09", 64, 1, "passed", 2.0);
  add("k09", 64, 2, "passed", 0.5);  // repeats of one problem: geometric mean 1
  add("k09", 128, 1, "passed", 0.25);
  add("k09", 256, 1, "incorrect", std::nullopt);
  add("k09", 512, 1, "passed", std::nullopt);  // cuBLAS did not run: no ratio
  add("k01", 64, 1, "not_supported", std::nullopt);
  add("k02", 64, 1, "unverified", 4.0);  // --verify none
  const std::vector<ImplSummary> s = summarize(rows);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].impl, "k09");
  EXPECT_EQ(s[0].problems, 2);
  EXPECT_EQ(s[0].rows, 5);
  EXPECT_NEAR(s[0].geomean_ratio, 0.5, 1e-12);  // sqrt(1 * 0.25)
  EXPECT_NEAR(s[0].min_ratio, 0.25, 1e-12);
  EXPECT_EQ(s[1].impl, "k01");
  EXPECT_EQ(s[1].problems, 0);
  EXPECT_EQ(s[1].rows, 1);
  EXPECT_EQ(s[2].problems, 1);
  EXPECT_NEAR(s[2].geomean_ratio, 4.0, 1e-12);
}

TEST(BenchGemmArgs, BlasLayoutNames) {
  // cuBLAS's column-major meaning: t = the operand stored transposed.
  EXPECT_EQ(parse_blas_layout("tn"), (GemmLayout{MajorA::k, MajorB::k}));
  EXPECT_EQ(parse_blas_layout("NT"), (GemmLayout{MajorA::m, MajorB::n}));
  EXPECT_EQ(parse_blas_layout("nn"), (GemmLayout{MajorA::m, MajorB::k}));
  EXPECT_EQ(parse_blas_layout(" tt "), (GemmLayout{MajorA::k, MajorB::n}));
  EXPECT_FALSE(parse_blas_layout("kn"));
  EXPECT_FALSE(parse_blas_layout("tnn"));
  GemmBenchArgs a = mnk("64", "64", "64");
  a.layouts = {"tn;nt"};
  const GemmBenchOptions o = parse_ok(a);
  ASSERT_EQ(o.problems.size(), 2u);
  EXPECT_EQ(o.problems[0].layout, (GemmLayout{MajorA::k, MajorB::k}));
  EXPECT_EQ(o.problems[1].layout, (GemmLayout{MajorA::m, MajorB::n}));
  a.layouts = {"tx"};
  EXPECT_NE(parse_error(a).find("BLAS's nn nt tn tt"), std::string::npos);
}

TEST(BenchGemmArgs, Reference) {
  GemmBenchArgs a = mnk("64", "64", "64");
  EXPECT_FALSE(parse_ok(a).cublas_fp32_reduction);
  a.reference = "cublas";
  EXPECT_FALSE(parse_ok(a).cublas_fp32_reduction);
  a.reference = "CUBLAS_fp32";
  EXPECT_TRUE(parse_ok(a).cublas_fp32_reduction);
  a.reference = "cudnn";
  EXPECT_NE(parse_error(a).find("--reference: 'cudnn' is not cublas"), std::string::npos);
}

TEST(BenchGemmSummary, ReferenceFailuresAreCounted) {
  std::vector<GemmBenchRow> rows;
  auto add = [&](const std::string& impl, std::int64_t m, const std::string& cublas, const std::string& reduction) {
    GemmBenchRow r;
    r.impl = impl;
    r.problem.m = m;
    r.problem.n = r.problem.k = 256;
    r.disposition = "passed";
    r.cublas_disposition = cublas;
    r.cublas_reduction = reduction;
    rows.push_back(r);
  };
  add("auto", 64, "passed", "none");
  add("cublas", 64, "passed", "none");
  EXPECT_EQ(reference_failures(rows), "");
  add("auto", 32, "incorrect", "output_type x5");
  add("cublas", 32, "incorrect", "output_type x5");  // one problem, however many rows
  add("auto", 16, "incorrect", "inplace x2");
  EXPECT_EQ(reference_failures(rows),
            "cuBLASLt failed verification on 2 of 3 problems (reductions: inplace x2, output_type x5): left out of the "
            "ratios");
}

TEST(BenchGemmSummary, ByGroupWithShares) {
  std::vector<GemmBenchRow> rows;
  auto add = [&](const std::string& group, std::int64_t m, double ratio) {
    GemmBenchRow r;
    r.impl = "auto";
    r.problem.group = group;
    r.problem.m = m;
    r.problem.n = r.problem.k = 256;
    r.disposition = "passed";
    r.ratio = ratio;
    rows.push_back(r);
  };
  add("a64", 64, 1.2);
  add("a64", 128, 0.9);
  add("odd", 7, 0.8);
  add("a8", 8, 1.0);
  const std::vector<ImplSummary> s = summarize(rows, true);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].group, "all");
  EXPECT_EQ(s[0].problems, 4);
  EXPECT_NEAR(s[0].below_095, 0.5, 1e-12);   // 0.9 and 0.8
  EXPECT_NEAR(s[0].below_085, 0.25, 1e-12);  // 0.8
  EXPECT_NEAR(s[0].min_ratio, 0.8, 1e-12);
  EXPECT_EQ(s[1].group, "a64");  // then the groups in first-seen order
  EXPECT_EQ(s[1].problems, 2);
  EXPECT_NEAR(s[1].geomean_ratio, std::sqrt(1.2 * 0.9), 1e-12);
  EXPECT_EQ(s[2].group, "odd");
  EXPECT_EQ(s[3].group, "a8");
  EXPECT_EQ(summarize(rows).size(), 1u);  // without by_group: one line per implementation
}

// ------------------------------------------------------------------ the random suite

TEST(BenchGemmSuite, RandomFollowsTheDistribution) {
  SuiteDefaults d;
  const std::vector<GemmProblem> p = random_problems(7, 4000, d);
  ASSERT_EQ(p.size(), 4000u);
  int groups[3] = {0, 0, 0}, m_small = 0, m_big = 0, n_big = 0;
  double log_n = 0;
  for (const GemmProblem& q : p) {
    ASSERT_GE(q.m, 1);
    ASSERT_LE(q.m, 16384);
    ASSERT_GE(q.n, 256);
    ASSERT_LE(q.n, 16384);
    ASSERT_GE(q.k, 256);
    ASSERT_LE(q.k, 16384);
    ASSERT_LE(q.m * q.n * q.k, std::int64_t{8192} * 8192 * 8192);
    ASSERT_EQ(q.group, extent_group(q.m, q.n, q.k));
    EXPECT_EQ(q.in, DType::bf16);
    EXPECT_EQ(q.out, DType::bf16);
    EXPECT_EQ(q.layout, GemmLayout{});
    groups[q.group == "a64" ? 0 : q.group == "a8" ? 1 : 2]++;
    m_small += q.m <= 128;  // log-uniform: 7/14 of [1, 16384]'s octaves
    m_big += q.m > 1024;    // 4/14
    n_big += q.n > 4096;    // 2/6 of [256, 16384]'s octaves, fewer after the redraws
    log_n += std::log2(static_cast<double>(q.n));
  }
  // An extent is a multiple of 64 with p64 = 0.6 + 0.25/8 + 0.15/64 and of 8
  // with p8 = 0.85 + 0.15/8, where it is at least 64 (N and K always); M is
  // below 64 with probability 6/14 and then kept or rounded to 8 only.
  // a64 = p64^2 * (8/14) p64 = 0.146; a8 = p8^2 * ((8/14) p8 + (3/14)(0.25 + 0.15/8)) - a64 = 0.272.
  const double p64 = 0.6 + 0.25 / 8 + 0.15 / 64, p8 = 0.85 + 0.15 / 8;
  const double a64 = p64 * p64 * (8.0 / 14) * p64;
  EXPECT_NEAR(groups[0] / 4000.0, a64, 0.02);
  EXPECT_NEAR(groups[1] / 4000.0, p8 * p8 * ((8.0 / 14) * p8 + (3.0 / 14) * (0.25 + 0.15 / 8)) - a64, 0.025);
  EXPECT_NEAR(m_small / 4000.0, 0.5, 0.04);
  EXPECT_NEAR(m_big / 4000.0, 4.0 / 14, 0.04);
  EXPECT_GT(n_big / 4000.0, 0.2);
  EXPECT_LT(n_big / 4000.0, 1.0 / 3);
  EXPECT_NEAR(log_n / 4000.0, 11.0, 0.3);
  // The same seed gives the same problems; another seed others.
  const std::vector<GemmProblem> again = random_problems(7, 4000, d);
  const std::vector<GemmProblem> other = random_problems(8, 4000, d);
  int same = 0, differ = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    same += p[i].m == again[i].m && p[i].n == again[i].n && p[i].k == again[i].k;
    differ += p[i].m != other[i].m || p[i].n != other[i].n || p[i].k != other[i].k;
  }
  EXPECT_EQ(same, 4000);
  EXPECT_GT(differ, 3900);
  // Pinned: the first problems of seed 1 (a change here changes every published random run).
  const std::vector<GemmProblem> one = random_problems(1, 3, d);
  const std::int64_t pinned[3][3] = {{248, 14528, 1624}, {4992, 840, 1376}, {64, 1600, 3752}};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(one[static_cast<std::size_t>(i)].m, pinned[i][0]);
    EXPECT_EQ(one[static_cast<std::size_t>(i)].n, pinned[i][1]);
    EXPECT_EQ(one[static_cast<std::size_t>(i)].k, pinned[i][2]);
  }
}

TEST(BenchGemmSuite, RandomFromTheCommandLine) {
  GemmBenchArgs a;
  a.suite = "random:42:10";
  a.layouts = {"all"};
  GemmBenchOptions o = parse_ok(a);
  ASSERT_EQ(o.problems.size(), 40u);  // ten problems in four layouts each
  EXPECT_EQ(o.suite, "random:42:10");
  for (const char* bad : {"random:42", "random::10", "random:x:10", "random:42:0", "random:-1:5", "random:4:200000",
                          "random:1234567890123456789:5"}) {
    a.suite = bad;
    EXPECT_NE(parse_error(a).find("random:SEED:COUNT"), std::string::npos) << bad;
  }
  a.suite = "random:1:5";
  a.m = "64";
  EXPECT_NE(parse_error(a).find("--suite replaces"), std::string::npos);
}

// --m-max: a suite's problems with small M, in the suite's order (the small-M studies).
TEST(BenchGemmSuite, MMaxKeepsTheSuitesSmallM) {
  GemmBenchArgs a;
  a.suite = "random:22:150";
  const GemmBenchOptions all = parse_ok(a);
  a.m_max = "64";
  const GemmBenchOptions small = parse_ok(a);
  std::vector<GemmProblem> expect;
  for (const GemmProblem& p : all.problems)
    if (p.m <= 64) expect.push_back(p);
  ASSERT_EQ(small.problems.size(), expect.size());
  ASSERT_GT(expect.size(), 30u);
  ASSERT_LT(expect.size(), all.problems.size());
  for (std::size_t i = 0; i < expect.size(); ++i) {
    EXPECT_EQ(small.problems[i].m, expect[i].m);
    EXPECT_EQ(small.problems[i].n, expect[i].n);
    EXPECT_EQ(small.problems[i].k, expect[i].k);
    EXPECT_EQ(small.problems[i].group, expect[i].group);
  }
  for (const char* bad : {"0", "-3", "x", "1e3"}) {
    a.m_max = bad;
    EXPECT_NE(parse_error(a).find("--m-max: "), std::string::npos) << bad;
  }
  a.suite = "random:22:3";
  a.m_max = "1";
  EXPECT_EQ(parse_error(a).rfind("--m-max 1: no problem", 0), 0u) << parse_error(a);
  a = mnk("16", "4096", "4096");
  a.m_max = "64";
  EXPECT_NE(parse_error(a).find("give --suite"), std::string::npos);
}

// ------------------------------------------------------------------ batched and grouped

TEST(BenchGemmArgs, Batched) {
  GemmBenchArgs a = mnk("512,2048", "512", "128");
  a.batch = "32";
  const GemmBenchOptions o = parse_ok(a);
  ASSERT_EQ(o.problems.size(), 2u);
  for (const GemmProblem& p : o.problems) {
    EXPECT_EQ(p.batch, 32);
    EXPECT_EQ(p.group, "batched");
    EXPECT_TRUE(p.group_m.empty());
  }
  EXPECT_EQ(shape_name(o.problems[0]), "32x(512x512x128)");
  EXPECT_EQ(gemm_problem_count(o.problems[0]), 32);
  // FLOP and bytes count every problem.
  EXPECT_DOUBLE_EQ(gemm_flops(o.problems[0]), 32.0 * 2 * 512 * 512 * 128);
  EXPECT_EQ(gemm_operand_bytes(o.problems[0]), 32 * 2 * (512 * 128 + 128 * 512 + 512 * 512));
  // batch 1 is a single problem.
  a.batch = "1";
  EXPECT_EQ(parse_ok(a).problems[0].batch, 1);
  EXPECT_EQ(parse_ok(a).problems[0].group, "cli");
  for (const char* bad : {"0", "-3", "x", "70000"}) {
    a.batch = bad;
    EXPECT_NE(parse_error(a).find("--batch"), std::string::npos) << bad;
  }
}

TEST(BenchGemmArgs, Grouped) {
  GemmBenchArgs a;
  a.group_m = "1,64,300";
  a.n = "4096";
  a.k = "7168";
  a.layouts = {"all"};
  const GemmBenchOptions o = parse_ok(a);
  ASSERT_EQ(o.problems.size(), 4u);  // one row per layout
  const GemmProblem& p = o.problems[0];
  EXPECT_EQ(p.group, "grouped");
  EXPECT_EQ(p.group_m, (std::vector<std::int64_t>{1, 64, 300}));
  EXPECT_EQ(p.m, 365);  // the stacked rows
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(shape_name(p), "[1,64,300]x4096x7168");
  EXPECT_EQ(gemm_problem_count(p), 3);
  EXPECT_DOUBLE_EQ(gemm_flops(p), 2.0 * 365 * 4096 * 7168);
  // A and D stacked, one B per problem.
  EXPECT_EQ(gemm_operand_bytes(p), 2 * (365LL * 7168 + 3LL * 7168 * 4096 + 365LL * 4096));
  // --grouped moe is the MoE group.
  GemmBenchArgs moe;
  moe.grouped = "moe";
  const GemmBenchOptions m = parse_ok(moe);
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(m.problems[0].group_m, (std::vector<std::int64_t>{64, 128, 256, 512, 768, 1024, 1536, 2048}));
  EXPECT_EQ(m.problems[0].n, 4096);
  EXPECT_EQ(m.problems[0].k, 7168);
  // The CSV names the group.
  GemmBenchRow r;
  r.problem = p;
  const std::vector<std::string> header = csv_fields(csv_header());
  const std::vector<std::string> f = csv_fields(csv_row(DeviceInfo{}, r));
  ASSERT_EQ(f.size(), header.size());
  EXPECT_EQ(f[header.size() - 4], "1;64;300");  // then heat_ms and the reference's two
  EXPECT_EQ(f[header.size() - 5], "1");
}

TEST(BenchGemmArgs, GroupedErrors) {
  GemmBenchArgs a;
  a.group_m = "64,128";
  a.n = "4096";
  EXPECT_NE(parse_error(a).find("--k is required with --group-m"), std::string::npos);
  a.k = "1024,2048";
  EXPECT_NE(parse_error(a).find("one N and one K"), std::string::npos);
  a.k = "1024";
  a.m = "64";
  EXPECT_NE(parse_error(a).find("--m: a group's M"), std::string::npos);
  a.m.clear();
  a.batch = "4";
  EXPECT_NE(parse_error(a).find("--batch"), std::string::npos);
  a.batch.clear();
  a.group_m = "64,0";
  EXPECT_NE(parse_error(a).find("--group-m"), std::string::npos);
  GemmBenchArgs g;
  g.grouped = "dense";
  EXPECT_NE(parse_error(g).find("not a known group"), std::string::npos);
  g.grouped = "moe";
  g.n = "1024";
  EXPECT_NE(parse_error(g).find("--grouped moe is"), std::string::npos);
  g.n.clear();
  g.suite = "x.csv";
  EXPECT_NE(parse_error(g).find("--suite"), std::string::npos);
}

// --plan's arguments: the bench's packed leading dimensions and stand-in
// addresses that are distinct and 256-byte aligned (the plan reads alignment).
TEST(BenchGemmArgs, PlanArgsAreTheBenchsCall) {
  GemmProblem p;
  p.m = 100, p.n = 60, p.k = 40;
  GemmArgs g = plan_args(p, GemmTuning{});
  EXPECT_EQ(g.lda, 40);  // A:k, B:n
  EXPECT_EQ(g.ldb, 60);
  EXPECT_EQ(g.ldd, 60);
  EXPECT_EQ(g.c, nullptr);  // beta 0: C is not read
  for (const void* x : {g.a, g.b, static_cast<const void*>(g.d)})
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(x) % 256, 0u);
  EXPECT_NE(g.a, g.b);
  EXPECT_NE(g.b, g.d);
  p.layout = GemmLayout{MajorA::m, MajorB::k};
  p.beta = -1.0;
  p.batch = 3;
  g = plan_args(p, GemmTuning{128, 2, SwapAB::off});
  EXPECT_EQ(g.lda, 100);
  EXPECT_EQ(g.ldb, 40);
  EXPECT_NE(g.c, nullptr);
  EXPECT_EQ(g.ldc, 60);
  EXPECT_FLOAT_EQ(g.beta, -1.0f);
  EXPECT_EQ(g.batch, 3);
  EXPECT_EQ(g.stride_a, 100 * 40);
  EXPECT_EQ(g.stride_b, 40 * 60);
  EXPECT_EQ(g.stride_d, 100 * 60);
  EXPECT_EQ(g.tuning.tile_n, 128);  // the options' tuning is kept
  EXPECT_EQ(g.tuning.splits, 2);
  p.epilogue.bias = BiasKind::col;
  EXPECT_NE(plan_args(p, GemmTuning{}).epilogue.bias, nullptr);
  // What --list and --plan write first, and the swap as --plan spells it.
  p.group = "g";
  p.alpha = 0.1;
  EXPECT_EQ(suite_row(p), "g,100,60,40,bf16,bf16,\"A:m,B:k\",0.1,-1");
  EXPECT_STREQ(swap_ab_name(SwapAB::on), "on");
  EXPECT_STREQ(swap_ab_name(SwapAB::plan), "plan");
}

}  // namespace

// A fused epilogue takes single problems: not with a batch or a group.
TEST(BenchGemmArgs, EpilogueIsForSingleProblems) {
  GemmBenchArgs a = mnk("512", "512", "128");
  a.batch = "4";
  a.epilogue = "bias_gelu_tanh";
  EXPECT_EQ(parse_error(a).rfind("--epilogue", 0), 0u) << parse_error(a);
  GemmBenchArgs g;
  g.grouped = "moe";
  g.epilogue = "relu";
  EXPECT_EQ(parse_error(g).rfind("--epilogue", 0), 0u) << parse_error(g);
}
