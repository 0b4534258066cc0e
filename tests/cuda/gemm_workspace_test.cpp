// tessel::gemm with a caller-owned workspace (GemmArgs::workspace,
// gemm_workspace_size) and with alpha and beta in device memory
// (GemmArgs::alpha_device, beta_device): exact against a host reference on
// small integers, nothing taken from tessel's memory pool when a workspace is
// given, a short workspace refused before anything is written, and scalars
// changed between replays of one captured CUDA graph.  Hopper GPU; skips
// elsewhere with the reason.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu_test.hpp"
#include "tessel/host/gemm.hpp"

using namespace tessel;
using tessel::testing::DeviceArray;

namespace {

/// A problem in device memory: A, B (bf16, or fp32 for `fp32`) and C, D
/// (fp32) of small integers, so every product and sum is exact.
struct Problem {
  index_t m, n, k, batch;
  GemmLayout layout;
  index_t lda, ldb;
  bool fp32;
  std::vector<float> ha, hb, hc;  // the values, element (i, l) of A at a_at(i, l)
  DeviceArray<std::uint16_t> a16, b16;
  DeviceArray<float> a32, b32, c, d;

  Problem(index_t m_, index_t n_, index_t k_, GemmLayout l, index_t pad, bool fp32_, index_t batch_ = 1)
      : m(m_),
        n(n_),
        k(k_),
        batch(batch_),
        layout(l),
        lda((l.a == MajorA::k ? k_ : m_) + pad),
        ldb((l.b == MajorB::n ? n_ : k_) + pad),
        fp32(fp32_),
        a16(fp32_ ? 0 : a_elems()),
        b16(fp32_ ? 0 : b_elems()),
        a32(fp32_ ? a_elems() : 0),
        b32(fp32_ ? b_elems() : 0),
        c(static_cast<std::size_t>(batch_ * m_ * n_)),
        d(static_cast<std::size_t>(batch_ * m_ * n_)) {
    ha.resize(a_elems());
    hb.resize(b_elems());
    hc.resize(static_cast<std::size_t>(batch * m * n));
    std::uint32_t x = 12345;
    const auto next = [&x] {
      x = x * 1664525u + 1013904223u;
      return static_cast<float>(static_cast<int>((x >> 16) % 7) - 3);
    };
    for (float& v : ha) v = next();
    for (float& v : hb) v = next();
    for (float& v : hc) v = next();
  }
  std::size_t a_elems() const { return static_cast<std::size_t>(batch * lda * (layout.a == MajorA::k ? m : k)); }
  std::size_t b_elems() const { return static_cast<std::size_t>(batch * ldb * (layout.b == MajorB::n ? k : n)); }
  index_t stride_a() const { return lda * (layout.a == MajorA::k ? m : k); }
  index_t stride_b() const { return ldb * (layout.b == MajorB::n ? k : n); }
  float a_at(index_t b, index_t i, index_t l) const {
    return ha[static_cast<std::size_t>(b * stride_a() + (layout.a == MajorA::k ? i * lda + l : l * lda + i))];
  }
  float b_at(index_t bt, index_t l, index_t j) const {
    return hb[static_cast<std::size_t>(bt * stride_b() + (layout.b == MajorB::n ? l * ldb + j : j * ldb + l))];
  }

  static std::vector<std::uint16_t> to_bf16(const std::vector<float>& v) {
    std::vector<std::uint16_t> h(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &v[i], 4);
      h[i] = static_cast<std::uint16_t>(bits >> 16);  // small integers are exact in bf16
    }
    return h;
  }
  bool upload() {
    if (fp32) {
      if (a32.ptr == nullptr || b32.ptr == nullptr || a32.upload(ha) != cudaSuccess || b32.upload(hb) != cudaSuccess)
        return false;
    } else if (a16.ptr == nullptr || b16.ptr == nullptr || a16.upload(to_bf16(ha)) != cudaSuccess ||
               b16.upload(to_bf16(hb)) != cudaSuccess) {
      return false;
    }
    return c.ptr != nullptr && d.ptr != nullptr && c.upload(hc) == cudaSuccess && poison();
  }
  bool poison() { return d.fill_bytes(0x7F) == cudaSuccess; }  // 0x7F7F7F7F: a float no result equals

  GemmArgs args(float alpha, float beta) const {
    GemmArgs g;
    g.m = m, g.n = n, g.k = k;
    g.ab_type = fp32 ? DType::f32 : DType::bf16;
    g.cd_type = DType::f32;
    g.layout = layout;
    g.a = fp32 ? static_cast<const void*>(a32.ptr) : a16.ptr;
    g.b = fp32 ? static_cast<const void*>(b32.ptr) : b16.ptr;
    g.lda = lda, g.ldb = ldb;
    g.c = c.ptr, g.ldc = n;
    g.d = d.ptr, g.ldd = n;
    g.alpha = alpha, g.beta = beta;
    g.batch = batch;
    g.stride_a = stride_a(), g.stride_b = stride_b(), g.stride_c = m * n, g.stride_d = m * n;
    return g;
  }

  /// D == alpha A B + beta C exactly, element by element; the first miss.
  ::testing::AssertionResult exact(float alpha, float beta) const {
    std::vector<float> got;
    if (d.download(got) != cudaSuccess) return ::testing::AssertionFailure() << "cannot read D back";
    for (index_t bt = 0; bt < batch; ++bt)
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j) {
          double acc = 0;
          for (index_t l = 0; l < k; ++l) acc += static_cast<double>(a_at(bt, i, l)) * b_at(bt, l, j);
          const std::size_t at = static_cast<std::size_t>(bt * m * n + i * n + j);
          const double want = alpha * acc + beta * static_cast<double>(hc[at]);
          if (static_cast<double>(got[at]) != want)
            return ::testing::AssertionFailure()
                   << "D(" << bt << ", " << i << ", " << j << ") = " << got[at] << ", expected " << want;
        }
    return ::testing::AssertionSuccess();
  }
};

/// A 256-byte aligned device buffer of `bytes` (at least 1).
struct Workspace {
  DeviceArray<unsigned char> mem;
  explicit Workspace(std::size_t bytes) : mem(bytes == 0 ? 1 : bytes) {}
};

struct Case {
  const char* what;
  GemmImpl impl;
  index_t m, n, k;
  GemmLayout layout;
  index_t pad;  // added to the leading dimensions: 1 makes rows TMA cannot read
  bool fp32;
  GemmTuning tuning;
  float beta = -1.0f;  // 0 for k15, which reads no C
};

// k13 with the tiles past the full waves split three ways (rule 14's hybrid).
constexpr GemmTuning split_tail_tuning() {
  GemmTuning t{64, 3, SwapAB::off};
  t.split_tail = true;
  return t;
}

// Each case takes scratch memory without a workspace: split K's partials and
// counters (all tiles', or a split tail's), a padded copy of an operand,
// f11's stream-K partials, f12's copies.
const Case kCases[] = {
    {"k13 split tail (320 tiles of 128 x 64)",
     GemmImpl::k13_wgmma_in_flight,
     1200,
     2000,
     256,
     {MajorA::k, MajorB::n},
     0,
     false,
     split_tail_tuning()},
    {"k13 split K, 4 splits",
     GemmImpl::k13_wgmma_in_flight,
     200,
     136,
     1024,
     {MajorA::k, MajorB::n},
     0,
     false,
     GemmTuning{128, 4, SwapAB::off}},
    {"k13 padded copy of A and B (odd leading dimensions)",
     GemmImpl::k13_wgmma_in_flight,
     130,
     200,
     192,
     {MajorA::k, MajorB::n},
     1,
     false,
     GemmTuning{}},
    {"k13 split K and padded copies, swapped",
     GemmImpl::k13_wgmma_in_flight,
     96,
     40,
     2048,
     {MajorA::m, MajorB::k},
     1,
     false,
     GemmTuning{32, 8, SwapAB::on}},
    {"auto, unaligned rows", GemmImpl::automatic, 333, 257, 515, {MajorA::k, MajorB::n}, 1, false, GemmTuning{}},
    {"k15 padded copy", GemmImpl::k15_pingpong, 256, 256, 320, {MajorA::k, MajorB::n}, 1, false, GemmTuning{}, 0.0f},
    {"f11 stream-K", GemmImpl::f11_stream_k, 300, 280, 4096, {MajorA::m, MajorB::n}, 0, true, GemmTuning{}},
    {"small_m split K, unaligned rows",
     GemmImpl::small_m_stream,
     13,
     333,
     2048,
     {MajorA::k, MajorB::n},
     3,
     false,
     GemmTuning{0, 4}},
    {"f12 copies (K-major A)",
     GemmImpl::f12_operand_copies,
     160,
     96,
     512,
     {MajorA::k, MajorB::n},
     0,
     true,
     GemmTuning{}},
};

class WorkspaceCase : public ::testing::TestWithParam<Case> {};

TEST_P(WorkspaceCase, ExactAndNothingFromThePool) {
  REQUIRE_SM90();
  const Case& c = GetParam();
  Problem p(c.m, c.n, c.k, c.layout, c.pad, c.fp32);
  ASSERT_TRUE(p.upload());
  GemmArgs g = p.args(2.0f, c.beta);
  g.tuning = c.tuning;
  SKIP_UNBUILT_GEMM(c.fp32, g.ab_type, g.layout);
  std::size_t need = 0;
  const Status sized = gemm_workspace_size(c.impl, g, need);
  ASSERT_TRUE(sized.is_ok()) << sized.message;
  EXPECT_GT(need, 0u) << c.what << ": this case takes scratch memory";

  // Without a workspace: the call takes its scratch from tessel (its pool, or split K's buffers kept per stream:
  // SplitScratchIsKeptPerStream).
  Status s = gemm(c.impl, g);
  ASSERT_TRUE(s.is_ok()) << c.what << ": " << s.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(p.exact(2.0f, c.beta)) << c.what << " (tessel's scratch)";

  // With one of gemm_workspace_size's bytes: the same D, nothing allocated.
  Workspace ws(need);
  ASSERT_NE(ws.mem.ptr, nullptr);
  ASSERT_TRUE(p.poison());
  g.workspace = ws.mem.ptr;
  g.workspace_bytes = need;
  const std::uint64_t before = gemm_pool_allocations();
  s = gemm(c.impl, g);
  ASSERT_TRUE(s.is_ok()) << c.what << ": " << s.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(gemm_pool_allocations(), before) << c.what << ": a call with a workspace allocated";
  EXPECT_TRUE(p.exact(2.0f, c.beta)) << c.what << " (caller's workspace)";

  // One byte short: refused by name, nothing launched, D as it was.
  ASSERT_TRUE(p.poison());
  g.workspace_bytes = need - 1;
  s = gemm(c.impl, g);
  EXPECT_EQ(s.code, Status::invalid_argument) << c.what;
  EXPECT_NE(s.message.find("gemm_workspace_size"), std::string::npos) << s.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> d;
  CUDA_CHECK(p.d.download(d));
  for (float v : d) ASSERT_EQ(std::memcmp(&v, "\x7F\x7F\x7F\x7F", 4), 0) << c.what << ": D was written";
}

INSTANTIATE_TEST_SUITE_P(Gemm, WorkspaceCase, ::testing::ValuesIn(kCases));

// Split K's partials and counters are kept per stream: a stream's first split
// call takes them from the pool, later ones (as large or smaller) allocate
// nothing and stay exact, a larger one takes a larger buffer.
TEST(GemmWorkspace, SplitScratchIsKeptPerStream) {
  REQUIRE_SM90();
  Problem p(200, 136, 1024, {MajorA::k, MajorB::n}, 0, false);
  ASSERT_TRUE(p.upload());
  GemmArgs g = p.args(2.0f, 0.0f);
  g.tuning = GemmTuning{128, 4, SwapAB::off};
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const std::uint64_t first = gemm_pool_allocations();
  ASSERT_TRUE(gemm(GemmImpl::k13_wgmma_in_flight, g, stream).is_ok());
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_GT(gemm_pool_allocations(), first) << "a new stream's first split call allocates its buffers";
  EXPECT_TRUE(p.exact(2.0f, 0.0f));
  for (int splits : {4, 2, 3}) {
    ASSERT_TRUE(p.poison());
    g.tuning.splits = splits;
    const std::uint64_t before = gemm_pool_allocations();
    ASSERT_TRUE(gemm(GemmImpl::k13_wgmma_in_flight, g, stream).is_ok());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT_EQ(gemm_pool_allocations(), before) << splits << " splits: the kept buffers serve";
    EXPECT_TRUE(p.exact(2.0f, 0.0f)) << splits << " splits";
  }
  // 4 MiB of partials (4 tiles of 128 x 256, 8 splits) outgrow the first buffer (1 MiB: 4 tiles of 128 x 128, 4
  // splits).
  Problem big(256, 512, 1024, {MajorA::k, MajorB::n}, 0, false);
  ASSERT_TRUE(big.upload());
  GemmArgs h = big.args(1.0f, 0.0f);
  h.tuning = GemmTuning{256, 8, SwapAB::off};
  const std::uint64_t before = gemm_pool_allocations();
  ASSERT_TRUE(gemm(GemmImpl::k13_wgmma_in_flight, h, stream).is_ok());
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_GT(gemm_pool_allocations(), before);
  EXPECT_TRUE(big.exact(1.0f, 0.0f));
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// The padded copies of operands whose rows TMA cannot read are kept per stream
// too: a stream's first such call takes its scratch from the pool, later ones
// allocate nothing and stay exact.  Calls from two threads on one stream, each
// a copy and then the GEMM that reads it, never interleave between the two
// (kept_scratch's hold): each thread's last call still reads its own copy.
TEST(GemmWorkspace, PadCopiesAreKeptPerStream) {
  REQUIRE_SM90();
  // K = 1001 and 777: A's rows of 2002 and 1554 bytes, copied to rows of whole lines.
  Problem p(200, 136, 1001, {MajorA::k, MajorB::n}, 0, false), q(136, 200, 777, {MajorA::k, MajorB::n}, 0, false);
  ASSERT_TRUE(p.upload());
  ASSERT_TRUE(q.upload());
  const GemmArgs g = p.args(2.0f, 0.0f), h = q.args(1.0f, 1.0f);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const std::uint64_t first = gemm_pool_allocations();
  ASSERT_TRUE(gemm(GemmImpl::k13_wgmma_in_flight, g, stream).is_ok());
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_GT(gemm_pool_allocations(), first) << "a new stream's first copying call allocates its scratch";
  EXPECT_TRUE(p.exact(2.0f, 0.0f));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(q.poison());
    const std::uint64_t before = gemm_pool_allocations();
    ASSERT_TRUE(gemm(GemmImpl::k13_wgmma_in_flight, h, stream).is_ok());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT_EQ(gemm_pool_allocations(), before) << "call " << i << ": the kept scratch serves";
    EXPECT_TRUE(q.exact(1.0f, 1.0f)) << "call " << i;
  }
  ASSERT_TRUE(p.poison());
  ASSERT_TRUE(q.poison());
  const auto calls = [stream](const GemmArgs* args, Status* out) {
    for (int i = 0; i < 64 && out->is_ok(); ++i) *out = gemm(GemmImpl::k13_wgmma_in_flight, *args, stream);
  };
  Status sp = Status::success(), sq = Status::success();
  std::thread tp(calls, &g, &sp), tq(calls, &h, &sq);
  tp.join();
  tq.join();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_TRUE(sp.is_ok()) << sp.message;
  EXPECT_TRUE(sq.is_ok()) << sq.message;
  EXPECT_TRUE(p.exact(2.0f, 0.0f)) << "two threads on one stream";
  EXPECT_TRUE(q.exact(1.0f, 1.0f)) << "two threads on one stream";
  CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GemmWorkspace, BatchOfLaunchesReusesTheWorkspace) {
  REQUIRE_SM90();
  // Split K keeps k13 off its batched kernel: one launch per batch, each
  // carving the workspace from its start.
  Problem p(130, 72, 768, {MajorA::k, MajorB::n}, 1, false, 3);
  ASSERT_TRUE(p.upload());
  GemmArgs g = p.args(1.0f, 1.0f);
  g.tuning = GemmTuning{64, 3, SwapAB::off};
  std::size_t need = 0;
  ASSERT_TRUE(gemm_workspace_size(GemmImpl::k13_wgmma_in_flight, g, need).is_ok());
  std::size_t one = 0;
  GemmArgs single = g;
  single.batch = 1;
  ASSERT_TRUE(gemm_workspace_size(GemmImpl::k13_wgmma_in_flight, single, one).is_ok());
  EXPECT_GE(need, one);
  EXPECT_LT(need, 2 * one) << "a batch of launches needs one problem's workspace, not one per problem";
  Workspace ws(need);
  g.workspace = ws.mem.ptr, g.workspace_bytes = need;
  const std::uint64_t before = gemm_pool_allocations();
  const Status s = gemm(GemmImpl::k13_wgmma_in_flight, g);
  ASSERT_TRUE(s.is_ok()) << s.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(gemm_pool_allocations(), before);
  EXPECT_TRUE(p.exact(1.0f, 1.0f));
}

TEST(GemmWorkspace, NoScratchNoBytes) {
  REQUIRE_SM90();
  // Aligned rows on whole lines, one split: nothing to carve.
  Problem p(256, 256, 256, {MajorA::k, MajorB::n}, 0, false);
  ASSERT_TRUE(p.upload());
  GemmArgs g = p.args(1.0f, 0.0f);
  g.tuning = GemmTuning{128, 1, SwapAB::off};
  std::size_t need = 1;
  ASSERT_TRUE(gemm_workspace_size(GemmImpl::k13_wgmma_in_flight, g, need).is_ok());
  EXPECT_EQ(need, 0u);
}

struct ScalarCase {
  const char* what;
  GemmImpl impl;
  index_t m, n, k;
  bool fp32;
  GemmTuning tuning;
  bool with_c = true;  // beta_device and C; k15 reads no C
  index_t batch = 1;
};

const ScalarCase kScalarCases[] = {
    {"auto", GemmImpl::automatic, 300, 264, 256, false, GemmTuning{}},
    {"k13 128x256", GemmImpl::k13_wgmma_in_flight, 256, 512, 128, false, GemmTuning{256, 1, SwapAB::off}},
    {"k13 split K", GemmImpl::k13_wgmma_in_flight, 128, 128, 2048, false, GemmTuning{128, 4, SwapAB::off}},
    {"k13 swapped", GemmImpl::k13_wgmma_in_flight, 40, 384, 256, false, GemmTuning{16, 1, SwapAB::on}},
    {"k14", GemmImpl::k14_cluster_multicast, 512, 512, 256, false, GemmTuning{}},
    {"k15", GemmImpl::k15_pingpong, 512, 256, 256, false, GemmTuning{}, false},
    {"k15 batched (one launch)", GemmImpl::k15_pingpong, 256, 256, 128, false, GemmTuning{}, false, 3},
    {"k13 batched (one launch)", GemmImpl::k13_wgmma_in_flight, 256, 256, 128, false, GemmTuning{128, 1, SwapAB::off},
     true, 3},
    {"k08", GemmImpl::k08_smem_epilogue, 200, 136, 96, false, GemmTuning{}},
    {"fp32 auto", GemmImpl::automatic, 256, 200, 128, true, GemmTuning{}},
    {"f11", GemmImpl::f11_stream_k, 300, 280, 2048, true, GemmTuning{}},
};

class DeviceScalars : public ::testing::TestWithParam<ScalarCase> {};

TEST_P(DeviceScalars, GraphReplaysWithNewValues) {
  REQUIRE_SM90();
  const ScalarCase& c = GetParam();
  Problem p(c.m, c.n, c.k, {MajorA::k, MajorB::n}, 0, c.fp32, c.batch);
  ASSERT_TRUE(p.upload());
  DeviceArray<float> scalars(2);
  ASSERT_NE(scalars.ptr, nullptr);
  GemmArgs g = p.args(0.0f, 0.0f);  // the host values are not read
  g.tuning = c.tuning;
  SKIP_UNBUILT_GEMM(c.fp32, g.ab_type, g.layout);
  g.alpha_device = scalars.ptr;
  if (c.with_c) g.beta_device = scalars.ptr + 1;
  // Workspace as well: a captured graph then holds no allocation of tessel's pool.
  std::size_t need = 0;
  const Status sized = gemm_workspace_size(c.impl, g, need);
  ASSERT_TRUE(sized.is_ok()) << c.what << ": " << sized.message;
  Workspace ws(need);
  g.workspace = ws.mem.ptr, g.workspace_bytes = need;

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const Status s = gemm(c.impl, g, stream);
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  ASSERT_TRUE(s.is_ok()) << c.what << ": " << s.message;
  CUDA_CHECK(ended);
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (const auto& [alpha, beta] : {std::pair{2.0f, -1.0f}, std::pair{-1.0f, 3.0f}, std::pair{1.0f, 0.0f}}) {
    const float b = c.with_c ? beta : 0.0f;
    const std::vector<float> h{alpha, b};
    CUDA_CHECK(scalars.upload(h));
    ASSERT_TRUE(p.poison());
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT_TRUE(p.exact(alpha, b)) << c.what << " with alpha " << alpha << ", beta " << b;
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
}

INSTANTIATE_TEST_SUITE_P(Gemm, DeviceScalars, ::testing::ValuesIn(kScalarCases));

}  // namespace
