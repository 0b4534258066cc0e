// Every step of the GEMM ladder through the public API tessel::gemm(), bit
// for bit against a host reference in exact arithmetic.  Parameterized over
// every GemmImpl value (kAllGemmImpls, k01..k15; the fp32 ladder f01..f12,
// kFp32GemmImpls, in the GemmF32 suites), `auto` (the plan's choice),
// and k13 with each tile width and several split counts forced: a step whose
// gemm_check still says "not built yet" is skipped with its name, so each
// step is tested here as soon as it lands.  Skipped where no GPU is present.
//
// The epilogue (GemmEpilogue: bias, activation, aux) has its own suite,
// GemmEpi, over its fused and unfused paths (tolerances written there).
//
// Tier-1 exactness: inputs are small integers in [-4,4] and alpha, beta
// small integers, so every fp32 accumulation is exact (|sum| <= 16 K) and
// the only rounding is the final one to the output type, which the host
// reproduces (round to nearest even at the output's precision).  The output
// is poisoned with 0xFF bytes (NaN in every output type) before each launch,
// every element of D, including the padding of its rows (ldd > N), is
// compared bit for bit, and a rejected call must leave D poisoned.
//
// The inputs are cut from one 1000x1000 matrix per operand and type,
// uploaded once: a case (M,N,K) with leading dimension ld copies the
// top-left corner into a buffer of that ld (cudaMemcpy2DAsync), so the host
// reference is one set of prefix products P_K(i,j) = sum_{l<K} A(i,l) B(l,j),
// computed once for the seven K of the sweep.  All GPU work is on one stream.
#include <gtest/gtest.h>

#include "gpu_test.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tessel/gemm_plan.hpp"
#include "tessel/host/gemm.hpp"
#include "tessel/host/jit.hpp"
#include "tessel/kernels/gemm/fused_epilogue.cuh"

using namespace tessel;

namespace {

constexpr int kMax = 1000;  // largest M, N, K of the sweeps
constexpr int kMaxPad = 8;  // largest leading-dimension padding
const std::vector<index_t> kFullMN = {1, 7, 8, 17, 64, 127, 128, 129, 255, 257, 1000};
const std::vector<index_t> kFullK = {1, 8, 63, 64, 65, 192, 1000};
const std::vector<index_t> kSmallMN = {1, 17, 128, 129, 257};
const std::vector<index_t> kSmallK = {1, 63, 65, 192};

// ------------------------------------------------------------------ inputs and reference

/// A deterministic integer in [-4, 4] for element (r, c) of operand `which`.
int value_at(int which, int r, int c) {
  std::uint32_t h = static_cast<std::uint32_t>(r) * 0x9E3779B1u ^ static_cast<std::uint32_t>(c) * 0x85EBCA77u ^
                    static_cast<std::uint32_t>(which) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 13;
  return static_cast<int>(h % 9u) - 4;
}
int a_at(int i, int l) { return value_at(1, i, l); }  // A (M,K)
int b_at(int l, int j) { return value_at(2, l, j); }  // B (K,N)
int c_at(int i, int j) { return value_at(3, i, j); }  // C (M,N)

int k_index(index_t k) {
  for (std::size_t s = 0; s < kFullK.size(); ++s)
    if (kFullK[s] == k) return static_cast<int>(s);
  return -1;
}

/// The bits of the integer v (|v| < 2^24) rounded to nearest even in the
/// output type: written from the formats' definitions, not from CUDA's
/// conversion routines (which the kernels use).
std::uint32_t round_bits(std::int64_t v, DType t) {
  const int sig_bits = t == DType::bf16 ? 8 : t == DType::f16 ? 11 : 24;  // significand, with the hidden bit
  const int mant_bits = sig_bits - 1;
  const int exp_bias = t == DType::bf16 ? 127 : t == DType::f16 ? 15 : 127;
  const int width = t == DType::f32 ? 32 : 16;
  const std::uint32_t sign = v < 0 ? 1u : 0u;
  std::uint64_t mag = static_cast<std::uint64_t>(v < 0 ? -v : v);
  if (mag == 0) return 0;               // +0: the kernels never produce -0 from these inputs
  int top = 63 - __builtin_clzll(mag);  // floor(log2 mag)
  if (top >= sig_bits) {                // round away the low bits, to nearest even
    const int shift = top - mant_bits;
    const std::uint64_t q = mag >> shift, r = mag & ((std::uint64_t{1} << shift) - 1),
                        half = std::uint64_t{1} << (shift - 1);
    mag = (q + (r > half || (r == half && (q & 1)))) << shift;
    top = 63 - __builtin_clzll(mag);
  }
  const std::uint64_t mant = top >= mant_bits ? (mag >> (top - mant_bits)) : (mag << (mant_bits - top));
  return (sign << (width - 1)) | (static_cast<std::uint32_t>(top + exp_bias) << mant_bits) |
         static_cast<std::uint32_t>(mant & ((std::uint64_t{1} << mant_bits) - 1));
}

template <class U>
U from_int(int x) {
  if constexpr (std::is_same_v<U, float>)
    return static_cast<float>(x);
  else if constexpr (std::is_same_v<U, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(x));
  else
    return __float2half_rn(static_cast<float>(x));
}

/// A 1000 x 1000 matrix f(r, c) in element type U, row r at r*1000.
template <class U, class F>
std::vector<U> make_matrix(F f) {
  std::vector<U> m(static_cast<std::size_t>(kMax) * kMax);
  for (int r = 0; r < kMax; ++r)
    for (int c = 0; c < kMax; ++c) m[static_cast<std::size_t>(r) * kMax + c] = from_int<U>(f(r, c));
  return m;
}

struct DeviceBuffer {
  void* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
};

/// What every case shares: the stream, the source matrices on the device,
/// the working buffers, the host reference.
struct World {
  cudaStream_t stream = nullptr;
  DeviceBuffer a_src[3][2];          // [ab type: bf16, fp16, fp32][0: A:k (i*1000+l), 1: A:m (i+l*1000)]
  DeviceBuffer b_src[3][2];          // [ab type][0: B:n (l*1000+j), 1: B:k (l+j*1000)]
  DeviceBuffer c_src[3];             // [cd type] C(i,j) at i*1000+j
  DeviceBuffer a, b, c, d;           // per-case copies with the case's leading dimensions
  std::vector<std::int32_t> ref[7];  // P_K(i, j) at i*1000+j for K = kFullK[s]
  bool ready = false;
};
World* g_world = nullptr;

int ab_slot(DType t) { return t == DType::bf16 ? 0 : t == DType::f16 ? 1 : 2; }
int cd_slot(DType t) { return t == DType::bf16 ? 0 : t == DType::f16 ? 1 : 2; }

template <class U>
void upload(DeviceBuffer& dst, const std::vector<U>& host, cudaStream_t s) {
  CUDA_CHECK(cudaMalloc(&dst.p, host.size() * sizeof(U)));
  CUDA_CHECK(cudaMemcpyAsync(dst.p, host.data(), host.size() * sizeof(U), cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaStreamSynchronize(s));  // `host` may go away after this call
}

template <class U>
void upload_inputs(World& w, int slot) {
  upload(w.a_src[slot][0], make_matrix<U>([](int r, int c) { return a_at(r, c); }), w.stream);  // A:k, row i
  upload(w.a_src[slot][1], make_matrix<U>([](int r, int c) { return a_at(c, r); }), w.stream);  // A:m, row l
  upload(w.b_src[slot][0], make_matrix<U>([](int r, int c) { return b_at(r, c); }), w.stream);  // B:n, row l
  upload(w.b_src[slot][1], make_matrix<U>([](int r, int c) { return b_at(c, r); }), w.stream);  // B:k, row j
}

void set_up_world(World& w) {
  CUDA_CHECK(cudaStreamCreate(&w.stream));
  upload_inputs<__nv_bfloat16>(w, 0);
  upload_inputs<__half>(w, 1);
  upload_inputs<float>(w, 2);  // the fp32 ladder (f01..f12)
  upload(w.c_src[0], make_matrix<__nv_bfloat16>(c_at), w.stream);
  upload(w.c_src[1], make_matrix<__half>(c_at), w.stream);
  upload(w.c_src[2], make_matrix<float>(c_at), w.stream);
  const std::size_t work = static_cast<std::size_t>(kMax) * (kMax + kMaxPad) * 4;
  for (DeviceBuffer* b : {&w.a, &w.b, &w.c, &w.d}) CUDA_CHECK(cudaMalloc(&b->p, work));
  // P_K for the seven K, row by row: 10^9 integer multiply-adds.
  std::vector<std::int8_t> A(static_cast<std::size_t>(kMax) * kMax), B(A.size());
  for (int r = 0; r < kMax; ++r)
    for (int c = 0; c < kMax; ++c) {
      A[static_cast<std::size_t>(r) * kMax + c] = static_cast<std::int8_t>(a_at(r, c));
      B[static_cast<std::size_t>(r) * kMax + c] = static_cast<std::int8_t>(b_at(r, c));
    }
  for (auto& r : w.ref) r.assign(static_cast<std::size_t>(kMax) * kMax, 0);
  std::vector<std::int32_t> row(kMax);
  for (int i = 0; i < kMax; ++i) {
    std::fill(row.begin(), row.end(), 0);
    std::size_t s = 0;
    for (int l = 0; l < kMax; ++l) {
      const std::int32_t a = A[static_cast<std::size_t>(i) * kMax + l];
      const std::int8_t* b = &B[static_cast<std::size_t>(l) * kMax];
      for (int j = 0; j < kMax; ++j) row[j] += a * b[j];
      if (s < kFullK.size() && l + 1 == kFullK[s]) {
        std::copy(row.begin(), row.end(), w.ref[s].begin() + static_cast<std::ptrdiff_t>(i) * kMax);
        ++s;
      }
    }
  }
  w.ready = true;
}

// ------------------------------------------------------------------ one case

struct Case {
  index_t m, n, k;
  DType ab = DType::bf16, cd = DType::bf16;
  GemmLayout layout{};
  index_t pad = 0;      // added to every leading dimension
  bool with_c = true;   // alpha = 2, beta = -1 with C; else alpha = 1, beta = 0, C null
  GemmTuning tuning{};  // k13's; splits beyond K's k-tiles are cut to them
  index_t offset = 0;   // elements between the buffers' (256-byte aligned) starts and A's and B's
};

std::string describe(GemmImpl impl, const Case& c) {
  return std::string(short_name(impl)) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
         std::to_string(c.k) + " " + name(c.ab) + "->" + name(c.cd) + " " + name(c.layout) + " pad " +
         std::to_string(c.pad) + (c.with_c ? " alpha=2 beta=-1" : " alpha=1 beta=0 C=null") +
         (c.tuning.tile_n || c.tuning.splits
              ? " tile_n " + std::to_string(c.tuning.tile_n) + " splits " + std::to_string(c.tuning.splits)
              : "") +
         (c.tuning.swap_ab == SwapAB::on    ? " swap on"
          : c.tuning.swap_ab == SwapAB::off ? " swap off"
                                            : "");
}

/// Tallies of a sweep.
struct Tally {
  int run = 0, unsupported = 0, nonzero_cases = 0, failed = 0;
  std::string first_unsupported;
};

/// Element bits of output type t at h[idx].
std::uint32_t bits_at(const std::vector<unsigned char>& h, std::size_t idx, DType t) {
  if (t == DType::f32) {
    std::uint32_t x;
    std::memcpy(&x, &h[idx * 4], 4);
    return x;
  }
  std::uint16_t x;
  std::memcpy(&x, &h[idx * 2], 2);
  return x;
}

void run_case(GemmImpl impl, const Case& c, Tally& tally) {
  World& w = *g_world;
  const int ks = k_index(c.k);
  ASSERT_GE(ks, 0);
  const std::size_t ab_size = static_cast<std::size_t>(size_bytes(c.ab)),
                    cd_size = static_cast<std::size_t>(size_bytes(c.cd));
  const bool ak = c.layout.a == MajorA::k, bn = c.layout.b == MajorB::n;
  const index_t a_rows = ak ? c.m : c.k, a_cols = ak ? c.k : c.m;
  const index_t b_rows = bn ? c.k : c.n, b_cols = bn ? c.n : c.k;
  GemmArgs g;
  g.m = c.m, g.n = c.n, g.k = c.k;
  g.ab_type = c.ab, g.cd_type = c.cd, g.layout = c.layout;
  g.lda = a_cols + c.pad, g.ldb = b_cols + c.pad, g.ldc = c.n + c.pad, g.ldd = c.n + c.pad;
  g.a = static_cast<char*>(w.a.p) + c.offset * ab_size, g.b = static_cast<char*>(w.b.p) + c.offset * ab_size;
  g.d = w.d.p;
  g.c = c.with_c ? w.c.p : nullptr;
  g.alpha = c.with_c ? 2.0f : 1.0f;
  g.beta = c.with_c ? -1.0f : 0.0f;
  g.tuning = c.tuning;
  const index_t k_tiles = (c.k + 63) / 64;
  if (g.tuning.splits > k_tiles) g.tuning.splits = static_cast<int>(k_tiles);

  const int at = ab_slot(c.ab);
  CUDA_CHECK(cudaMemcpy2DAsync(const_cast<void*>(g.a), g.lda * ab_size, w.a_src[at][ak ? 0 : 1].p, kMax * ab_size,
                               a_cols * ab_size, a_rows, cudaMemcpyDeviceToDevice, w.stream));
  CUDA_CHECK(cudaMemcpy2DAsync(const_cast<void*>(g.b), g.ldb * ab_size, w.b_src[at][bn ? 0 : 1].p, kMax * ab_size,
                               b_cols * ab_size, b_rows, cudaMemcpyDeviceToDevice, w.stream));
  if (c.with_c)
    CUDA_CHECK(cudaMemcpy2DAsync(w.c.p, g.ldc * cd_size, w.c_src[cd_slot(c.cd)].p, kMax * cd_size, c.n * cd_size, c.m,
                                 cudaMemcpyDeviceToDevice, w.stream));
  const std::size_t d_bytes = static_cast<std::size_t>(c.m * g.ldd) * cd_size;
  CUDA_CHECK(cudaMemsetAsync(w.d.p, 0xFF, d_bytes, w.stream));

  const Status s = gemm(impl, g, w.stream);
  std::vector<unsigned char> h(d_bytes);
  if (s.code == Status::unsupported) {
    // The step's own rule: nothing may have been written.
    CUDA_CHECK(cudaMemcpyAsync(h.data(), w.d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
    CUDA_CHECK(cudaStreamSynchronize(w.stream));
    for (unsigned char x : h) ASSERT_EQ(x, 0xFF) << describe(impl, c) << ": unsupported, but D was written";
    if (tally.unsupported++ == 0) tally.first_unsupported = describe(impl, c) + ": " + s.message;
    return;
  }
  ASSERT_TRUE(s.is_ok()) << describe(impl, c) << ": " << to_string(s.code) << ": " << s.message;
  CUDA_CHECK(cudaMemcpyAsync(h.data(), w.d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
  CUDA_CHECK(cudaStreamSynchronize(w.stream));
  ++tally.run;

  const std::vector<std::int32_t>& P = w.ref[ks];
  const std::uint32_t poison = c.cd == DType::f32 ? 0xFFFFFFFFu : 0xFFFFu;
  int bad = 0;
  bool nonzero = false;
  for (index_t i = 0; i < c.m; ++i)
    for (index_t j = 0; j < g.ldd; ++j) {
      std::uint32_t want = poison;
      if (j < c.n) {
        const std::int64_t p = P[static_cast<std::size_t>(i * kMax + j)];
        const std::int64_t v = c.with_c ? 2 * p - c_at(static_cast<int>(i), static_cast<int>(j)) : p;
        nonzero = nonzero || v != 0;
        want = round_bits(v, c.cd);
      }
      const std::uint32_t got = bits_at(h, static_cast<std::size_t>(i * g.ldd + j), c.cd);
      if (got != want && bad++ < 5)
        ADD_FAILURE() << describe(impl, c) << ": D(" << i << "," << j << ") = 0x" << std::hex << got << ", expected 0x"
                      << want << std::dec << (j >= c.n ? " (row padding: must stay poisoned)" : "");
    }
  EXPECT_EQ(bad, 0) << describe(impl, c);
  tally.failed += bad != 0;
  tally.nonzero_cases += nonzero;
}

// ------------------------------------------------------------------ the fixture

/// A step, and k13's tuning ({0, 0}: the plan's).
struct StepParam {
  GemmImpl impl;
  GemmTuning tuning{};
};

class Gemm : public ::testing::TestWithParam<StepParam> {
 protected:
  static void SetUpTestSuite() {
    if (!::tessel::testing::have_gpu()) return;
    g_world = new World;
    set_up_world(*g_world);
  }
  static void TearDownTestSuite() {
    if (g_world && g_world->stream) cudaStreamDestroy(g_world->stream);
    delete g_world;
    g_world = nullptr;
  }
  /// Skips the test when there is no GPU or the step is not built yet.
  void SetUp() override {
    REQUIRE_GPU();
    ASSERT_TRUE(g_world && g_world->ready) << "test setup failed";
  }
  /// Skips a test of correct results when the step is a placeholder or left
  /// out of this build (TESSEL_BUILD_LADDER=OFF).
  bool step_not_built(std::string& why) const {
    GemmArgs g;
    g.m = g.n = g.k = 64;
    g.lda = g.ldb = g.ldd = 64;
    g.a = g.b = g.d = g_world->d.p;
    const Status s = gemm_check(GetParam().impl, g);
    why = std::string(name(GetParam().impl)) + ": " + s.message;
    return s.code == Status::unsupported && (s.message.find("not built yet") != std::string::npos ||
                                             s.message.find("-DTESSEL_BUILD_LADDER=ON") != std::string::npos);
  }
  /// Every (M, N, K) of the lists in every layout, with both epilogues
  /// (alpha = 2, beta = -1 with C; alpha = 1, beta = 0 without), or, when
  /// `alternate`, one of the two in turn.
  void sweep(const std::vector<index_t>& mn, const std::vector<index_t>& ks, DType ab, DType cd, index_t pad,
             bool alternate) {
    std::string why;
    if (step_not_built(why)) GTEST_SKIP() << why;
    Tally tally;
    int shape = 0;
    for (GemmLayout l : kAllGemmLayouts)
      for (index_t m : mn)
        for (index_t n : mn)
          for (index_t k : ks) {
            ++shape;
            for (bool with_c : {true, false}) {
              if (alternate && with_c != (shape % 2 == 0)) continue;
              run_case(GetParam().impl, Case{m, n, k, ab, cd, l, pad, with_c, GetParam().tuning}, tally);
              if (HasFatalFailure()) return;
              if (tally.failed >= 10) {
                ADD_FAILURE() << name(GetParam().impl) << ": stopping this sweep after 10 failing cases";
                return;
              }
            }
          }
    std::printf("[ %s %d/%d ] %s->%s pad %d: %d cases run, %d unsupported%s%s\n", name(GetParam().impl),
                GetParam().tuning.tile_n, GetParam().tuning.splits, name(ab), name(cd), static_cast<int>(pad),
                tally.run, tally.unsupported, tally.unsupported ? "; first: " : "", tally.first_unsupported.c_str());
    if (tally.run == 0) GTEST_SKIP() << name(GetParam().impl) << " rejected every case: " << tally.first_unsupported;
    EXPECT_GT(tally.nonzero_cases, tally.run * 9 / 10) << "the reference is mostly zero: the test proves little";
  }
};

TEST_P(Gemm, Bf16FullSweep) {
  // 11 x 11 x 7 shapes x 4 layouts x 2 epilogues, bf16 in and out.
  sweep(kFullMN, kFullK, DType::bf16, DType::bf16, 0, false);
}

TEST_P(Gemm, Fp16Inputs) {
  for (DType cd : {DType::f16, DType::bf16, DType::f32}) {
    sweep(kSmallMN, kSmallK, DType::f16, cd, 0, true);
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

TEST_P(Gemm, Fp32AndFp16Outputs) {
  for (DType cd : {DType::f32, DType::f16}) {
    sweep(kSmallMN, kSmallK, DType::bf16, cd, 0, true);
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

TEST_P(Gemm, PaddedLeadingDimensions) {
  // Every leading dimension = contiguous extent + pad; D's row padding must stay poisoned.
  for (index_t pad : {8, 3})
    for (DType ab : {DType::bf16, DType::f16}) {
      sweep(kSmallMN, kSmallK, ab, ab == DType::bf16 ? DType::bf16 : DType::f32, pad, true);
      if (HasFatalFailure() || IsSkipped()) return;
    }
}

/// The small-M kernel with A and B starting 2, 6 and 14 bytes into a 16-byte
/// chunk (a slice of a larger tensor): its first chunk of each operand starts
/// before the operand and is read element by element; the other steps take
/// such pointers through their own rules, swept elsewhere.
TEST_P(Gemm, OperandsOffTheirChunks) {
  if (GetParam().impl != GemmImpl::small_m_stream) GTEST_SKIP() << "the small-M kernel's rule, checked once";
  Tally tally;
  for (index_t offset : {1, 3, 7})
    for (index_t m : {1, 17, 64})
      for (index_t n : {17, 129, 257})
        for (index_t k : kSmallK)
          for (index_t pad : {0, 3}) {
            Case c{m, n, k, DType::bf16, DType::bf16, GemmLayout{}, pad, (m + n) % 2 == 0, GetParam().tuning};
            c.offset = offset;
            run_case(GetParam().impl, c, tally);
            if (HasFatalFailure() || tally.failed >= 10) return;
          }
  EXPECT_EQ(tally.unsupported, 0) << tally.first_unsupported;
  EXPECT_GT(tally.run, 0);
}

/// Each invalid_argument rule of the common checks: the code, and D untouched.
TEST_P(Gemm, RejectsInvalidArgumentsAndWritesNothing) {
  World& w = *g_world;
  const GemmImpl impl = GetParam().impl;
  GemmArgs base;
  base.m = 64, base.n = 48, base.k = 32;
  base.lda = 32, base.ldb = 48, base.ldc = 48, base.ldd = 48;
  base.a = w.a.p, base.b = w.b.p, base.c = w.c.p, base.d = w.d.p;
  base.alpha = 1.0f, base.beta = 1.0f;
  struct Rule {
    const char* what;
    GemmArgs args;
  };
  std::vector<Rule> rules;
  const auto add = [&](const char* what, auto mutate) {
    GemmArgs g = base;
    mutate(g);
    rules.push_back({what, g});
  };
  add("null A", [](GemmArgs& g) { g.a = nullptr; });
  add("null B", [](GemmArgs& g) { g.b = nullptr; });
  add("null D", [](GemmArgs& g) { g.d = nullptr; });
  add("M = 0", [](GemmArgs& g) { g.m = 0; });
  add("N = 0", [](GemmArgs& g) { g.n = 0; });
  add("K = 0", [](GemmArgs& g) { g.k = 0; });
  add("negative M", [](GemmArgs& g) { g.m = -5; });
  add("lda < K (A:k)", [](GemmArgs& g) { g.lda = g.k - 1; });
  add("lda < M (A:m)", [](GemmArgs& g) { g.layout.a = MajorA::m, g.lda = g.m - 1; });
  add("ldb < N (B:n)", [](GemmArgs& g) { g.ldb = g.n - 1; });
  add("ldb < K (B:k)", [](GemmArgs& g) { g.layout.b = MajorB::k, g.ldb = g.k - 1; });
  add("ldd < N", [](GemmArgs& g) { g.ldd = g.n - 1; });
  add("ldc < N with beta != 0", [](GemmArgs& g) { g.ldc = g.n - 1; });
  add("beta != 0 with null C", [](GemmArgs& g) { g.c = nullptr; });
  add("fp32 inputs", [](GemmArgs& g) { g.ab_type = DType::f32; });
  const std::size_t d_bytes = 64 * 48 * 2;
  std::vector<unsigned char> h(d_bytes);
  for (const Rule& r : rules) {
    CUDA_CHECK(cudaMemsetAsync(w.d.p, 0xFF, d_bytes, w.stream));
    const Status s = gemm(impl, r.args, w.stream);
    EXPECT_EQ(s.code, Status::invalid_argument)
        << name(impl) << ", " << r.what << ": got " << to_string(s.code) << ": " << s.message;
    EXPECT_FALSE(s.message.empty()) << r.what;
    EXPECT_EQ(gemm_check(impl, r.args).code, Status::invalid_argument) << r.what;
    CUDA_CHECK(cudaMemcpyAsync(h.data(), w.d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
    CUDA_CHECK(cudaStreamSynchronize(w.stream));
    int written = 0;
    for (unsigned char x : h) written += x != 0xFF;
    EXPECT_EQ(written, 0) << name(impl) << ", " << r.what << ": D was written";
  }
}

/// k13's tuning rules (check_k13_tuning, also `auto`'s): each bad tuning is
/// invalid_argument, by gemm_check and gemm alike, and D stays untouched.
TEST_P(Gemm, RejectsBadK13TuningAndWritesNothing) {
  const GemmImpl impl = GetParam().impl;
  const GemmTuning given = GetParam().tuning;
  if ((impl != GemmImpl::k13_wgmma_in_flight && impl != GemmImpl::automatic) || given.tile_n != 0 ||
      given.splits != 0 || given.swap_ab != SwapAB::plan)
    GTEST_SKIP() << "k13's and auto's rules, checked once each";
  World& w = *g_world;
  GemmArgs base;
  base.m = 16, base.n = 256, base.k = 128;
  base.lda = 128, base.ldb = 256, base.ldd = 256;
  base.a = w.a.p, base.b = w.b.p, base.d = w.d.p;
  struct Bad {
    const char* what;
    GemmTuning t;
  };
  const Bad bad[] = {{"tile_n 48", {48, 0, SwapAB::plan}},
                     {"tile_n 16 with the swap off", {16, 0, SwapAB::off}},
                     {"tile_n 32 with the swap off", {32, 1, SwapAB::off}},
                     {"tile_n 200 with the swap on (not a multiple of 16)", {200, 0, SwapAB::on}},
                     {"tile_n 272 with the swap on (past 256)", {272, 1, SwapAB::on}},
                     {"tile_n 112 with the swap off (a swapped width)", {112, 0, SwapAB::off}},
                     {"swap_ab not a SwapAB value", {0, 0, static_cast<SwapAB>(7)}},
                     {"splits beyond K's k-tiles", {16, 3, SwapAB::on}},
                     {"tile_m 96", {0, 0, SwapAB::plan, 0, GemmJit::off, 96}},
                     {"tile_m 64, tile_n 64 with the swap off", {64, 0, SwapAB::off, 0, GemmJit::off, 64}},
                     {"tile_m 64 with tile_n 256", {256, 0, SwapAB::plan, 0, GemmJit::off, 64}},
                     {"tile_m 64 with tile_n 128 and the swap on", {128, 0, SwapAB::on, 0, GemmJit::off, 64}},
                     {"stages -1", {0, 0, SwapAB::plan, 0, GemmJit::off, 0, false, false, -1}},
                     {"stages 65", {16, 0, SwapAB::on, 0, GemmJit::off, 0, false, false, 65}},
                     {"split_sum not a SplitSum value",
                      {0, 0, SwapAB::plan, 0, GemmJit::off, 0, false, false, 0, 0, static_cast<SplitSum>(9)}}};
  const std::size_t d_bytes = 16 * 256 * 2;
  std::vector<unsigned char> h(d_bytes);
  for (const Bad& b : bad) {
    GemmArgs g = base;
    g.tuning = b.t;
    CUDA_CHECK(cudaMemsetAsync(w.d.p, 0xFF, d_bytes, w.stream));
    const Status s = gemm(impl, g, w.stream);
    EXPECT_EQ(s.code, Status::invalid_argument) << b.what << ": got " << to_string(s.code) << ": " << s.message;
    EXPECT_NE(s.message.find("tuning."), std::string::npos) << b.what << ": the message names no rule: " << s.message;
    EXPECT_EQ(gemm_check(impl, g).code, Status::invalid_argument) << b.what;
    CUDA_CHECK(cudaMemcpyAsync(h.data(), w.d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
    CUDA_CHECK(cudaStreamSynchronize(w.stream));
    int written = 0;
    for (unsigned char x : h) written += x != 0xFF;
    EXPECT_EQ(written, 0) << b.what << ": D was written";
  }
}

// ------------------------------------------------------------------ the fp32 ladder

/// The fp32 steps (f01..f12): fp32 A, B, C and D.  Tier 1 is exact as for
/// the 16-bit steps (integers in [-4,4], |sums| < 2^24), and the host's
/// rounding to fp32 is the identity on them.
class GemmF32 : public Gemm {};

TEST_P(GemmF32, Fp32Sweep) {
  // f02 on: the k09-style sweep, 11 x 11 x 7 shapes x 4 layouts x 2 epilogues;
  // f01 (one thread per element, slow) the small one.
  const bool naive = GetParam().impl == GemmImpl::f01_naive;
  sweep(naive ? kSmallMN : kFullMN, naive ? kSmallK : kFullK, DType::f32, DType::f32, 0, false);
}

TEST_P(GemmF32, Fp32PaddedLeadingDimensions) {
  // +8 keeps 16-byte rows where N (or M, K) is a multiple of 4 (f06..f10's 16-byte
  // cp.async and 128-bit epilogue stores), +3 never does (the 4-byte paths).
  for (index_t pad : {8, 3}) {
    sweep(kSmallMN, kSmallK, DType::f32, DType::f32, pad, true);
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

/// The type rules: 16-bit inputs, or fp32 inputs with a 16-bit output, are
/// invalid_argument naming the rule, and nothing is written.
TEST_P(GemmF32, RejectsOtherTypesAndWritesNothing) {
  if (GetParam().impl == GemmImpl::automatic) GTEST_SKIP() << "auto runs the 16-bit ladder for 16-bit inputs";
  World& w = *g_world;
  const GemmImpl impl = GetParam().impl;
  GemmArgs base;
  base.m = 64, base.n = 48, base.k = 32;
  base.ab_type = DType::f32, base.cd_type = DType::f32;
  base.lda = 32, base.ldb = 48, base.ldc = 48, base.ldd = 48;
  base.a = w.a.p, base.b = w.b.p, base.c = w.c.p, base.d = w.d.p;
  base.alpha = 1.0f, base.beta = 1.0f;
  struct Rule {
    DType ab, cd;
    const char* keyword;
  };
  const std::size_t d_bytes = 64 * 48 * 4;
  std::vector<unsigned char> h(d_bytes);
  for (const Rule& r :
       {Rule{DType::bf16, DType::f32, "A and B must be fp32"}, Rule{DType::f16, DType::f16, "A and B must be fp32"},
        Rule{DType::f32, DType::bf16, "C and D must be fp32"}}) {
    GemmArgs g = base;
    g.ab_type = r.ab, g.cd_type = r.cd;
    CUDA_CHECK(cudaMemsetAsync(w.d.p, 0xFF, d_bytes, w.stream));
    const Status s = gemm(impl, g, w.stream);
    EXPECT_EQ(s.code, Status::invalid_argument) << name(impl) << ": " << s.message;
    EXPECT_NE(s.message.find(r.keyword), std::string::npos) << s.message;
    EXPECT_NE(s.message.find(short_name(impl)), std::string::npos) << s.message;
    CUDA_CHECK(cudaMemcpyAsync(h.data(), w.d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
    CUDA_CHECK(cudaStreamSynchronize(w.stream));
    int written = 0;
    for (unsigned char x : h) written += x != 0xFF;
    EXPECT_EQ(written, 0) << name(impl) << ": D was written";
  }
}

// ------------------------------------------------------------------ fused and unfused epilogues

/// D = act(alpha * A B + beta * C + bias) and aux = the pre-activation value
/// (GemmEpilogue, docs/epilogues.md) through one path: a step and tuning,
/// at one shape, leading-dimension padding and output type, for every
/// activation x bias kind (none, row, col), with aux, and each activation
/// once more without aux.
///
/// The inputs are tier 1's integers scaled to dyadic rationals: alpha = 1/64,
/// beta = -1/8 with C in [-4, 4], the bias in {-4..4}/8.  So x = alpha P +
/// beta C + bias is exact in fp32 (|P| <= 16 K, resolution 2^-6: well inside
/// 24 bits), mostly in [-4, 4] where the activations bend, and the host
/// knows it exactly.  A fused path rounds x once: aux = round(x), D =
/// round(act(x)); the unfused path rounds twice: D1 = round(alpha P + beta
/// C), x' = D1 + bias, aux = round(x'), D = round(act(x')) (the host
/// models both).  none and relu must be bit-exact (compared as values: +0 ==
/// -0).  The other activations are compared with a double reference:
///   |D - act(x)| <= 1 ulp of act(x) in the output type  (the final rounding, with margin)
///                  + |x| * e_act + 2^-24                 (the fp32 evaluation)
/// with e_act = 2^-11 for gelu_tanh (tanh.approx.f32's relative error
/// 2^-10.99, times 0.5 |x|, doubled for margin), 2^-16 for silu (__expf's
/// and rcp.approx's few ulp, growing with |x|), 2^-20 for gelu_erf (erff's
/// 2 ulp and the cancellation in 1 + erf near x << 0).
struct EpiPath {
  GemmImpl impl;
  GemmTuning tuning{};
  index_t m = 257, n = 300, k = 192;  // partial tiles at every width; 3 k-tiles
  index_t pad = 0;                    // added to every leading dimension (3: odd, D not TMA-describable)
  DType ab = DType::bf16;
  const char* what = "";
  bool every_config = false;  // GemmEpiJit: all 60 epilogue configurations (else a few)
};

/// gtest prints a parameter by its name (not its bytes).
void PrintTo(const EpiPath& p, std::ostream* os) { *os << p.what; }

/// x rounded to nearest even with `t`'s significand (no overflow or
/// subnormals at these magnitudes).
double round_to(double x, DType t) {
  if (x == 0.0) return 0.0;
  const int p = t == DType::bf16 ? 8 : t == DType::f16 ? 11 : 24;
  const double q = std::ldexp(1.0, std::ilogb(x) - p + 1);
  return std::nearbyint(x / q) * q;  // the default rounding mode: ties to even
}
double ulp_of(double x, DType t) {
  const int p = t == DType::bf16 ? 8 : t == DType::f16 ? 11 : 24;
  return x == 0.0 ? std::ldexp(1.0, -24) : std::ldexp(1.0, std::ilogb(x) - p + 1);
}
double act_ref(Activation a, double x) {
  switch (a) {
    case Activation::none:
      return x;
    case Activation::relu:
      return x > 0 ? x : 0.0;
    case Activation::gelu_erf:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Activation::gelu_tanh:
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case Activation::silu:
      return x / (1.0 + std::exp(-x));
  }
  return x;
}
double act_tolerance(Activation a) {
  return a == Activation::gelu_tanh  ? std::ldexp(1.0, -11)
         : a == Activation::silu     ? std::ldexp(1.0, -16)
         : a == Activation::gelu_erf ? std::ldexp(1.0, -20)
                                     : 0.0;
}
/// The value of element `idx` of output type t in host bytes h.
double elem_value(const std::vector<unsigned char>& h, std::size_t idx, DType t) {
  if (t == DType::f32) {
    float x;
    std::memcpy(&x, &h[idx * 4], 4);
    return x;
  }
  std::uint16_t b;
  std::memcpy(&b, &h[idx * 2], 2);
  if (t == DType::bf16) {
    const std::uint32_t w = std::uint32_t{b} << 16;
    float x;
    std::memcpy(&x, &w, 4);
    return x;
  }
  __half_raw raw;
  raw.x = b;
  return static_cast<double>(__half2float(__half(raw)));
}
/// The bias value of index `idx` (a row for row bias, a column for col bias): {-4..4}/8.
double bias_at(int idx) { return value_at(4, idx, 0) / 8.0; }

/// Is the call fused (k13's fused instance) or the plain GEMM + gemm_epilogue_apply?
bool runs_fused(GemmImpl impl, const GemmArgs& g) {
  if (impl == GemmImpl::k15_pingpong) return g.beta == 0.0f && g.epilogue.aux == nullptr;  // launch_k15
  if (impl != GemmImpl::automatic && impl != GemmImpl::k13_wgmma_in_flight) return false;
  const GemmPlan p = gemm_plan(g);
  if (impl == GemmImpl::automatic && p.impl == GemmImpl::k15_pingpong) return runs_fused(p.impl, g);
  return p.impl == GemmImpl::k13_wgmma_in_flight && k13_fuses(p.tuning, g.beta, g.epilogue.aux != nullptr);
}
/// Does the plan send the call to a run-time compiled fused instance
/// (GemmTuning::jit, docs/design.md §6)?  It rounds as the fused path does.
bool runs_jit(GemmImpl impl, const GemmArgs& g) {
  if (impl != GemmImpl::automatic && impl != GemmImpl::k13_wgmma_in_flight) return false;
  const GemmPlan p = gemm_plan(g);
  return p.impl == GemmImpl::k13_wgmma_in_flight && p.why.find("jit specialized epilogue") != std::string::npos;
}

/// The epilogue's paths (the fixture's parameter); World as Gemm's.
class GemmEpi : public ::testing::TestWithParam<EpiPath> {
 protected:
  static constexpr std::size_t kVecBytes = kMax * 4;  // a bias of up to 1000 fp32
  static constexpr std::size_t kAuxBytes = std::size_t{kMax} * (kMax + kMaxPad) * 4;
  DeviceBuffer bias_, aux_;
  static void SetUpTestSuite() {
    if (!::tessel::testing::have_gpu()) return;
    g_world = new World;
    set_up_world(*g_world);
  }
  static void TearDownTestSuite() {
    if (g_world && g_world->stream) cudaStreamDestroy(g_world->stream);
    delete g_world;
    g_world = nullptr;
  }
  void SetUp() override {
    REQUIRE_GPU();
    ASSERT_TRUE(g_world && g_world->ready) << "test setup failed";
    CUDA_CHECK(cudaMalloc(&bias_.p, kVecBytes));
    CUDA_CHECK(cudaMalloc(&aux_.p, kAuxBytes));
  }

  double last_call_seconds_ = 0;  // run()'s tessel::gemm call and a stream synchronization, wall time
  bool last_ran_jit_ = false;     // run()'s call took a run-time compiled kernel (runs_jit)

  /// One call through `path`, checked element by element (D and aux, their
  /// row padding poisoned and untouched; aux's whole buffer untouched
  /// without aux); `cases` counts the calls made.  `with_c`: beta = -1/8
  /// with C (the default), else beta = 0 and C null.
  void run(const EpiPath& path, DType cd, Activation act, BiasKind kind, bool with_aux, int& cases,
           bool with_c = true) {
    World& w = *g_world;
    const index_t m = path.m, n = path.n, k = path.k;
    const int ks = k_index(k);
    ASSERT_GE(ks, 0);
    const std::size_t ab_size = static_cast<std::size_t>(size_bytes(path.ab)),
                      cd_size = static_cast<std::size_t>(size_bytes(cd));
    GemmArgs g;
    g.m = m, g.n = n, g.k = k;
    g.ab_type = path.ab, g.cd_type = cd;  // A:k, B:n
    g.lda = k + path.pad, g.ldb = n + path.pad, g.ldc = n + path.pad, g.ldd = n + path.pad;
    g.a = w.a.p, g.b = w.b.p, g.c = with_c ? w.c.p : nullptr, g.d = w.d.p;
    g.alpha = 1.0f / 64.0f, g.beta = with_c ? -1.0f / 8.0f : 0.0f;
    g.tuning = path.tuning;
    g.epilogue.act = act;
    g.epilogue.bias_kind = kind;
    g.epilogue.bias = kind == BiasKind::none ? nullptr : bias_.p;
    g.epilogue.aux = with_aux ? aux_.p : nullptr;
    g.epilogue.ldaux = with_aux ? n + path.pad : 0;
    const int at = ab_slot(path.ab);
    CUDA_CHECK(cudaMemcpy2DAsync(w.a.p, g.lda * ab_size, w.a_src[at][0].p, kMax * ab_size, k * ab_size, m,
                                 cudaMemcpyDeviceToDevice, w.stream));
    CUDA_CHECK(cudaMemcpy2DAsync(w.b.p, g.ldb * ab_size, w.b_src[at][0].p, kMax * ab_size, n * ab_size, k,
                                 cudaMemcpyDeviceToDevice, w.stream));
    CUDA_CHECK(cudaMemcpy2DAsync(w.c.p, g.ldc * cd_size, w.c_src[cd_slot(cd)].p, kMax * cd_size, n * cd_size, m,
                                 cudaMemcpyDeviceToDevice, w.stream));
    // The bias in D's type: exact ({-4..4}/8 needs 3 significant bits).
    const index_t len = kind == BiasKind::row ? m : n;
    std::vector<unsigned char> hb(static_cast<std::size_t>(len) * cd_size);
    for (index_t i = 0; i < len; ++i) {
      const float v = static_cast<float>(bias_at(static_cast<int>(i)));
      if (cd == DType::f32) {
        std::memcpy(&hb[i * 4], &v, 4);
      } else if (cd == DType::bf16) {
        const __nv_bfloat16 x = __float2bfloat16_rn(v);
        std::memcpy(&hb[i * 2], &x, 2);
      } else {
        const __half x = __float2half_rn(v);
        std::memcpy(&hb[i * 2], &x, 2);
      }
    }
    CUDA_CHECK(cudaMemcpyAsync(bias_.p, hb.data(), hb.size(), cudaMemcpyHostToDevice, w.stream));
    const std::size_t d_bytes = static_cast<std::size_t>(m * g.ldd) * cd_size;
    CUDA_CHECK(cudaMemsetAsync(w.d.p, 0xFF, d_bytes, w.stream));
    CUDA_CHECK(cudaMemsetAsync(aux_.p, 0xFF, d_bytes, w.stream));
    const bool jit = runs_jit(path.impl, g);
    const bool fused = jit || runs_fused(path.impl, g);
    const std::string what = std::string(path.what) + " (" +
                             (jit     ? "jit"
                              : fused ? "fused"
                                      : "unfused") +
                             ") " + name(path.ab) + "->" + name(cd) + " " + name(act) + " bias " + name(kind) +
                             (with_c ? " C" : "") + (with_aux ? " aux" : "");
    CUDA_CHECK(cudaStreamSynchronize(w.stream));  // the copies above are not the call's time
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = gemm(path.impl, g, w.stream);
    CUDA_CHECK(cudaStreamSynchronize(w.stream));
    last_call_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<unsigned char> hd(d_bytes), ha(d_bytes);
    if (with_c && path.impl == GemmImpl::k15_pingpong) {
      // k15 reads no C (check_k15): beta != 0 is rejected, and nothing is written.
      ASSERT_EQ(s.code, Status::unsupported) << what << ": " << s.message;
      CUDA_CHECK(cudaMemcpyAsync(hd.data(), w.d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
      CUDA_CHECK(cudaMemcpyAsync(ha.data(), aux_.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
      CUDA_CHECK(cudaStreamSynchronize(w.stream));
      for (std::size_t i = 0; i < d_bytes; ++i) ASSERT_TRUE(hd[i] == 0xFF && ha[i] == 0xFF) << what << ": written";
      return;
    }
    ASSERT_TRUE(s.is_ok()) << what << ": " << to_string(s.code) << ": " << s.message;
    // A call that asked for a run-time compiled kernel and fell back says so in its message.
    if (jit) ASSERT_TRUE(s.message.empty()) << what << ": fell back to the ahead-of-time path: " << s.message;
    last_ran_jit_ = jit;
    CUDA_CHECK(cudaMemcpyAsync(hd.data(), w.d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
    CUDA_CHECK(cudaMemcpyAsync(ha.data(), aux_.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
    CUDA_CHECK(cudaStreamSynchronize(w.stream));
    ++cases;

    const std::vector<std::int32_t>& P = w.ref[ks];
    const double tol_act = act_tolerance(act);
    const bool exact = tol_act == 0.0;
    int bad = 0;
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < g.ldd; ++j) {
        const std::size_t idx = static_cast<std::size_t>(i * g.ldd + j);
        const double got = elem_value(hd, idx, cd), got_aux = elem_value(ha, idx, cd);
        if (j >= n) {  // row padding: both stay poisoned (NaN)
          if ((!std::isnan(got) || !std::isnan(got_aux)) && bad++ < 5)
            ADD_FAILURE() << what << ": (" << i << "," << j << ") row padding written";
          continue;
        }
        const double v = P[static_cast<std::size_t>(i * kMax + j)] / 64.0 -
                         (with_c ? c_at(static_cast<int>(i), static_cast<int>(j)) / 8.0 : 0.0);
        const double b = kind == BiasKind::row   ? bias_at(static_cast<int>(i))
                         : kind == BiasKind::col ? bias_at(static_cast<int>(j))
                                                 : 0.0;
        const double x = fused ? v + b : round_to(v, cd) + b;  // exact in double and fp32
        const double want_aux = round_to(x, cd);
        const double ref = act_ref(act, x);
        const bool ok_d = exact ? got == round_to(ref, cd)
                                : std::fabs(got - ref) <= ulp_of(ref, cd) + std::fabs(x) * tol_act + 0x1p-24;
        const bool ok_aux = with_aux ? got_aux == want_aux : std::isnan(got_aux);  // no aux: its buffer untouched
        if ((!ok_d || !ok_aux) && bad++ < 5)
          ADD_FAILURE() << what << ": (" << i << "," << j << ") x = " << x << ": D = " << got << ", want "
                        << (exact ? round_to(ref, cd) : ref) << (with_aux ? ", aux = " : "")
                        << (with_aux ? std::to_string(got_aux) + ", want " + std::to_string(want_aux) : "");
      }
    EXPECT_EQ(bad, 0) << what;
  }
};

TEST_P(GemmEpi, EveryActivationBiasAndOutputType) {
  const EpiPath& path = GetParam();
  int cases = 0;
  const std::vector<DType> outs =
      path.ab == DType::f32 ? std::vector<DType>{DType::f32} : std::vector<DType>{DType::bf16, DType::f16, DType::f32};
  for (DType cd : outs)
    for (Activation act : kAllActivations) {
      for (BiasKind kind : kAllBiasKinds) {
        run(path, cd, act, kind, true, cases);
        if (HasFatalFailure()) return;
      }
      run(path, cd, act, BiasKind::col, false, cases);
      if (HasFatalFailure()) return;
      // beta = 0, C null, no aux: what k13's ahead-of-time fused instances
      // take (k13_fuses); the calls above, with C, run unfused on k13.
      for (BiasKind kind : kAllBiasKinds) {
        run(path, cd, act, kind, false, cases, false);
        if (HasFatalFailure()) return;
      }
    }
  std::printf("[ %s ] %d epilogue cases\n", path.what, cases);
}

/// A rejected epilogue writes nothing: D and aux stay poisoned.
TEST_P(GemmEpi, RejectedEpilogueWritesNothing) {
  const EpiPath& path = GetParam();
  World& w = *g_world;
  GemmArgs base;
  base.m = 64, base.n = 48, base.k = 64;
  base.ab_type = path.ab, base.cd_type = path.ab == DType::f32 ? DType::f32 : DType::bf16;
  base.lda = 64, base.ldb = 48, base.ldd = 48;
  base.a = w.a.p, base.b = w.b.p, base.d = w.d.p;
  base.tuning = path.tuning;
  base.epilogue.act = Activation::gelu_tanh;
  base.epilogue.bias_kind = BiasKind::col;
  base.epilogue.bias = bias_.p;
  base.epilogue.aux = aux_.p;
  base.epilogue.ldaux = 48;
  struct Bad {
    const char* what;
    void (*mutate)(GemmArgs&);
  };
  const Bad bad[] = {
      {"null bias with bias_kind col", [](GemmArgs& g) { g.epilogue.bias = nullptr; }},
      {"bias without a kind", [](GemmArgs& g) { g.epilogue.bias_kind = BiasKind::none; }},
      {"activation out of range", [](GemmArgs& g) { g.epilogue.act = static_cast<Activation>(42); }},
      {"ldaux < N", [](GemmArgs& g) { g.epilogue.ldaux = 47; }},
      {"aux overlapping D", [](GemmArgs& g) { g.epilogue.aux = static_cast<char*>(g.d) + 64; }},
      {"bias overlapping D", [](GemmArgs& g) { g.epilogue.bias = g.d; }},
      {"misaligned aux", [](GemmArgs& g) { g.epilogue.aux = static_cast<char*>(g.epilogue.aux) + 1; }},
  };
  const std::size_t bytes = 64 * 48 * 4;
  std::vector<unsigned char> hd(bytes), ha(bytes);
  for (const Bad& b : bad) {
    GemmArgs g = base;
    b.mutate(g);
    CUDA_CHECK(cudaMemsetAsync(w.d.p, 0xFF, bytes, w.stream));
    CUDA_CHECK(cudaMemsetAsync(aux_.p, 0xFF, bytes, w.stream));
    const Status s = gemm(path.impl, g, w.stream);
    EXPECT_EQ(s.code, Status::invalid_argument) << path.what << ", " << b.what << ": " << s.message;
    EXPECT_NE(s.message.find("epilogue."), std::string::npos) << b.what << ": " << s.message;
    CUDA_CHECK(cudaMemcpyAsync(hd.data(), w.d.p, bytes, cudaMemcpyDeviceToHost, w.stream));
    CUDA_CHECK(cudaMemcpyAsync(ha.data(), aux_.p, bytes, cudaMemcpyDeviceToHost, w.stream));
    CUDA_CHECK(cudaStreamSynchronize(w.stream));
    int written = 0;
    for (std::size_t i = 0; i < bytes; ++i) written += (hd[i] != 0xFF) + (ha[i] != 0xFF);
    EXPECT_EQ(written, 0) << path.what << ", " << b.what << ": D or aux was written";
  }
}

std::vector<EpiPath> epi_paths() {
  using G = GemmImpl;
  return {
      {G::automatic, {}, 257, 300, 192, 0, DType::bf16, "auto"},  // the plan's fused tile, partial tiles
      {G::k13_wgmma_in_flight, {64, 1}, 257, 300, 192, 0, DType::bf16, "k13_n64"},
      {G::k13_wgmma_in_flight, {128, 1}, 257, 300, 192, 0, DType::bf16, "k13_n128"},
      {G::k13_wgmma_in_flight, {256, 1}, 257, 300, 192, 0, DType::bf16, "k13_n256"},
      {G::k13_wgmma_in_flight, {128, 3}, 257, 300, 192, 0, DType::bf16, "k13_n128_split3"},
      {G::k13_wgmma_in_flight, {256, 2}, 129, 1000, 1000, 0, DType::f16, "k13_n256_split2_fp16"},
      // 8 x 16 tiles x 4 splits = 512 units, several a CTA: the bias slice
      // of a unit is written after its main loop (BiasShare), while other
      // threads may still read the previous unit's (the other paths have
      // fewer units than an H100 has SMs).
      {G::k13_wgmma_in_flight, {64, 4}, 1000, 1000, 1000, 0, DType::bf16, "k13_n64_split4_units"},
      // Odd leading dimensions: D is not TMA-describable (the row stores),
      // aux takes single stores, A and B go through the padded copies.
      {G::k13_wgmma_in_flight, {128, 1}, 257, 300, 192, 3, DType::bf16, "k13_n128_rowstore"},
      {G::k13_wgmma_in_flight, {256, 3}, 257, 300, 192, 3, DType::bf16, "k13_n256_rowstore_split3"},
      // No fused instance: the plain kernel, then the elementwise epilogue.
      {G::k13_wgmma_in_flight, {192, 1}, 257, 300, 192, 0, DType::bf16, "k13_n192_unfused"},
      {G::k13_wgmma_in_flight, {32, 1, SwapAB::on}, 17, 300, 192, 0, DType::bf16, "k13_swap_unfused"},
      {G::k11_tma_store_epilogue, {}, 257, 300, 192, 0, DType::bf16, "k11_unfused"},
      {G::k14_cluster_multicast, {}, 257, 300, 192, 0, DType::bf16, "k14_unfused"},
      // k15 (pingpong): its fused instance (beta = 0, no aux), aux through the
      // plain kernel + the elementwise epilogue, C rejected; both D paths.
      {G::k15_pingpong, {}, 257, 300, 192, 0, DType::bf16, "k15"},
      {G::k15_pingpong, {}, 257, 300, 192, 3, DType::f16, "k15_rowstore_fp16"},
      {G::f07_two_ctas_per_sm, {}, 257, 300, 192, 3, DType::f32, "f07_unfused"},
  };
}

std::string epi_name(const ::testing::TestParamInfo<EpiPath>& info) { return info.param.what; }

INSTANTIATE_TEST_SUITE_P(Paths, GemmEpi, ::testing::ValuesIn(epi_paths()), epi_name);

// ------------------------------------------------------------------ prescaled activations

/// out[a * n + i] = activate<A>(x[i]) and out[(5 + a) * n + i] =
/// activate_prescaled<A>(prescale_of(A) * x[i]) as bits, for the five
/// activations A (a = their index).
__global__ void activations_both_ways(const float* x, std::uint32_t* out, int n) {
  namespace gk = tessel::gemm_kernels;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  const auto put = [&](int a, float plain, float prescaled) {
    out[a * n + i] = __float_as_uint(plain);
    out[(5 + a) * n + i] = __float_as_uint(prescaled);
  };
  put(0, gk::activate<Activation::none>(v), gk::activate_prescaled<Activation::none>(v));
  put(1, gk::activate<Activation::relu>(v), gk::activate_prescaled<Activation::relu>(v));
  put(2, gk::activate<Activation::gelu_erf>(v),
      gk::activate_prescaled<Activation::gelu_erf>(gk::prescale_of(Activation::gelu_erf) * v));
  put(3, gk::activate<Activation::gelu_tanh>(v),
      gk::activate_prescaled<Activation::gelu_tanh>(gk::prescale_of(Activation::gelu_tanh) * v));
  put(4, gk::activate<Activation::silu>(v), gk::activate_prescaled<Activation::silu>(v));
}

// The fused instances start the GELUs from h = x / 2 (fused_epilogue.cuh,
// activate_prescaled): every operation is a power of two times
// activate's, so the result must be activate's bit for bit, on every
// normal fp32 x (x / 2 of a subnormal drops a bit), the infinities and a
// NaN included.  Checked on a sweep of every 2^-11 step of the mantissa
// over the exponents -125..127, both signs.
TEST(GemmEpiMath, PrescaledActivationsAreActivateBitForBit) {
  REQUIRE_GPU();
  std::vector<float> x;
  for (int e = -125; e <= 127; ++e)
    for (int f = 0; f < 2048; ++f)
      for (float sign : {1.0f, -1.0f}) x.push_back(sign * std::ldexp(1.0f + f / 2048.0f, e));
  for (float v : {0.0f, -0.0f, INFINITY, -INFINITY, NAN}) x.push_back(v);
  const int n = static_cast<int>(x.size());
  tessel::testing::DeviceArray<float> dx(x.size());
  tessel::testing::DeviceArray<std::uint32_t> dout(10 * x.size());
  ASSERT_NE(dx.ptr, nullptr);
  ASSERT_NE(dout.ptr, nullptr);
  ASSERT_EQ(dx.upload(x), cudaSuccess);
  ASSERT_EQ(dout.fill_bytes(0xFF), cudaSuccess);
  activations_both_ways<<<(n + 255) / 256, 256>>>(dx.ptr, dout.ptr, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<std::uint32_t> out;
  ASSERT_EQ(dout.download(out), cudaSuccess);
  const char* names[5] = {"none", "relu", "gelu_erf", "gelu_tanh", "silu"};
  for (int a = 0; a < 5; ++a) {
    int bad = 0;
    for (int i = 0; i < n && bad < 5; ++i) {
      const std::uint32_t p = out[a * n + i], q = out[(5 + a) * n + i];
      const bool both_nan = std::isnan(std::bit_cast<float>(p)) && std::isnan(std::bit_cast<float>(q));
      if (p != q && !both_nan) {
        ++bad;
        ADD_FAILURE() << names[a] << "(" << x[i] << "): activate " << std::bit_cast<float>(p) << ", prescaled "
                      << std::bit_cast<float>(q);
      }
    }
  }
}

// ------------------------------------------------------------------ run-time compiled epilogues

/// k13's run-time compiled fused instances (GemmTuning::jit, docs/design.md
/// §6): the fused path's model (one rounding of x) on the same inputs and
/// tolerances as GemmEpi, with C (beta = -1/8) and without it (beta = 0),
/// with aux and without it.  Every configuration a test runs is prepared
/// first (gemm_jit_prepare), from as many threads as the machine has cores,
/// so its nvcc compiles run in parallel (a configuration is one kernel; the
/// output type is a run-time value inside it); the calls must then each
/// reuse a loaded kernel (jit_stats().memory_hits) and none may fall back.
/// The cubins go to TESSEL_CACHE_DIR if set, else to the build tree's
/// tests/cuda/jit_cache (a second run loads them from there).
struct JitConfig {
  Activation act;
  BiasKind kind;
  bool with_c, with_aux;
};
std::string describe(const JitConfig& c) {
  return std::string(name(c.act)) + " bias " + name(c.kind) + (c.with_c ? " C" : "") + (c.with_aux ? " aux" : "");
}
std::vector<JitConfig> every_jit_config() {
  std::vector<JitConfig> out;
  for (Activation act : kAllActivations)
    for (BiasKind kind : kAllBiasKinds)
      for (bool with_c : {false, true})
        for (bool with_aux : {false, true}) out.push_back({act, kind, with_c, with_aux});
  return out;
}
/// A few configurations for the paths that vary something else (width,
/// split K, row stores, input type): each epilogue part at least once.
std::vector<JitConfig> some_jit_configs() {
  return {{Activation::gelu_tanh, BiasKind::col, true, true},
          {Activation::silu, BiasKind::row, true, false},
          {Activation::relu, BiasKind::none, false, true},
          {Activation::gelu_erf, BiasKind::col, false, false}};
}

class GemmEpiJit : public GemmEpi {
 protected:
  static void SetUpTestSuite() {
    ::setenv("TESSEL_CACHE_DIR", TESSEL_JIT_TEST_CACHE, 0);  // the caller's, if set
    GemmEpi::SetUpTestSuite();
  }
  /// Skips without a run-time compiler (no nvcc, no headers).
  bool no_compiler(std::string& why) const { return jit_compiler(&why).empty(); }

  /// gemm_jit_prepare for every configuration of `configs` through `path`,
  /// in parallel; fails the test on any failure.
  void prepare_all(const EpiPath& path, const std::vector<JitConfig>& configs) {
    World& w = *g_world;
    std::vector<GemmArgs> calls;
    for (const JitConfig& c : configs) {
      GemmArgs g;
      g.m = path.m, g.n = path.n, g.k = path.k;
      g.ab_type = path.ab, g.cd_type = DType::bf16;
      g.lda = path.k + path.pad, g.ldb = path.n + path.pad, g.ldc = path.n + path.pad, g.ldd = path.n + path.pad;
      g.a = w.a.p, g.b = w.b.p, g.c = c.with_c ? w.c.p : nullptr, g.d = w.d.p;
      g.alpha = 1.0f / 64.0f, g.beta = c.with_c ? -1.0f / 8.0f : 0.0f;
      g.tuning = path.tuning;
      g.epilogue.act = c.act;
      g.epilogue.bias_kind = c.kind;
      g.epilogue.bias = c.kind == BiasKind::none ? nullptr : bias_.p;
      g.epilogue.aux = c.with_aux ? aux_.p : nullptr;
      g.epilogue.ldaux = c.with_aux ? g.ldd : 0;
      calls.push_back(g);
    }
    const JitStats before = jit_stats();
    std::atomic<std::size_t> next{0};
    std::mutex mu;
    std::vector<std::string> failures;
    const auto worker = [&] {
      for (std::size_t i; (i = next.fetch_add(1)) < calls.size();) {
        const Status s = gemm_jit_prepare(path.impl, calls[i]);
        if (!s) {
          std::lock_guard<std::mutex> lock(mu);
          failures.push_back(describe(configs[i]) + ": " + s.message);
        }
      }
    };
    const unsigned threads =
        std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(calls.size())));
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (std::thread& t : pool) t.join();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const JitStats after = jit_stats();
    std::printf(
        "[ %s ] %zu configurations prepared in %.1f s on %u threads: %llu compiled, %llu from the disk cache "
        "(%s)\n",
        path.what, calls.size(), secs, threads, static_cast<unsigned long long>(after.compiled - before.compiled),
        static_cast<unsigned long long>(after.disk_hits - before.disk_hits), jit_cache_dir().c_str());
    for (const std::string& f : failures) ADD_FAILURE() << path.what << ": " << f;
  }
};

TEST_P(GemmEpiJit, EveryActivationBiasCAndAux) {
  const EpiPath& path = GetParam();
  std::string why;
  if (no_compiler(why)) GTEST_SKIP() << "no run-time compiler: " << why;
  const std::vector<JitConfig> configs = path.every_config ? every_jit_config() : some_jit_configs();
  prepare_all(path, configs);
  if (HasFailure()) return;
  const JitStats before = jit_stats();
  int cases = 0, jit_cases = 0;
  for (DType cd : {DType::bf16, DType::f16, DType::f32})
    for (const JitConfig& c : configs) {
      run(path, cd, c.act, c.kind, c.with_aux, cases, c.with_c);
      if (HasFatalFailure()) return;
      jit_cases += last_ran_jit_;
      // GemmJit::always compiles every configuration; on, those with C or
      // aux.  No activation, no bias and no aux is no epilogue at all: the
      // plain GEMM runs (with or without C), never a compiled one.
      const bool epilogue = c.act != Activation::none || c.kind != BiasKind::none || c.with_aux;
      EXPECT_EQ(last_ran_jit_, epilogue && (path.tuning.jit == GemmJit::always || c.with_c || c.with_aux))
          << describe(c);
    }
  const JitStats after = jit_stats();
  EXPECT_EQ(after.compiled, before.compiled) << "every configuration was prepared";
  EXPECT_EQ(after.fallbacks, before.fallbacks);
  EXPECT_EQ(after.memory_hits - before.memory_hits, static_cast<std::uint64_t>(jit_cases))
      << "each call reuses the kernel loaded by gemm_jit_prepare";
  std::printf("[ %s ] %d epilogue cases, %d of them run-time compiled\n", path.what, cases, jit_cases);
}

std::vector<EpiPath> jit_paths() {
  using G = GemmImpl;
  const auto jit = [](int w, int splits) { return GemmTuning{w, splits, SwapAB::plan, 0, GemmJit::always}; };
  return {
      // Every configuration where the ahead-of-time instance spilled (128 x 256).
      {G::k13_wgmma_in_flight, jit(256, 1), 257, 300, 192, 0, DType::bf16, "jit_n256", true},
      {G::k13_wgmma_in_flight, jit(64, 1), 257, 300, 192, 0, DType::bf16, "jit_n64"},
      {G::k13_wgmma_in_flight, jit(128, 3), 257, 300, 192, 0, DType::bf16, "jit_n128_split3"},
      // Odd leading dimensions: D by row stores, aux by single stores, A and B padded.
      {G::k13_wgmma_in_flight, jit(256, 3), 257, 300, 192, 3, DType::bf16, "jit_n256_rowstore_split3"},
      {G::k13_wgmma_in_flight, jit(256, 2), 129, 1000, 1000, 0, DType::f16, "jit_n256_split2_fp16"},
      // The plan's tile (auto keeps the caller's jit).
      {G::automatic, GemmTuning{0, 0, SwapAB::plan, 0, GemmJit::on}, 257, 300, 192, 0, DType::bf16, "jit_auto"},
  };
}
INSTANTIATE_TEST_SUITE_P(Jit, GemmEpiJit, ::testing::ValuesIn(jit_paths()), epi_name);

}  // namespace
extern char** environ;  // the process's environment, for the children below
namespace {

/// Runs this test binary again as a child process, with `filter` and the
/// environment plus `vars`, and returns its exit status (-1: not started).
int run_child(const std::string& filter, const std::vector<std::string>& vars) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    // A sharded parent's shard would leave the child's one test out of its shard: the child ran nothing and passed.
    bool dropped = kv.rfind("GTEST_TOTAL_SHARDS=", 0) == 0 || kv.rfind("GTEST_SHARD_INDEX=", 0) == 0 ||
                   kv.rfind("GTEST_SHARD_STATUS_FILE=", 0) == 0;
    for (const std::string& v : vars)
      dropped = dropped || kv.substr(0, kv.find('=') + 1) == v.substr(0, v.find('=') + 1);
    if (!dropped) env.push_back(kv);
  }
  env.insert(env.end(), vars.begin(), vars.end());
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", arg = "--gtest_filter=" + filter;
  char* argv[] = {self.data(), arg.data(), nullptr};
  std::fflush(stdout);
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// One configuration no other test uses (fp16 in, 128 x 128, SiLU, row bias,
/// C and aux), in a fresh cache directory: the first call compiles it (a
/// first call's latency: nvcc, load, launch), the second reuses the loaded
/// kernel (a lookup), and a fresh process loads it from the disk cache (the
/// toolchain's probe, the file, the load, the launch).  The three latencies
/// are printed; each call's result is checked as in GemmEpi.
class GemmJitCache : public GemmEpi {
 protected:
  void SetUp() override { SKIP_UNBUILT_GEMM(false, path().ab, GemmLayout{}); }
  static EpiPath path() {
    return {GemmImpl::k13_wgmma_in_flight,
            GemmTuning{128, 1, SwapAB::plan, 0, GemmJit::on},
            257,
            300,
            192,
            0,
            DType::f16,
            "jit_cache"};
  }
  static bool is_child(const char* role) {
    const char* v = std::getenv("TESSEL_JIT_TEST_CHILD");
    return v != nullptr && std::strcmp(v, role) == 0;
  }
};

TEST_F(GemmJitCache, MemoryHitThenDiskHitInAFreshProcess) {
  std::string why;
  if (jit_compiler(&why).empty()) GTEST_SKIP() << "no run-time compiler: " << why;
  char dir_template[] = "/tmp/tessel-jit-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const char* old = std::getenv("TESSEL_CACHE_DIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TESSEL_CACHE_DIR", dir.c_str(), 1);
  int cases = 0;
  const JitStats s0 = jit_stats();
  run(path(), DType::bf16, Activation::silu, BiasKind::row, true, cases, true);
  const double first = last_call_seconds_;
  const JitStats s1 = jit_stats();
  run(path(), DType::bf16, Activation::silu, BiasKind::row, true, cases, true);
  const double second = last_call_seconds_;
  const JitStats s2 = jit_stats();
  EXPECT_EQ(s1.compiled - s0.compiled, 1u) << "the first call compiles (a fresh cache): " << jit_last_message();
  EXPECT_EQ(s2.compiled, s1.compiled);
  EXPECT_EQ(s2.memory_hits - s1.memory_hits, 1u) << "the second call reuses the loaded kernel";
  std::printf("[ jit_cache ] first call (nvcc + load + launch) %.3f s; second call (in-process cache) %.6f s\n", first,
              second);
  std::printf("[ jit_cache ] %s\n", jit_last_message().c_str());
  const int rc =
      run_child("GemmJitCache.ChildLoadsFromDisk", {"TESSEL_CACHE_DIR=" + dir, "TESSEL_JIT_TEST_CHILD=disk"});
  EXPECT_EQ(rc, 0) << "the fresh process's call (its output is above)";
  int removed = 0;
  EXPECT_TRUE(jit_cache_clear(&removed).is_ok());  // TESSEL_CACHE_DIR is still `dir`
  EXPECT_EQ(removed, 2);                           // the cubin and its manifest
  if (saved.empty())
    ::unsetenv("TESSEL_CACHE_DIR");
  else
    ::setenv("TESSEL_CACHE_DIR", saved.c_str(), 1);
}

TEST_F(GemmJitCache, ChildLoadsFromDisk) {
  if (!is_child("disk")) GTEST_SKIP() << "runs as the child of GemmJitCache.MemoryHitThenDiskHitInAFreshProcess";
  int cases = 0;
  const JitStats s0 = jit_stats();
  run(path(), DType::bf16, Activation::silu, BiasKind::row, true, cases, true);
  const JitStats s1 = jit_stats();
  EXPECT_EQ(s1.disk_hits - s0.disk_hits, 1u) << jit_last_message();
  EXPECT_EQ(s1.compiled, s0.compiled) << "a fresh process loads the cached cubin: " << jit_last_message();
  std::printf("[ jit_cache ] fresh process, first call (disk cache + load + launch) %.3f s\n", last_call_seconds_);
  std::printf("[ jit_cache ] %s\n", jit_last_message().c_str());
}

/// Asked for and unavailable (TESSEL_NVCC names no compiler), a call takes
/// the ahead-of-time path, correct, and says so: its Status's message, the
/// plan's words, jit_last_message and the fallback count.  In a child
/// process, since the toolchain is looked for once per process.
TEST_F(GemmJitCache, FallsBackWithoutACompiler) {
  char dir_template[] = "/tmp/tessel-jit-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const int rc = run_child("GemmJitCache.ChildWithoutACompiler",
                           {"TESSEL_CACHE_DIR=" + std::string(dir_template), "TESSEL_JIT_TEST_CHILD=no_nvcc",
                            "TESSEL_NVCC=/nonexistent/nvcc"});
  EXPECT_EQ(rc, 0) << "the child's output is above";
  ::rmdir(dir_template);
}

TEST_F(GemmJitCache, ChildWithoutACompiler) {
  if (!is_child("no_nvcc")) GTEST_SKIP() << "runs as the child of GemmJitCache.FallsBackWithoutACompiler";
  World& w = *g_world;
  GemmArgs g;
  g.m = 257, g.n = 300, g.k = 192;
  g.lda = 192, g.ldb = 300, g.ldc = 300, g.ldd = 300;
  g.a = w.a.p, g.b = w.b.p, g.c = w.c.p, g.d = w.d.p;
  g.beta = 1.0f;
  g.tuning = path().tuning;
  g.epilogue.act = Activation::relu;
  g.epilogue.aux = aux_.p;
  g.epilogue.ldaux = 300;
  const GemmPlan p = gemm_plan(g);
  EXPECT_NE(p.why.find("unfused epilogue (jit unavailable: TESSEL_NVCC=/nonexistent/nvcc"), std::string::npos) << p.why;
  // The whole check of the result, on the path the call takes (unfused).
  int cases = 0;
  const JitStats s0 = jit_stats();
  run(path(), DType::bf16, Activation::relu, BiasKind::col, true, cases, true);
  const JitStats s1 = jit_stats();
  EXPECT_EQ(s1.fallbacks - s0.fallbacks, 1u);
  EXPECT_EQ(s1.compiled, s0.compiled);
  const Status s = gemm(GemmImpl::k13_wgmma_in_flight, g, w.stream);
  ASSERT_TRUE(s.is_ok()) << s.message;
  EXPECT_NE(s.message.find("jit: run-time compilation of k13 128x128"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("TESSEL_NVCC=/nonexistent/nvcc"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("took the unfused epilogue instead"), std::string::npos) << s.message;
  EXPECT_EQ(jit_last_message(), s.message);
  std::printf("[ jit_cache ] without a compiler: %s\n", s.message.c_str());
}
std::string param_name(const ::testing::TestParamInfo<StepParam>& info) {
  const GemmTuning t = info.param.tuning;
  const std::string group = t.raster_group != 0 ? "_g" + std::to_string(t.raster_group) : "";
  if (t.tile_n == 0 && t.splits == 0 && t.swap_ab == SwapAB::plan && t.tile_m == 0)
    return std::string(name(info.param.impl)) + group;
  return std::string(name(info.param.impl)) + (t.tile_m == 64 ? "_m64" : "") + "_n" + std::to_string(t.tile_n) + "_s" +
         std::to_string(t.splits) +
         (t.swap_ab == SwapAB::on    ? "_swap"
          : t.swap_ab == SwapAB::off ? "_noswap"
                                     : "") +
         (t.split_sum == SplitSum::second_kernel ? "_apart" : "") +
         (t.cluster_share == ClusterShare::a ? "_share_a" : "") + group;
}

// ------------------------------------------------------------------ strided batched and grouped

/// Operand `which` (0 A, 1 B, 2 C) of a shifted problem, in its memory
/// order, copied from the sources: A_s(i, l) = A(i + s, l), B_s(l, j) =
/// B(l, j + s), C_s(i, j) = C(i + s, j + s), so that problem s's product is
/// P_K(i + s, j + s) of the reference (K from kFullK).
struct Shifted {
  index_t m, n, k;
  int sa, sb, sc;  // the shifts of A's rows, B's columns, C's rows and columns
};

std::int64_t shifted_value(const World& w, const Shifted& x, int ks, bool with_c, index_t i, index_t j) {
  (void)w;
  // P_K(i + sa, j + sb) needs a product of shifted A and B: A's shift moves
  // the row, B's the column of the same prefix product.
  const std::int64_t p = g_world->ref[ks][static_cast<std::size_t>((i + x.sa) * kMax + (j + x.sb))];
  return with_c ? 2 * p - c_at(static_cast<int>(i + x.sc), static_cast<int>(j + x.sc)) : p;
}

/// Copies problem x's operands into `a`, `b`, `c` (device addresses with the
/// problem's leading dimensions) on the world's stream.
void upload_shifted(World& w, const Shifted& x, DType ab, DType cd, GemmLayout l, void* a, index_t lda, void* b,
                    index_t ldb, void* c, index_t ldc) {
  const std::size_t eab = static_cast<std::size_t>(size_bytes(ab)), ecd = static_cast<std::size_t>(size_bytes(cd));
  const bool ak = l.a == MajorA::k, bn = l.b == MajorB::n;
  const int at = ab_slot(ab);
  // A:k rows are i (shifted), A:m rows are l and its columns i (shifted).
  const char* a_src = static_cast<const char*>(w.a_src[at][ak ? 0 : 1].p) +
                      (ak ? static_cast<std::size_t>(x.sa) * kMax : static_cast<std::size_t>(x.sa)) * eab;
  CUDA_CHECK(cudaMemcpy2DAsync(a, lda * eab, a_src, kMax * eab, (ak ? x.k : x.m) * eab, ak ? x.m : x.k,
                               cudaMemcpyDeviceToDevice, w.stream));
  // B:n rows are l and its columns j (shifted), B:k rows are j (shifted).
  const char* b_src = static_cast<const char*>(w.b_src[at][bn ? 0 : 1].p) +
                      (bn ? static_cast<std::size_t>(x.sb) : static_cast<std::size_t>(x.sb) * kMax) * eab;
  CUDA_CHECK(cudaMemcpy2DAsync(b, ldb * eab, b_src, kMax * eab, (bn ? x.n : x.k) * eab, bn ? x.k : x.n,
                               cudaMemcpyDeviceToDevice, w.stream));
  if (c != nullptr) {
    const char* c_src = static_cast<const char*>(w.c_src[cd_slot(cd)].p) +
                        (static_cast<std::size_t>(x.sc) * kMax + static_cast<std::size_t>(x.sc)) * ecd;
    CUDA_CHECK(cudaMemcpy2DAsync(c, ldc * ecd, c_src, kMax * ecd, x.n * ecd, x.m, cudaMemcpyDeviceToDevice, w.stream));
  }
}

struct Allocation {
  void* p = nullptr;
  explicit Allocation(std::size_t bytes) {
    if (cudaMalloc(&p, bytes) != cudaSuccess) ADD_FAILURE() << "cudaMalloc of " << bytes << " bytes failed";
  }
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  ~Allocation() {
    if (p) cudaFree(p);
  }
};

/// One strided batched case: `batch` problems of m x n x k, batch b shifted
/// by b (A's rows unless A is broadcast, B's columns unless B is, C's rows
/// and columns unless C is), with `gap` elements between batches beyond
/// each one's footprint (the strides: footprint + gap, or 0 for a broadcast).
struct BatchCase {
  index_t m, n, k, batch;
  DType ab = DType::bf16, cd = DType::bf16;
  GemmLayout layout{};
  bool with_c = true;
  bool bcast_a = false, bcast_b = false, bcast_c = false;
  index_t gap = 8;
  GemmTuning tuning{};  // k13's; splits beyond K's k-tiles are cut to them
  index_t offset = 0;   // elements between the buffers' (256-byte aligned) starts and A's and B's
};

void run_batch_case(GemmImpl impl, const BatchCase& bc) {
  World& w = *g_world;
  const int ks = k_index(bc.k);
  ASSERT_GE(ks, 0);
  const bool ak = bc.layout.a == MajorA::k, bn = bc.layout.b == MajorB::n;
  GemmArgs g;
  g.m = bc.m, g.n = bc.n, g.k = bc.k, g.batch = bc.batch;
  g.ab_type = bc.ab, g.cd_type = bc.cd, g.layout = bc.layout;
  // Rows of whole 16-byte granules (TMA reads A and B as they are: k13's
  // batched kernel, not the loop of single launches with padded copies).
  const auto up8 = [](index_t x) { return (x + 7) / 8 * 8; };
  g.lda = up8(ak ? bc.k : bc.m), g.ldb = up8(bn ? bc.n : bc.k), g.ldc = bc.n, g.ldd = bc.n;
  const index_t fa = (ak ? bc.m : bc.k) * g.lda, fb = (bn ? bc.k : bc.n) * g.ldb, fcd = bc.m * bc.n;
  g.stride_a = bc.bcast_a ? 0 : fa + bc.gap;
  g.stride_b = bc.bcast_b ? 0 : fb + bc.gap;
  g.stride_c = bc.bcast_c ? 0 : fcd + bc.gap;
  g.stride_d = fcd + bc.gap;  // gap 0 with M whole tiles: D of every batch as one tall TMA map
  const std::size_t eab = static_cast<std::size_t>(size_bytes(bc.ab)),
                    ecd = static_cast<std::size_t>(size_bytes(bc.cd));
  const std::size_t nb = static_cast<std::size_t>(bc.batch);
  Allocation a((fa + bc.gap) * eab * nb), b((fb + bc.gap) * eab * nb), c((fcd + bc.gap) * ecd * nb),
      d((fcd + bc.gap) * ecd * nb);
  g.a = a.p, g.b = b.p, g.d = d.p;
  g.c = bc.with_c ? c.p : nullptr;
  g.alpha = bc.with_c ? 2.0f : 1.0f;
  g.beta = bc.with_c ? -1.0f : 0.0f;
  g.tuning = bc.tuning;
  if (g.tuning.splits > (bc.k + 63) / 64) g.tuning.splits = static_cast<int>((bc.k + 63) / 64);
  std::vector<Shifted> xs;
  for (index_t s = 0; s < bc.batch; ++s) {
    const Shifted x{bc.m,
                    bc.n,
                    bc.k,
                    bc.bcast_a ? 0 : static_cast<int>(s),
                    bc.bcast_b ? 0 : static_cast<int>(s),
                    bc.bcast_c ? 0 : static_cast<int>(s)};
    xs.push_back(x);
    upload_shifted(w, x, bc.ab, bc.cd, bc.layout, static_cast<char*>(a.p) + s * g.stride_a * eab, g.lda,
                   static_cast<char*>(b.p) + s * g.stride_b * eab, g.ldb,
                   bc.with_c ? static_cast<char*>(c.p) + s * g.stride_c * ecd : nullptr, g.ldc);
  }
  const std::size_t d_bytes = (fcd + bc.gap) * ecd * nb;
  CUDA_CHECK(cudaMemsetAsync(d.p, 0xFF, d_bytes, w.stream));
  const std::string what = std::string(short_name(impl)) + " batch " + std::to_string(bc.batch) + " of " +
                           std::to_string(bc.m) + "x" + std::to_string(bc.n) + "x" + std::to_string(bc.k) + " " +
                           name(bc.ab) + "->" + name(bc.cd) + " " + name(bc.layout) + (bc.with_c ? " with C" : "") +
                           (bc.bcast_a ? " A broadcast" : "") + (bc.bcast_b ? " B broadcast" : "") +
                           (bc.bcast_c ? " C broadcast" : "");
  const Status st = gemm(impl, g, w.stream);
  std::vector<unsigned char> h(d_bytes);
  CUDA_CHECK(cudaMemcpyAsync(h.data(), d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
  CUDA_CHECK(cudaStreamSynchronize(w.stream));
  if (st.code == Status::unsupported) {  // the step's own rule (k14's shapes): nothing written
    for (unsigned char x : h) ASSERT_EQ(x, 0xFF) << what << ": unsupported, but D was written";
    return;
  }
  ASSERT_TRUE(st.is_ok()) << what << ": " << st.message;
  const std::uint32_t poison = bc.cd == DType::f32 ? 0xFFFFFFFFu : 0xFFFFu;
  int bad = 0;
  const std::size_t elems = d_bytes / ecd;
  for (std::size_t e = 0; e < elems; ++e) {
    const index_t s = static_cast<index_t>(e) / g.stride_d, r = static_cast<index_t>(e) % g.stride_d;
    std::uint32_t want = poison;
    if (r < fcd)
      want = round_bits(shifted_value(w, xs[static_cast<std::size_t>(s)], ks, bc.with_c, r / bc.n, r % bc.n), bc.cd);
    const std::uint32_t got = bits_at(h, e, bc.cd);
    if (got != want && bad++ < 5)
      ADD_FAILURE() << what << ": batch " << s << " element " << r << " = 0x" << std::hex << got << ", expected 0x"
                    << want << std::dec << (r >= fcd ? " (between batches: must stay poisoned)" : "");
  }
  EXPECT_EQ(bad, 0) << what;
}

class GemmBatched : public Gemm {};

TEST_P(GemmBatched, ExactAcrossBatchesShapesAndLayouts) {
  std::string why;
  if (step_not_built(why)) GTEST_SKIP() << why;
  const GemmImpl impl = GetParam().impl;
  // batch 1, 3 and 7; whole and partial tiles (M = 128, 256 take the tall TMA
  // store of D; 129 and 1 the row stores); all four layouts.
  for (GemmLayout l : kAllGemmLayouts)
    for (index_t batch : {1, 3, 7})
      for (const auto& mnk : {std::array<index_t, 3>{128, 256, 192}, std::array<index_t, 3>{129, 17, 65},
                              std::array<index_t, 3>{1, 64, 63}, std::array<index_t, 3>{256, 129, 1000}}) {
        BatchCase bc{mnk[0], mnk[1], mnk[2], batch, DType::bf16, DType::bf16, l, batch != 3};
        bc.gap = batch == 7 ? 0 : 8;
        bc.tuning = GetParam().tuning;
        run_batch_case(impl, bc);
        if (HasFatalFailure()) return;
      }
}

TEST_P(GemmBatched, BroadcastOperandsOutputTypesAndUnalignedStrides) {
  std::string why;
  if (step_not_built(why)) GTEST_SKIP() << why;
  const GemmImpl impl = GetParam().impl;
  for (DType cd : {DType::bf16, DType::f16, DType::f32})
    for (int bcast = 0; bcast < 4; ++bcast) {
      BatchCase bc{128, 64, 65, 3, cd == DType::f16 ? DType::f16 : DType::bf16, cd};
      bc.bcast_a = bcast == 1, bc.bcast_b = bcast == 2, bc.bcast_c = bcast == 3;
      bc.tuning = GetParam().tuning;
      run_batch_case(impl, bc);
      if (HasFatalFailure()) return;
    }
  // Batch strides TMA cannot step (not 16-byte multiples): k13 runs one launch per batch.
  BatchCase odd{129, 64, 63, 3};
  odd.gap = 3;
  odd.tuning = GetParam().tuning;
  run_batch_case(impl, odd);
}

/// A rejected batched call writes nothing.
TEST_P(GemmBatched, RejectsOverlappingBatchesAndWritesNothing) {
  World& w = *g_world;
  GemmArgs g;
  g.m = 64, g.n = 48, g.k = 32, g.batch = 3;
  g.lda = 32, g.ldb = 48, g.ldd = 48;
  g.a = w.a.p, g.b = w.b.p, g.d = w.d.p;
  g.stride_a = 64 * 32, g.stride_b = 32 * 48, g.stride_d = 64 * 48 - 1;  // D's batches overlap by one element
  const std::size_t d_bytes = 3 * 64 * 48 * 2;
  CUDA_CHECK(cudaMemsetAsync(w.d.p, 0xFF, d_bytes, w.stream));
  const Status s = gemm(GetParam().impl, g, w.stream);
  EXPECT_EQ(s.code, Status::invalid_argument) << s.message;
  std::vector<unsigned char> h(d_bytes);
  CUDA_CHECK(cudaMemcpyAsync(h.data(), w.d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
  CUDA_CHECK(cudaStreamSynchronize(w.stream));
  int written = 0;
  for (unsigned char x : h) written += x != 0xFF;
  EXPECT_EQ(written, 0) << "D was written";
}

/// Batches without C (beta = 0), enough units that every CTA takes several
/// (both of k15's warpgroups, their turns and the stages they skip): D as
/// one tall TMA map (M whole tiles, no gap), D by row stores (partial tiles,
/// a gap between batches), fp32 D with B broadcast; every layout.
TEST_P(GemmBatched, ManyUnitsPerCtaWithoutC) {
  std::string why;
  if (step_not_built(why)) GTEST_SKIP() << why;
  const GemmImpl impl = GetParam().impl;
  for (GemmLayout l : kAllGemmLayouts) {
    BatchCase tall{512, 512, 192, 32, DType::bf16, DType::bf16, l, false};
    tall.gap = 0;                                                         // 512 tiles of 128 x 128 over 132 CTAs
    BatchCase rows{300, 200, 65, 24, DType::f16, DType::f16, l, false};   // 144 tiles, partial in M and N
    BatchCase wide{256, 384, 64, 40, DType::bf16, DType::f32, l, false};  // 240 tiles, one B for all
    wide.bcast_b = true;
    wide.gap = 0;
    for (BatchCase* bc : {&tall, &rows, &wide}) {
      bc->tuning = GetParam().tuning;
      run_batch_case(impl, *bc);
      if (HasFatalFailure()) return;
    }
  }
}

std::vector<StepParam> batched_steps() {
  // Every step serves a batch (k13, and k15 at beta = 0, in one launch, the
  // others one launch per batch); the slow CUDA-core steps are left to the single-problem suites.
  return {StepParam{GemmImpl::automatic}, StepParam{GemmImpl::k13_wgmma_in_flight, {128, 1}},
          StepParam{GemmImpl::k13_wgmma_in_flight, {256, 1}}, StepParam{GemmImpl::k13_wgmma_in_flight, {64, 2}},
          StepParam{GemmImpl::k08_smem_epilogue}, StepParam{GemmImpl::k12_wgmma},
          StepParam{GemmImpl::k14_cluster_multicast}, StepParam{GemmImpl::k15_pingpong},
          // Rule 11b's raster (tiles along N first), which `auto` takes only
          // where a batch has a tile per SM: larger than this world's problems.
          StepParam{GemmImpl::k15_pingpong, GemmTuning{0, 0, SwapAB::plan, 1}}};
}
INSTANTIATE_TEST_SUITE_P(Batched, GemmBatched, ::testing::ValuesIn(batched_steps()), param_name);

// ------------------------------------------------------------------ grouped

/// A group of shifted problems (problem g shifted by g % 50), each in its own
/// allocation, checked bit for bit, D's row padding included.
void run_group(const std::vector<std::array<index_t, 3>>& shapes, DType ab, DType cd, GemmLayout l, int tile_n,
               const std::string& label) {
  World& w = *g_world;
  const std::size_t eab = static_cast<std::size_t>(size_bytes(ab)), ecd = static_cast<std::size_t>(size_bytes(cd));
  const bool ak = l.a == MajorA::k, bn = l.b == MajorB::n;
  const int count = static_cast<int>(shapes.size());
  std::vector<GemmArgs> gs(shapes.size());
  std::vector<std::unique_ptr<Allocation>> mem;
  std::vector<Shifted> xs;
  for (int p = 0; p < count; ++p) {
    const auto [m, n, k] = shapes[static_cast<std::size_t>(p)];
    const int s = p % 50;
    GemmArgs& g = gs[static_cast<std::size_t>(p)];
    g.m = m, g.n = n, g.k = k, g.ab_type = ab, g.cd_type = cd, g.layout = l;
    // A's and B's rows whole 16-byte granules (the grouped kernel reads them
    // as they are); D's rows padded by 8, TMA-storable where N is a multiple of 8.
    const auto up8 = [](index_t x) { return (x + 7) / 8 * 8; };
    g.lda = up8(ak ? k : m) + 8, g.ldb = up8(bn ? n : k) + 8, g.ldc = n, g.ldd = n + 8;
    g.tuning.tile_n = tile_n;
    const bool with_c = p % 2 == 0;
    g.alpha = with_c ? 2.0f : 1.0f, g.beta = with_c ? -1.0f : 0.0f;
    mem.push_back(std::make_unique<Allocation>((ak ? m : k) * g.lda * eab));
    g.a = mem.back()->p;
    mem.push_back(std::make_unique<Allocation>((bn ? k : n) * g.ldb * eab));
    g.b = mem.back()->p;
    mem.push_back(std::make_unique<Allocation>(m * g.ldc * ecd));
    g.c = with_c ? mem.back()->p : nullptr;
    mem.push_back(std::make_unique<Allocation>(m * g.ldd * ecd));
    g.d = mem.back()->p;
    xs.push_back(Shifted{m, n, k, s, s, s});
    upload_shifted(w, xs.back(), ab, cd, l, const_cast<void*>(g.a), g.lda, const_cast<void*>(g.b), g.ldb,
                   with_c ? const_cast<void*>(g.c) : nullptr, g.ldc);
    CUDA_CHECK(cudaMemsetAsync(g.d, 0xFF, m * g.ldd * ecd, w.stream));
  }
  const Status st = gemm_grouped(gs.data(), count, w.stream);
  ASSERT_TRUE(st.is_ok()) << label << ": " << st.message;
  const std::uint32_t poison = cd == DType::f32 ? 0xFFFFFFFFu : 0xFFFFu;
  int bad = 0;
  for (int p = 0; p < count && bad < 5; ++p) {
    const GemmArgs& g = gs[static_cast<std::size_t>(p)];
    std::vector<unsigned char> h(static_cast<std::size_t>(g.m * g.ldd) * ecd);
    CUDA_CHECK(cudaMemcpyAsync(h.data(), g.d, h.size(), cudaMemcpyDeviceToHost, w.stream));
    CUDA_CHECK(cudaStreamSynchronize(w.stream));
    const int ks = k_index(g.k);
    ASSERT_GE(ks, 0);
    for (index_t i = 0; i < g.m; ++i)
      for (index_t j = 0; j < g.ldd; ++j) {
        const std::uint32_t want =
            j < g.n ? round_bits(shifted_value(w, xs[static_cast<std::size_t>(p)], ks, g.beta != 0.0f, i, j), cd)
                    : poison;
        const std::uint32_t got = bits_at(h, static_cast<std::size_t>(i * g.ldd + j), cd);
        if (got != want && bad++ < 5)
          ADD_FAILURE() << label << ": problem " << p << " (" << g.m << "x" << g.n << "x" << g.k << ") D(" << i << ","
                        << j << ") = 0x" << std::hex << got << ", expected 0x" << want << std::dec;
      }
  }
  EXPECT_EQ(bad, 0) << label;
}

class GemmGrouped : public Gemm {};

TEST_P(GemmGrouped, MixedShapesEveryLayout) {
  const int tile_n = GetParam().tuning.tile_n;
  // M = 1, K not a multiple of 64, partial tiles everywhere; alpha/beta per problem.
  const std::vector<std::array<index_t, 3>> shapes = {{1, 64, 65}, {129, 257, 192}, {64, 128, 63}, {257, 129, 1000},
                                                      {17, 8, 1},  {128, 256, 64},  {300, 17, 8},  {1, 990, 192}};
  for (GemmLayout l : kAllGemmLayouts) {
    run_group(shapes, DType::bf16, DType::bf16, l, tile_n, name(l));
    if (HasFatalFailure()) return;
  }
  for (DType cd : {DType::f16, DType::f32}) {
    run_group(shapes, cd == DType::f16 ? DType::f16 : DType::bf16, cd, GemmLayout{}, tile_n, name(cd));
    if (HasFatalFailure()) return;
  }
}

TEST_P(GemmGrouped, OneProblemMoeLikeAndManyGroups) {
  const int tile_n = GetParam().tuning.tile_n;
  run_group({{129, 257, 192}}, DType::bf16, DType::bf16, GemmLayout{}, tile_n, "a group of one");
  if (HasFatalFailure()) return;
  // MoE-like: 8 experts, N = 512, K = 1000, M from 1 to 900.
  std::vector<std::array<index_t, 3>> moe;
  for (index_t m : {1, 64, 128, 200, 256, 512, 768, 900}) moe.push_back({m, 512, 1000});
  run_group(moe, DType::bf16, DType::bf16, GemmLayout{}, tile_n, "8 MoE-like problems");
  if (HasFatalFailure()) return;
  // More problems than a kernel parameter holds: 130 small ones.
  std::vector<std::array<index_t, 3>> many;
  for (int p = 0; p < 130; ++p)
    many.push_back({1 + (37 * p) % 300, 8 + (53 * p) % 260, kFullK[static_cast<std::size_t>(p) % kFullK.size()]});
  run_group(many, DType::bf16, DType::bf16, GemmLayout{}, tile_n, "130 problems");
}

/// The same group shapes on new buffers, call after call: the descriptors
/// land in pool memory at the address of the previous call's, and each
/// launch must use its own maps (the tensormap acquire in the kernel).
TEST_P(GemmGrouped, RepeatedCallsOnOtherBuffers) {
  const int tile_n = GetParam().tuning.tile_n;
  std::vector<std::array<index_t, 3>> shapes;
  for (index_t m : {64, 129, 256}) shapes.push_back({m, 256, 192});
  std::vector<std::unique_ptr<Allocation>> hold;  // kept: the next call's buffers land elsewhere
  for (int call = 0; call < 3; ++call) {
    hold.push_back(std::make_unique<Allocation>(static_cast<std::size_t>(call + 1) << 20));
    run_group(shapes, DType::bf16, DType::bf16, GemmLayout{}, tile_n, "call " + std::to_string(call));
    if (HasFatalFailure()) return;
  }
}

/// A group whose D overlaps another problem's input is rejected and writes nothing.
TEST_P(GemmGrouped, RejectsMismatchedPointersAndWritesNothing) {
  World& w = *g_world;
  std::vector<GemmArgs> gs(3);
  for (int p = 0; p < 3; ++p) {
    GemmArgs& g = gs[static_cast<std::size_t>(p)];
    g.m = 64, g.n = 48, g.k = 32, g.lda = 32, g.ldb = 48, g.ldd = 48;
    g.a = static_cast<char*>(w.a.p) + p * 64 * 32 * 2;
    g.b = static_cast<char*>(w.b.p) + p * 32 * 48 * 2;
    g.d = static_cast<char*>(w.d.p) + p * 64 * 48 * 2;
  }
  gs[2].a = gs[1].d;  // problem 2 reads problem 1's output
  const std::size_t d_bytes = 3 * 64 * 48 * 2;
  CUDA_CHECK(cudaMemsetAsync(w.d.p, 0xFF, d_bytes, w.stream));
  const Status s = gemm_grouped(gs.data(), 3, w.stream);
  EXPECT_EQ(s.code, Status::invalid_argument) << s.message;
  std::vector<unsigned char> h(d_bytes);
  CUDA_CHECK(cudaMemcpyAsync(h.data(), w.d.p, d_bytes, cudaMemcpyDeviceToHost, w.stream));
  CUDA_CHECK(cudaStreamSynchronize(w.stream));
  int written = 0;
  for (unsigned char x : h) written += x != 0xFF;
  EXPECT_EQ(written, 0) << "D was written";
}

// The plan's width, and each width forced.
INSTANTIATE_TEST_SUITE_P(Grouped, GemmGrouped,
                         ::testing::Values(StepParam{GemmImpl::automatic},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {128, 1}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {256, 1}}),
                         param_name);

std::vector<StepParam> all_steps() {
  std::vector<StepParam> v;
  for (GemmImpl g : kAllGemmImpls) v.push_back({g});
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllSteps, Gemm, ::testing::ValuesIn(all_steps()), param_name);
std::vector<StepParam> fp32_steps() {
  std::vector<StepParam> v;
  for (GemmImpl g : kFp32GemmImpls) v.push_back({g});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Fp32Steps, GemmF32, ::testing::ValuesIn(fp32_steps()), param_name);
// `auto` with fp32 inputs: the plan runs rule 9's fp32 step (f12, f11, f10 or f07).
INSTANTIATE_TEST_SUITE_P(Fp32Plan, GemmF32, ::testing::Values(StepParam{GemmImpl::automatic}), param_name);
// What tessel::gemm(args) runs: the plan's kernel and tuning per shape.
INSTANTIATE_TEST_SUITE_P(Plan, Gemm, ::testing::Values(StepParam{GemmImpl::automatic}), param_name);
// Every configuration the plan can choose, forced on every shape: each tile
// width without a split, and split K with 2, 3, 4 and 7 ranges (uneven
// ranges, a range of one k-tile where K is short; cut to K's k-tiles).
INSTANTIATE_TEST_SUITE_P(K13Tuning, Gemm,
                         ::testing::Values(StepParam{GemmImpl::k13_wgmma_in_flight, {64, 1}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {64, 3}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {128, 1}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {192, 1}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {256, 1}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {256, 2}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {256, 3}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {128, 4}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {192, 7}}),
                         param_name);
// k14's pairs of 128 x w tiles sharing A (tuning.cluster_share): N-neighbours, each loading half of A's tile.
constexpr GemmTuning sharing_a(int w) {
  GemmTuning t{w, 1};
  t.cluster_share = ClusterShare::a;
  return t;
}
// k14 (clusters of two CTAs sharing B; sharing A at 128 x 64 and where asked) at each tile
// width: odd tile-row counts (M = 1..128, 257: 1 and 3 rows of 128) and, at
// 64 columns, odd tile-column counts (N = 1..64, 129, 257: 1, 3, 5 columns)
// leave a cluster's second tile outside D; the one-warpgroup 64 x 128 tile
// pairs M-neighbours (odd counts of 64-row tiles: M = 1..64, 129, 257).
// Split K on pairs (64 x 128 and 128 x 128; 2, 3 and 7 ranges, cut to K's
// k-tiles): each CTA tile of a pair has its own partials and counter, the
// padding tile outside M included.
INSTANTIATE_TEST_SUITE_P(
    K14Tuning, Gemm,
    ::testing::Values(
        StepParam{GemmImpl::k14_cluster_multicast, {64, 1}}, StepParam{GemmImpl::k14_cluster_multicast, {128, 1}},
        StepParam{GemmImpl::k14_cluster_multicast, {192, 1}}, StepParam{GemmImpl::k14_cluster_multicast, {256, 1}},
        StepParam{GemmImpl::k14_cluster_multicast, {128, 1, SwapAB::plan, 0, GemmJit::off, 64}},
        StepParam{GemmImpl::k14_cluster_multicast, {128, 2}}, StepParam{GemmImpl::k14_cluster_multicast, {128, 7}},
        StepParam{GemmImpl::k14_cluster_multicast, {128, 3, SwapAB::plan, 0, GemmJit::off, 64}},
        StepParam{GemmImpl::k14_cluster_multicast, sharing_a(128)},
        StepParam{GemmImpl::k14_cluster_multicast, sharing_a(192)},
        StepParam{GemmImpl::k14_cluster_multicast, sharing_a(256)}),
    param_name);
// The swap of A and B (D^T = B^T A^T: D TMA-stored as its rows at beta = 0, else written transposed from registers)
// forced on every shape, M > 64 included: each swapped width the plan can
// choose (16, 32, 64), without a split and with two ranges (the partials of
// the kernel's (N, M) tiles), and rule 3's other counts, 3 and 4.  The plan's own swaps run in Plan (M <= 64).
INSTANTIATE_TEST_SUITE_P(K13Swap, Gemm,
                         ::testing::Values(StepParam{GemmImpl::k13_wgmma_in_flight, {16, 1, SwapAB::on}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {16, 2, SwapAB::on}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {32, 1, SwapAB::on}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {32, 2, SwapAB::on}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {64, 1, SwapAB::on}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {64, 2, SwapAB::on}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {16, 4, SwapAB::on}},
                                           StepParam{GemmImpl::k13_wgmma_in_flight, {64, 3, SwapAB::on}}),
                         param_name);

// Split K summed apart (tuning.split_sum second_kernel) on every shape, tier
// 1 with C and without, every layout and output type: the tiles the model
// splits (128 x 64, 64 x 128 on one warpgroup, 128 x 128 and 128 x 256;
// swapped 64 x 16 and 128 x 32 through global memory, 64 x 64 and 128 x 64),
// 2-7 splits.
constexpr GemmTuning summed_apart(GemmTuning t, int cluster = 0) {
  t.split_sum = SplitSum::second_kernel;
  t.cluster = cluster;
  return t;
}
INSTANTIATE_TEST_SUITE_P(
    K13SplitApart, Gemm,
    ::testing::Values(
        StepParam{GemmImpl::k13_wgmma_in_flight, summed_apart({64, 3})},
        StepParam{GemmImpl::k13_wgmma_in_flight, summed_apart({128, 2, SwapAB::off, 0, GemmJit::off, 64})},
        StepParam{GemmImpl::k13_wgmma_in_flight, summed_apart({128, 4})},
        StepParam{GemmImpl::k13_wgmma_in_flight, summed_apart({256, 7})},
        StepParam{GemmImpl::k13_wgmma_in_flight, summed_apart({16, 3, SwapAB::on, 0, GemmJit::off, 64}, 1)},
        StepParam{GemmImpl::k13_wgmma_in_flight, summed_apart({32, 5, SwapAB::on}, 1)},
        StepParam{GemmImpl::k13_wgmma_in_flight, summed_apart({64, 4, SwapAB::on, 0, GemmJit::off, 64})},
        StepParam{GemmImpl::k13_wgmma_in_flight, summed_apart({64, 2, SwapAB::on})}),
    param_name);

// The swapped one-warpgroup tiles (tuning.tile_m = 64: 64 rows of N by 16,
// 32 or 64 of M) forced on every shape, M > 64 included (up to 63 tiles of M
// per tile row: several work units per CTA), unsplit and split.
INSTANTIATE_TEST_SUITE_P(
    K13SwapRows64, Gemm,
    ::testing::Values(StepParam{GemmImpl::k13_wgmma_in_flight, {16, 1, SwapAB::on, 0, GemmJit::off, 64}},
                      StepParam{GemmImpl::k13_wgmma_in_flight, {32, 1, SwapAB::on, 0, GemmJit::off, 64}},
                      StepParam{GemmImpl::k13_wgmma_in_flight, {64, 1, SwapAB::on, 0, GemmJit::off, 64}},
                      StepParam{GemmImpl::k13_wgmma_in_flight, {16, 2, SwapAB::on, 0, GemmJit::off, 64}},
                      StepParam{GemmImpl::k13_wgmma_in_flight, {64, 3, SwapAB::on, 0, GemmJit::off, 64}}),
    param_name);

// The unswapped one-warpgroup tile (tuning.tile_m = 64, 64 x 128: TMA-stored
// D from one consumer warpgroup) forced on every shape: unsplit, split in
// three, and with the width and splits left to the launcher (128, the plan's).
INSTANTIATE_TEST_SUITE_P(
    K13Rows64, Gemm,
    ::testing::Values(StepParam{GemmImpl::k13_wgmma_in_flight, {128, 1, SwapAB::off, 0, GemmJit::off, 64}},
                      StepParam{GemmImpl::k13_wgmma_in_flight, {128, 3, SwapAB::off, 0, GemmJit::off, 64}},
                      StepParam{GemmImpl::k13_wgmma_in_flight, {0, 0, SwapAB::off, 0, GemmJit::off, 64}}),
    param_name);

// The small-M streaming kernel on every shape it takes (M <= 64, A:k, B:n;
// the other cases are its `unsupported` rule, D untouched): the model's split
// of K, no split, and three (partials summed in order by the last split); the
// padded sweeps give leading dimensions that are not multiples of 8 (rows
// read element by element from their first chunk), the others whole chunks
// (ldmatrix).
INSTANTIATE_TEST_SUITE_P(SmallM, Gemm,
                         ::testing::Values(StepParam{GemmImpl::small_m_stream},
                                           StepParam{GemmImpl::small_m_stream, {0, 1}},
                                           StepParam{GemmImpl::small_m_stream, {0, 3}}),
                         param_name);

/// Uploads A (m x k) and B (k x n) as bf16 in layout `l` (A:k row i at i * k,
/// A:m column x at x * m; B:n row x at x * n, B:k column j at j * k) from the
/// integer-valued a_val(i, x) and b_val(x, j): the many-tile tests' operands.
template <class AVal, class BVal>
void upload_bf16_operands(index_t m, index_t n, index_t k, GemmLayout l, const AVal& a_val, const BVal& b_val, void* a,
                          void* b) {
  const bool ak = l.a == MajorA::k, bn = l.b == MajorB::n;
  std::vector<__nv_bfloat16> ha(static_cast<std::size_t>(m * k)), hb(static_cast<std::size_t>(k * n));
  for (index_t i = 0; i < m; ++i)
    for (index_t x = 0; x < k; ++x)
      ha[static_cast<std::size_t>(ak ? i * k + x : x * m + i)] = __float2bfloat16(static_cast<float>(a_val(i, x)));
  for (index_t x = 0; x < k; ++x)
    for (index_t j = 0; j < n; ++j)
      hb[static_cast<std::size_t>(bn ? x * n + j : j * k + x)] = __float2bfloat16(static_cast<float>(b_val(x, j)));
  CUDA_CHECK(cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
}

// k15 (pingpong) hands a CTA's tiles to its two consumer warpgroups in turn;
// the sweeps' shapes (at most 64 tiles of 128 x 128) give each CTA one tile,
// so warpgroup 1 never runs there.  1920 x 4224 has 495 tiles: 3 or 4 per
// CTA on 132 SMs (2 or 4 on other counts), each warpgroup past its first
// tile.  Small-integer inputs, fp32 D: exact, so k15's D must equal k13's bit
// for bit (k13 is tier-1 tested above), plain and with the fused epilogue
// (ReLU + column bias), in every layout; 4096 sampled elements are checked
// against the host's integer sums as well.
TEST(GemmPingpong, ManyTilesPerCtaMatchK13AndTheHost) {
  REQUIRE_GPU();
  const index_t m = 1920, n = 4224, k = 320;
  const auto a_val = [](index_t i, index_t l) { return static_cast<int>((i * 7 + l * 3) % 5) - 2; };
  const auto b_val = [](index_t l, index_t j) { return static_cast<int>((l * 5 + j * 11) % 7) - 3; };
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  DeviceBuffer a, b, d13, d15, bias;
  CUDA_CHECK(cudaMalloc(&a.p, static_cast<std::size_t>(m * k) * 2));
  CUDA_CHECK(cudaMalloc(&b.p, static_cast<std::size_t>(k * n) * 2));
  CUDA_CHECK(cudaMalloc(&d13.p, static_cast<std::size_t>(m * n) * 4));
  CUDA_CHECK(cudaMalloc(&d15.p, static_cast<std::size_t>(m * n) * 4));
  CUDA_CHECK(cudaMalloc(&bias.p, static_cast<std::size_t>(n) * 4));
  std::vector<float> hbias(static_cast<std::size_t>(n));
  for (index_t j = 0; j < n; ++j) hbias[static_cast<std::size_t>(j)] = static_cast<float>(j % 9) - 4.0f;
  CUDA_CHECK(cudaMemcpy(bias.p, hbias.data(), hbias.size() * 4, cudaMemcpyHostToDevice));
  std::vector<float> h13(static_cast<std::size_t>(m * n)), h15(h13.size());
  for (GemmLayout l : kAllGemmLayouts) {
    const bool ak = l.a == MajorA::k, bn = l.b == MajorB::n;
    upload_bf16_operands(m, n, k, l, a_val, b_val, a.p, b.p);
    for (bool fused : {false, true}) {
      GemmArgs g;
      g.m = m, g.n = n, g.k = k;
      g.ab_type = DType::bf16, g.cd_type = DType::f32, g.layout = l;
      g.lda = ak ? k : m, g.ldb = bn ? n : k, g.ldd = n;
      g.a = a.p, g.b = b.p;
      g.alpha = 0.5f, g.beta = 0.0f;
      if (fused) {
        g.epilogue.act = Activation::relu;
        g.epilogue.bias_kind = BiasKind::col;
        g.epilogue.bias = bias.p;
      }
      const std::string what = std::string(name(l)) + (fused ? " relu + column bias" : " plain");
      for (auto [impl, dst] :
           {std::pair{GemmImpl::k13_wgmma_in_flight, &d13}, std::pair{GemmImpl::k15_pingpong, &d15}}) {
        CUDA_CHECK(cudaMemsetAsync(dst->p, 0xFF, static_cast<std::size_t>(m * n) * 4, stream));
        g.d = dst->p;
        const Status st = gemm(impl, g, stream);
        ASSERT_TRUE(st.is_ok()) << short_name(impl) << " " << what << ": " << st.message;
      }
      CUDA_CHECK(cudaMemcpyAsync(h13.data(), d13.p, h13.size() * 4, cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaMemcpyAsync(h15.data(), d15.p, h15.size() * 4, cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      ASSERT_EQ(std::memcmp(h13.data(), h15.data(), h13.size() * 4), 0) << what << ": k15's D differs from k13's";
      for (int s = 0; s < 4096; ++s) {
        const index_t i = (s * 977) % m, j = (s * 2311) % n;
        std::int64_t sum = 0;
        for (index_t x = 0; x < k; ++x) sum += a_val(i, x) * b_val(x, j);
        double want = 0.5 * static_cast<double>(sum);
        if (fused) want = std::max(want + hbias[static_cast<std::size_t>(j)], 0.0);
        ASSERT_EQ(static_cast<double>(h15[static_cast<std::size_t>(i * n + j)]), want)
            << what << ": D(" << i << "," << j << ")";
      }
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// k14 walks tile pairs persistently: the sweeps' shapes (at most 1000 x
// 1000) give each cluster one pair.  1000 x 4160 is 8 x 65 tiles of 128 x 64
// (A shared by N-neighbours: 264 pairs, the last column's second tile
// outside D) and 8 x 17 of 128 x 256 (B shared by M-neighbours: 68 pairs):
// up to 4 pairs per cluster on 132 SMs.  Small-integer inputs, fp32 D, beta
// with C: k14's D must equal k13's bit for bit in every layout, and 4096
// sampled elements the host's integer sums.
// k13's warpgroup epilogue (128 x 256, 16-bit D, beta = 0; docs/ladder.md):
// a tile's first two chunks leave right after its last wgmma,
// its last two during the next tile's first k-tiles.  Several tiles per CTA
// (306 tiles on at most 132 CTAs), edge tiles in both dimensions, units of 1,
// 2, 4 and 5 k-tiles (one shorter than the epilogue's three steps flushes the
// previous tile before its own), bf16 and fp16 D, alpha 1 and 0.5, every
// layout.  Each element must be k13's fp32 D (the plain epilogue, itself
// checked exact against the host on samples) rounded to D's type, and D's
// row padding must stay poisoned.
TEST(GemmWarpgroupEpilogue, ManyTilesPerCtaMatchTheFp32Path) {
  REQUIRE_GPU();
  const index_t m = 2250, n = 4300, ldd = n + 8;
  const auto a_val = [](index_t i, index_t l) { return static_cast<int>((i * 7 + l * 3) % 5) - 2; };
  const auto b_val = [](index_t l, index_t j) { return static_cast<int>((l * 5 + j * 11) % 7) - 3; };
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const index_t k_max = 320;
  DeviceBuffer a, b, d32, d16;
  CUDA_CHECK(cudaMalloc(&a.p, static_cast<std::size_t>(m * k_max) * 2));
  CUDA_CHECK(cudaMalloc(&b.p, static_cast<std::size_t>(k_max * n) * 2));
  CUDA_CHECK(cudaMalloc(&d32.p, static_cast<std::size_t>(m * n) * 4));
  CUDA_CHECK(cudaMalloc(&d16.p, static_cast<std::size_t>(m * ldd) * 2));
  std::vector<float> h32(static_cast<std::size_t>(m * n));
  std::vector<std::uint16_t> h16(static_cast<std::size_t>(m * ldd));
  for (index_t k : {64, 128, 256, 320})
    for (GemmLayout l : kAllGemmLayouts) {
      const bool ak = l.a == MajorA::k, bn = l.b == MajorB::n;
      upload_bf16_operands(m, n, k, l, a_val, b_val, a.p, b.p);
      for (float alpha : {1.0f, 0.5f}) {
        GemmArgs g;
        g.m = m, g.n = n, g.k = k;
        g.ab_type = DType::bf16, g.layout = l;
        g.lda = ak ? k : m, g.ldb = bn ? n : k;
        g.a = a.p, g.b = b.p;
        g.alpha = alpha, g.beta = 0.0f;
        g.tuning.tile_n = 256, g.tuning.splits = 1;
        const std::string what = std::string(name(l)) + " K " + std::to_string(k) + " alpha " + std::to_string(alpha);
        g.cd_type = DType::f32, g.ldd = n, g.d = d32.p;
        CUDA_CHECK(cudaMemsetAsync(d32.p, 0xFF, static_cast<std::size_t>(m * n) * 4, stream));
        Status st = gemm(GemmImpl::k13_wgmma_in_flight, g, stream);
        ASSERT_TRUE(st.is_ok()) << what << " fp32: " << st.message;
        CUDA_CHECK(cudaMemcpyAsync(h32.data(), d32.p, h32.size() * 4, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int s = 0; s < 1024; ++s) {
          const index_t i = (s * 977) % m, j = (s * 2311) % n;
          std::int64_t sum = 0;
          for (index_t x = 0; x < k; ++x) sum += a_val(i, x) * b_val(x, j);
          ASSERT_EQ(static_cast<double>(h32[static_cast<std::size_t>(i * n + j)]), alpha * static_cast<double>(sum))
              << what << " fp32: D(" << i << "," << j << ")";
        }
        for (DType cd : {DType::bf16, DType::f16}) {
          g.cd_type = cd, g.ldd = ldd, g.d = d16.p;
          CUDA_CHECK(cudaMemsetAsync(d16.p, 0xFF, static_cast<std::size_t>(m * ldd) * 2, stream));
          st = gemm(GemmImpl::k13_wgmma_in_flight, g, stream);
          ASSERT_TRUE(st.is_ok()) << what << " " << name(cd) << ": " << st.message;
          CUDA_CHECK(cudaMemcpyAsync(h16.data(), d16.p, h16.size() * 2, cudaMemcpyDeviceToHost, stream));
          CUDA_CHECK(cudaStreamSynchronize(stream));
          int bad = 0;
          for (index_t i = 0; i < m && bad < 5; ++i)
            for (index_t j = 0; j < ldd && bad < 5; ++j) {
              const std::uint16_t got = h16[static_cast<std::size_t>(i * ldd + j)];
              std::uint16_t want = 0xFFFF;  // the row padding: never written
              if (j < n) {
                const float x = h32[static_cast<std::size_t>(i * n + j)];
                want = cd == DType::bf16 ? std::bit_cast<std::uint16_t>(__float2bfloat16_rn(x))
                                         : std::bit_cast<std::uint16_t>(__float2half_rn(x));
              }
              if (got != want) {
                ++bad;
                ADD_FAILURE() << what << " " << name(cd) << ": D(" << i << "," << j << ") bits " << got << ", want "
                              << want;
              }
            }
          ASSERT_EQ(bad, 0);
        }
      }
    }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GemmClusterMulticast, ManyPairsPerClusterMatchK13AndTheHost) {
  REQUIRE_GPU();
  const index_t m = 1000, n = 4160, k = 320;
  const auto a_val = [](index_t i, index_t l) { return static_cast<int>((i * 7 + l * 3) % 5) - 2; };
  const auto b_val = [](index_t l, index_t j) { return static_cast<int>((l * 5 + j * 11) % 7) - 3; };
  const auto c_val = [](index_t i, index_t j) { return static_cast<int>((i + 2 * j) % 9) - 4; };
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  DeviceBuffer a, b, c, d13, d14;
  CUDA_CHECK(cudaMalloc(&a.p, static_cast<std::size_t>(m * k) * 2));
  CUDA_CHECK(cudaMalloc(&b.p, static_cast<std::size_t>(k * n) * 2));
  CUDA_CHECK(cudaMalloc(&c.p, static_cast<std::size_t>(m * n) * 4));
  CUDA_CHECK(cudaMalloc(&d13.p, static_cast<std::size_t>(m * n) * 4));
  CUDA_CHECK(cudaMalloc(&d14.p, static_cast<std::size_t>(m * n) * 4));
  std::vector<float> hc(static_cast<std::size_t>(m * n));
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) hc[static_cast<std::size_t>(i * n + j)] = static_cast<float>(c_val(i, j));
  CUDA_CHECK(cudaMemcpy(c.p, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice));
  std::vector<float> h13(static_cast<std::size_t>(m * n)), h14(h13.size());
  for (GemmLayout l : kAllGemmLayouts) {
    const bool ak = l.a == MajorA::k, bn = l.b == MajorB::n;
    upload_bf16_operands(m, n, k, l, a_val, b_val, a.p, b.p);
    for (int width : {64, 256}) {
      GemmArgs g;
      g.m = m, g.n = n, g.k = k;
      g.ab_type = DType::bf16, g.cd_type = DType::f32, g.layout = l;
      g.lda = ak ? k : m, g.ldb = bn ? n : k, g.ldc = n, g.ldd = n;
      g.a = a.p, g.b = b.p, g.c = c.p;
      g.alpha = 0.5f, g.beta = -1.0f;
      g.tuning.tile_n = width;
      g.tuning.splits = 1;
      g.tuning.swap_ab = SwapAB::off;
      const std::string what = std::string(name(l)) + " 128 x " + std::to_string(width);
      for (auto [impl, dst] :
           {std::pair{GemmImpl::k13_wgmma_in_flight, &d13}, std::pair{GemmImpl::k14_cluster_multicast, &d14}}) {
        CUDA_CHECK(cudaMemsetAsync(dst->p, 0xFF, static_cast<std::size_t>(m * n) * 4, stream));
        g.d = dst->p;
        const Status st = gemm(impl, g, stream);
        ASSERT_TRUE(st.is_ok()) << short_name(impl) << " " << what << ": " << st.message;
      }
      CUDA_CHECK(cudaMemcpyAsync(h13.data(), d13.p, h13.size() * 4, cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaMemcpyAsync(h14.data(), d14.p, h14.size() * 4, cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      ASSERT_EQ(std::memcmp(h13.data(), h14.data(), h13.size() * 4), 0) << what << ": k14's D differs from k13's";
      for (int s = 0; s < 4096; ++s) {
        const index_t i = (s * 977) % m, j = (s * 2311) % n;
        std::int64_t sum = 0;
        for (index_t x = 0; x < k; ++x) sum += a_val(i, x) * b_val(x, j);
        const double want = 0.5 * static_cast<double>(sum) - static_cast<double>(c_val(i, j));
        ASSERT_EQ(static_cast<double>(h14[static_cast<std::size_t>(i * n + j)]), want)
            << what << ": D(" << i << "," << j << ")";
      }
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// Rule 4b: at N = 8192 the plan runs small M as unsplit swapped tiles of 64
// rows of N (one consumer warpgroup, 128 CTAs); the sweeps' N (at most 1000)
// never reach it.  Small-integer inputs, fp32 D: auto's D must equal the
// host's integer sums everywhere, in every layout, at M = 1, 16 (the 16-wide
// tile) and 40 (64-wide, 24 columns of it outside M).
TEST(GemmSwapRows64, PlanRunsThemExactAtN8192) {
  REQUIRE_GPU();
  const index_t n = 8192, k = 320;
  const auto a_val = [](index_t i, index_t l) { return static_cast<int>((i * 7 + l * 3) % 5) - 2; };
  const auto b_val = [](index_t l, index_t j) { return static_cast<int>((l * 5 + j * 11) % 7) - 3; };
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  DeviceBuffer a, b, d;
  CUDA_CHECK(cudaMalloc(&a.p, static_cast<std::size_t>(64 * k) * 2));
  CUDA_CHECK(cudaMalloc(&b.p, static_cast<std::size_t>(k * n) * 2));
  CUDA_CHECK(cudaMalloc(&d.p, static_cast<std::size_t>(64 * n) * 4));
  for (index_t m : {index_t{1}, index_t{16}, index_t{40}})
    for (GemmLayout l : kAllGemmLayouts) {
      const bool ak = l.a == MajorA::k, bn = l.b == MajorB::n;
      upload_bf16_operands(m, n, k, l, a_val, b_val, a.p, b.p);
      GemmArgs g;
      g.m = m, g.n = n, g.k = k;
      g.ab_type = DType::bf16, g.cd_type = DType::f32, g.layout = l;
      g.lda = ak ? k : m, g.ldb = bn ? n : k, g.ldd = n;
      g.a = a.p, g.b = b.p, g.d = d.p;
      g.alpha = 0.5f, g.beta = 0.0f;
      const std::string what = std::to_string(m) + "x8192x320 " + name(l);
      const GemmPlan plan = gemm_plan(g);
      EXPECT_EQ(plan.tuning.tile_m, 64) << what << ": " << plan.why;
      CUDA_CHECK(cudaMemsetAsync(d.p, 0xFF, static_cast<std::size_t>(m * n) * 4, stream));
      const Status st = gemm(g, stream);
      ASSERT_TRUE(st.is_ok()) << what << ": " << st.message;
      std::vector<float> h(static_cast<std::size_t>(m * n));
      CUDA_CHECK(cudaMemcpyAsync(h.data(), d.p, h.size() * 4, cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j) {
          std::int64_t sum = 0;
          for (index_t x = 0; x < k; ++x) sum += a_val(i, x) * b_val(x, j);
          ASSERT_EQ(static_cast<double>(h[static_cast<std::size_t>(i * n + j)]), 0.5 * static_cast<double>(sum))
              << what << ": D(" << i << "," << j << ")";
        }
    }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// Split K's counters are kept zeroed per stream (split_counters,
// src/kernels/gemm/workspace.hpp): no memset per call.  Every call here splits
// K in two and must be exact after calls that left the counters to the
// kernel: on one stream again and again, after the array grew (1280 tiles
// of 128 x 64: past the first array's 1024 counters), on two streams at
// once (each its own array), and replayed from a captured graph (counters
// of its own, zeroed inside the graph).
TEST(GemmSplitK, CountersStayZeroAcrossCallsStreamsGrowthAndGraphs) {
  REQUIRE_GPU();
  const index_t k = 256, max_m = 1280, max_n = 8192;
  const auto a_val = [](index_t i, index_t l) { return static_cast<int>((i * 5 + l * 3) % 5) - 2; };
  const auto b_val = [](index_t l, index_t j) { return static_cast<int>((l * 7 + j * 11) % 7) - 3; };
  DeviceBuffer a, b, d[3];
  CUDA_CHECK(cudaMalloc(&a.p, static_cast<std::size_t>(max_m * k) * 2));
  CUDA_CHECK(cudaMalloc(&b.p, static_cast<std::size_t>(k * max_n) * 2));
  for (DeviceBuffer& x : d) CUDA_CHECK(cudaMalloc(&x.p, static_cast<std::size_t>(max_m * max_n) * 4));
  std::vector<__nv_bfloat16> ha(static_cast<std::size_t>(max_m * k)), hb(static_cast<std::size_t>(k * max_n));
  for (index_t i = 0; i < max_m; ++i)
    for (index_t x = 0; x < k; ++x)
      ha[static_cast<std::size_t>(i * k + x)] = __float2bfloat16(static_cast<float>(a_val(i, x)));
  for (index_t x = 0; x < k; ++x)
    for (index_t j = 0; j < max_n; ++j)
      hb[static_cast<std::size_t>(x * max_n + j)] = __float2bfloat16(static_cast<float>(b_val(x, j)));
  CUDA_CHECK(cudaMemcpy(a.p, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b.p, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  cudaStream_t s1 = nullptr, s2 = nullptr;
  CUDA_CHECK(cudaStreamCreate(&s1));
  CUDA_CHECK(cudaStreamCreate(&s2));
  const auto args = [&](index_t m, index_t n, DeviceBuffer& out) {
    GemmArgs g;
    g.m = m, g.n = n, g.k = k;
    g.ab_type = DType::bf16, g.cd_type = DType::f32;
    g.lda = k, g.ldb = max_n, g.ldd = n;
    g.a = a.p, g.b = b.p, g.d = out.p;
    g.alpha = 1.0f, g.beta = 0.0f;
    g.tuning = GemmTuning{64, 2, SwapAB::off};
    return g;
  };
  const auto launch = [&](index_t m, index_t n, DeviceBuffer& out, cudaStream_t st, const char* what) {
    CUDA_CHECK(cudaMemsetAsync(out.p, 0xFF, static_cast<std::size_t>(m * n) * 4, st));
    const Status s = gemm(GemmImpl::k13_wgmma_in_flight, args(m, n, out), st);
    ASSERT_TRUE(s.is_ok()) << what << ": " << s.message;
  };
  const auto check = [&](index_t m, index_t n, DeviceBuffer& out, const char* what) {
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> h(static_cast<std::size_t>(m * n));
    CUDA_CHECK(cudaMemcpy(h.data(), out.p, h.size() * 4, cudaMemcpyDeviceToHost));
    for (int s = 0; s < 8192; ++s) {
      const index_t i = (s * 977) % m, j = (s * 2311 + s / 7) % n;
      std::int64_t sum = 0;
      for (index_t x = 0; x < k; ++x) sum += a_val(i, x) * b_val(x, j);
      ASSERT_EQ(static_cast<double>(h[static_cast<std::size_t>(i * n + j)]), static_cast<double>(sum))
          << what << ": D(" << i << "," << j << ") of " << m << "x" << n << "x" << k;
    }
  };
  for (int round = 0; round < 3; ++round) {  // one stream, the same counters each call
    launch(64, 512, d[0], s1, "small, again");
    check(64, 512, d[0], "small, again");
  }
  launch(max_m, max_n, d[0], s1, "1280 tiles (the array grows)");
  check(max_m, max_n, d[0], "1280 tiles (the array grows)");
  launch(256, 4096, d[1], s1, "after the growth");
  check(256, 4096, d[1], "after the growth");
  for (int round = 0; round < 2; ++round) {  // two streams at once, no synchronization between them
    launch(max_m, max_n, d[0], s1, "stream 1");
    launch(max_m, max_n, d[1], s2, "stream 2");
    launch(512, 2048, d[2], s1, "stream 1, second");
    check(max_m, max_n, d[0], "stream 1");
    check(max_m, max_n, d[1], "stream 2");
    check(512, 2048, d[2], "stream 1, second");
  }
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeThreadLocal));
  const Status captured = gemm(GemmImpl::k13_wgmma_in_flight, args(256, 2048, d[2]), s2);
  CUDA_CHECK(cudaStreamEndCapture(s2, &graph));
  ASSERT_TRUE(captured.is_ok()) << "captured: " << captured.message;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 2; ++round) {
    CUDA_CHECK(cudaMemsetAsync(d[2].p, 0xFF, static_cast<std::size_t>(256 * 2048) * 4, s2));
    CUDA_CHECK(cudaGraphLaunch(exec, s2));
    launch(64, 512, d[0], s2, "after the graph");
    check(256, 2048, d[2], "graph replay");
    check(64, 512, d[0], "after the graph");
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s1));
  CUDA_CHECK(cudaStreamDestroy(s2));
}

// Rule 14's hybrid (GemmTuning::split_tail): the grid's full waves of tiles
// unsplit, the tiles after them split along K, their partials and counters
// indexed from the first split tile.  Exact on small integers on grids of
// more than one wave (so that some tiles are whole and some split) for each
// k13 tile the plan can give it, unswapped and swapped, fp32 and bf16 D,
// beta 0 and beta with C, a transposed layout, a tail of one tile (every
// split on its own SM) and K of one k-tile per split; and again on the same
// counters, which each tile's last unit sets back to zero.
TEST(GemmSplitTail, WholeWavesUnsplitTailSplitExact) {
  REQUIRE_GPU();
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const index_t max_m = 2600, max_n = std::max<index_t>(4200, 64 * (sms + 1)), max_k = 448;
  const auto a_val = [](index_t i, index_t l) { return static_cast<int>((i * 5 + l * 3) % 7) - 3; };
  const auto b_val = [](index_t l, index_t j) { return static_cast<int>((l * 7 + j * 11) % 5) - 2; };
  const auto c_val = [](index_t i, index_t j) { return static_cast<int>((i * 3 + j) % 9) - 4; };
  // A stored K-major (M x K rows) or M-major (K x M rows); B N-major (K x N rows); C and D M x N, ld N.
  DeviceBuffer a_k, a_m, b, c, d;
  CUDA_CHECK(cudaMalloc(&a_k.p, static_cast<std::size_t>(max_m * max_k) * 2));
  CUDA_CHECK(cudaMalloc(&a_m.p, static_cast<std::size_t>(max_m * max_k) * 2));
  CUDA_CHECK(cudaMalloc(&b.p, static_cast<std::size_t>(max_k * max_n) * 2));
  CUDA_CHECK(cudaMalloc(&c.p, static_cast<std::size_t>(max_m * max_n) * 4));
  CUDA_CHECK(cudaMalloc(&d.p, static_cast<std::size_t>(max_m * max_n) * 4));
  std::vector<__nv_bfloat16> hak(static_cast<std::size_t>(max_m * max_k)), ham(hak.size()),
      hb(static_cast<std::size_t>(max_k * max_n));
  for (index_t i = 0; i < max_m; ++i)
    for (index_t x = 0; x < max_k; ++x) {
      const auto v = __float2bfloat16(static_cast<float>(a_val(i, x)));
      hak[static_cast<std::size_t>(i * max_k + x)] = v;
      ham[static_cast<std::size_t>(x * max_m + i)] = v;
    }
  for (index_t x = 0; x < max_k; ++x)
    for (index_t j = 0; j < max_n; ++j)
      hb[static_cast<std::size_t>(x * max_n + j)] = __float2bfloat16(static_cast<float>(b_val(x, j)));
  CUDA_CHECK(cudaMemcpy(a_k.p, hak.data(), hak.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(a_m.p, ham.data(), ham.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b.p, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  struct Case {
    index_t m, n, k;
    GemmTuning t;
    DType out;
    bool with_c, a_m_major;
  };
  // Tiles along the kernel's rows (M, or N swapped) by its columns.
  const auto tiles_of = [](const Case& x) {
    const bool swap = x.t.swap_ab == SwapAB::on;
    const index_t bm = x.t.tile_m == 64 ? 64 : 128;
    return ceil_div(swap ? x.n : x.m, bm) * ceil_div(swap ? x.m : x.n, index_t{x.t.tile_n});
  };
  const auto tail = [](int tile_n, int splits, SwapAB swap = SwapAB::off, int tile_m = 0) {
    GemmTuning t{tile_n, splits, swap, 0, GemmJit::off, tile_m};
    t.split_tail = true;
    return t;
  };
  const std::vector<Case> cases = {
      {1100, 2100, 200, tail(64, 2), DType::f32, false, false},    // 297 tiles of 128 x 64
      {1100, 2100, 200, tail(64, 3), DType::bf16, false, true},    // M-major A, bf16 D
      {2600, 4200, 448, tail(256, 4), DType::f32, true, false},    // 357 tiles of 128 x 256, beta with C
      {2600, 4200, 448, tail(192, 7), DType::bf16, false, false},  // 7 splits of one k-tile
      {1100, 2100, 448, tail(128, 3, SwapAB::off, 64), DType::f32, false, false},  // 64 x 128, one warpgroup
      {300, 4200, 448, tail(64, 2, SwapAB::on), DType::f32, false, false},         // swapped: 33 x 5 tiles
      {200, 4200, 300, tail(16, 2, SwapAB::on, 64), DType::bf16, false, false},    // swapped 64 x 16: 66 x 13
      {128, 64 * (sms + 1), 256, tail(64, 4), DType::f32, true, true},             // a tail of one tile
  };
  for (int round = 0; round < 2; ++round)
    for (const Case& x : cases) {
      const std::string what = std::to_string(x.m) + "x" + std::to_string(x.n) + "x" + std::to_string(x.k) +
                               " tile_n " + std::to_string(x.t.tile_n) + " splits " + std::to_string(x.t.splits) +
                               (x.t.swap_ab == SwapAB::on ? " swapped" : "") + " (" + std::to_string(tiles_of(x)) +
                               " tiles, round " + std::to_string(round) + ")";
      ASSERT_GT(tiles_of(x), sms) << what << ": the case must have whole waves";
      const std::size_t out_bytes = x.out == DType::f32 ? 4 : 2;
      GemmArgs g;
      g.m = x.m, g.n = x.n, g.k = x.k;
      g.ab_type = DType::bf16, g.cd_type = x.out;
      g.layout = x.a_m_major ? GemmLayout{MajorA::m, MajorB::n} : GemmLayout{MajorA::k, MajorB::n};
      g.a = x.a_m_major ? a_m.p : a_k.p;
      g.lda = x.a_m_major ? max_m : max_k;
      g.b = b.p, g.ldb = max_n;
      g.d = d.p, g.ldd = x.n;
      g.alpha = 2.0f, g.beta = x.with_c ? -1.0f : 0.0f;
      if (x.with_c) {
        std::vector<float> hc32(static_cast<std::size_t>(x.m * x.n));
        std::vector<__nv_bfloat16> hc16(hc32.size());
        for (index_t i = 0; i < x.m; ++i)
          for (index_t j = 0; j < x.n; ++j) {
            hc32[static_cast<std::size_t>(i * x.n + j)] = static_cast<float>(c_val(i, j));
            hc16[static_cast<std::size_t>(i * x.n + j)] = __float2bfloat16(static_cast<float>(c_val(i, j)));
          }
        CUDA_CHECK(cudaMemcpy(c.p, x.out == DType::f32 ? static_cast<const void*>(hc32.data()) : hc16.data(),
                              hc32.size() * out_bytes, cudaMemcpyHostToDevice));
        g.c = c.p, g.ldc = x.n;
      }
      g.tuning = x.t;
      CUDA_CHECK(cudaMemset(d.p, 0xFF, static_cast<std::size_t>(x.m * x.n) * out_bytes));
      const Status st = gemm(GemmImpl::k13_wgmma_in_flight, g, nullptr);
      ASSERT_TRUE(st.is_ok()) << what << ": " << st.message;
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<unsigned char> h(static_cast<std::size_t>(x.m * x.n) * out_bytes);
      CUDA_CHECK(cudaMemcpy(h.data(), d.p, h.size(), cudaMemcpyDeviceToHost));
      // Every row of the first and last tile rows and a spread of the rest: the split tiles are the raster's last.
      for (index_t i = 0; i < x.m; ++i) {
        const bool edge = i < 128 || i >= x.m - 128 || i % 61 == 0;
        for (index_t j = edge ? 0 : i % 7; j < x.n; j += edge ? 1 : 7) {
          std::int64_t sum = 0;
          for (index_t l = 0; l < x.k; ++l) sum += a_val(i, l) * b_val(l, j);
          const float want = 2.0f * static_cast<float>(sum) - (x.with_c ? static_cast<float>(c_val(i, j)) : 0.0f);
          const std::size_t e = static_cast<std::size_t>(i * x.n + j);
          float got = 0.0f;
          if (x.out == DType::f32) {
            std::memcpy(&got, h.data() + 4 * e, 4);
          } else {
            __nv_bfloat16 v;
            std::memcpy(&v, h.data() + 2 * e, 2);
            got = __bfloat162float(v);
          }
          const float expect = x.out == DType::f32 ? want : __bfloat162float(__float2bfloat16(want));
          ASSERT_EQ(got, expect) << what << ": D(" << i << "," << j << ")";
        }
      }
    }
}

/// Random bf16 operands uniform in [-1, 1): A (max_m x k, K-major) and B
/// (k x max_n, N-major), on the host and the device, for the tests that
/// compare split K's sums bit for bit and against fp64 (upload() before use).
struct RandomOperands {
  index_t max_m, max_n, k;
  std::vector<__nv_bfloat16> ha, hb;
  DeviceBuffer a, b;
  RandomOperands(index_t m, index_t n, index_t kk, std::uint64_t state) : max_m(m), max_n(n), k(kk) {
    ha.resize(static_cast<std::size_t>(max_m * k));
    hb.resize(static_cast<std::size_t>(k * max_n));
    const auto next = [&] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<float>(static_cast<double>(state >> 11) / 4503599627370496.0 - 1.0);
    };
    for (auto& x : ha) x = __float2bfloat16(next());
    for (auto& x : hb) x = __float2bfloat16(next());
  }
  void upload() {
    CUDA_CHECK(cudaMalloc(&a.p, ha.size() * 2));
    CUDA_CHECK(cudaMalloc(&b.p, hb.size() * 2));
    CUDA_CHECK(cudaMemcpy(a.p, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b.p, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  }
  /// An m x n fp32 D (rows of n) against fp64 on `samples` sampled entries:
  /// |error| <= K x 2^-23 x sum |a b| (fp32 accumulation).
  void expect_near_fp64(const unsigned char* d, index_t m, index_t n, int samples, const std::string& what) const {
    for (int sample = 0; sample < samples; ++sample) {
      const index_t i = (sample * 7919) % m, j = (sample * 104729 + sample / 3) % n;
      double ref = 0.0, mag = 0.0;
      for (index_t l = 0; l < k; ++l) {
        const double p = static_cast<double>(__bfloat162float(ha[static_cast<std::size_t>(i * k + l)])) *
                         static_cast<double>(__bfloat162float(hb[static_cast<std::size_t>(l * max_n + j)]));
        ref += p;
        mag += std::fabs(p);
      }
      float got = 0.0f;
      std::memcpy(&got, d + 4 * static_cast<std::size_t>(i * n + j), 4);
      ASSERT_LE(std::fabs(static_cast<double>(got) - ref), static_cast<double>(k) * 0x1p-23 * mag)
          << what << ": D(" << i << "," << j << ")";
    }
  }
};

// Split K sums a tile's partials in split order whichever unit arrives
// last, so a call's bits do not depend on timing.  Random inputs (the sum's
// order shows in the low bits), fp32 D, 25 calls of each configuration on a
// GPU kept busy by a second stream's work, every call bit-identical to the
// first; the first within a bound of an fp64 reference on sampled entries.
// Wide tiles (one partial in flight), the narrow swapped tile (four in
// flight, 8 and 13 splits: an uneven last batch) and a split tail.
TEST(GemmSplitK, SameBitsEveryCall) {
  REQUIRE_GPU();
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const index_t max_m = 1100, max_n = 128 * (sms + 8), k = 3328;
  RandomOperands ops(max_m, max_n, k, 12345);
  ops.upload();
  DeviceBuffer d, busy;
  CUDA_CHECK(cudaMalloc(&d.p, static_cast<std::size_t>(max_m * max_n) * 4));
  CUDA_CHECK(cudaMalloc(&busy.p, std::size_t{64} << 20));
  cudaStream_t side = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  struct Case {
    index_t m, n;
    GemmTuning t;
  };
  GemmTuning tail{192, 3, SwapAB::off};
  tail.split_tail = true;
  const std::vector<Case> cases = {
      {256, 1024, GemmTuning{128, 4, SwapAB::off}},                    // 16 tiles x 4 splits
      {1100, 128 * (sms + 8) / 2, GemmTuning{256, 2, SwapAB::off}},    // 2 splits of 128 x 256
      {16, 4096, GemmTuning{16, 8, SwapAB::on, 0, GemmJit::off, 64}},  // swapped 64 x 16, 8 splits
      {5, 2048, GemmTuning{16, 13, SwapAB::on, 0, GemmJit::off, 64}},  // 13 splits: one batch of 12 or 13 partials
      {5, 2048, GemmTuning{16, 33, SwapAB::on, 0, GemmJit::off, 64}},  // 33 splits: batches of 16, 16, then 1 or 0
      {20, 2048, GemmTuning{32, 9, SwapAB::on}},                       // swapped 128 x 32, 9 splits: batches of 4
      {1100, max_n, tail},                                             // whole waves, then a split tail
  };
  for (const Case& c : cases) {
    const std::string what = std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(k) + " tile_n " +
                             std::to_string(c.t.tile_n) + " splits " + std::to_string(c.t.splits) +
                             (c.t.split_tail ? " tail" : "");
    GemmArgs g;
    g.m = c.m, g.n = c.n, g.k = k;
    g.ab_type = DType::bf16, g.cd_type = DType::f32;
    g.a = ops.a.p, g.lda = k, g.b = ops.b.p, g.ldb = max_n, g.d = d.p, g.ldd = c.n;
    g.alpha = 1.0f, g.beta = 0.0f;
    g.tuning = c.t;
    const std::size_t bytes = static_cast<std::size_t>(c.m * c.n) * 4;
    std::vector<unsigned char> first(bytes), again(bytes);
    for (int call = 0; call < 25; ++call) {
      CUDA_CHECK(cudaMemsetAsync(busy.p, call, std::size_t{64} << 20, side));  // other work on the GPU, unsynchronized
      CUDA_CHECK(cudaMemset(d.p, 0xFF, bytes));
      const Status st = gemm(GemmImpl::k13_wgmma_in_flight, g, nullptr);
      ASSERT_TRUE(st.is_ok()) << what << ": " << st.message;
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemcpy(call == 0 ? first.data() : again.data(), d.p, bytes, cudaMemcpyDeviceToHost));
      if (call > 0) ASSERT_EQ(std::memcmp(first.data(), again.data(), bytes), 0) << what << ": call " << call;
    }
    ops.expect_near_fp64(first.data(), c.m, c.n, 2048, what);  // call 0 against fp64
  }
  CUDA_CHECK(cudaStreamDestroy(side));
}

// Split K summed apart (GemmTuning::split_sum = second_kernel): the units
// write their partials into planes of D's shape and a second kernel, launched
// as a programmatic dependent of the GEMM, sums them in split order.  On
// random inputs with fp32 D (alpha 1, beta 0: nothing rounds after the sum)
// it gives the last unit's bits exactly, for each tile the model splits
// (unswapped 128 x 64, 64 x 128 and 128 x 128, 128 x 256; swapped 64 x 16
// and 128 x 16 through global memory, 128 x 64), on a second stream with
// other work running, and replayed from a captured graph (where the
// partials are the capture's own), whose two kernels show that the sum ran
// apart.  Calls alternate between two problems (B's columns from 0 and from
// 8), so that a sum that read before the GEMM's writes landed would see the
// other problem's partials.
TEST(GemmSplitApart, SameBitsAsTheLastUnitOnStreamsAndInGraphs) {
  REQUIRE_GPU();
  const index_t max_m = 512, max_n = 4096 + 8, k = 2432;
  RandomOperands ops(max_m, max_n, k, 2718281);
  ops.upload();
  DeviceBuffer d, busy;
  CUDA_CHECK(cudaMalloc(&d.p, static_cast<std::size_t>(max_m * max_n) * 4));
  CUDA_CHECK(cudaMalloc(&busy.p, std::size_t{64} << 20));
  cudaStream_t side = nullptr, other = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreate(&other));
  struct Case {
    index_t m, n;
    GemmTuning t;
  };
  GemmTuning x16{16, 8, SwapAB::on, 0, GemmJit::off, 64}, x16_128{16, 4, SwapAB::on};
  x16.cluster = x16_128.cluster = 1;  // through global memory, not inside clusters
  const std::vector<Case> cases = {
      {300, 700, GemmTuning{64, 6, SwapAB::off}},                         // 128 x 64, 6 splits, edge rows and columns
      {200, 1000, GemmTuning{128, 3, SwapAB::off, 0, GemmJit::off, 64}},  // 64 x 128 on one warpgroup
      {256, 1024, GemmTuning{128, 4, SwapAB::off}},                       // 128 x 128, 4 splits
      {100, 2000, GemmTuning{256, 2, SwapAB::off}},                       // 128 x 256, 2 splits
      {40, 3000, GemmTuning{64, 3, SwapAB::on}},                          // swapped 128 x 64: D^T's planes
      {13, 4096, x16},                                                    // swapped 64 x 16, 8 splits
      {9, 4096, x16_128},                                                 // swapped 128 x 16, 4 splits
  };
  for (const Case& c : cases) {
    const std::string what = std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(k) + " tile_n " +
                             std::to_string(c.t.tile_n) + " splits " + std::to_string(c.t.splits);
    GemmArgs g;
    g.m = c.m, g.n = c.n, g.k = k;
    g.ab_type = DType::bf16, g.cd_type = DType::f32;
    g.a = ops.a.p, g.lda = k, g.ldb = max_n, g.d = d.p, g.ldd = c.n;
    g.alpha = 1.0f, g.beta = 0.0f;
    const std::size_t bytes = static_cast<std::size_t>(c.m * c.n) * 4;
    const auto problem = [&](int which, SplitSum who) {  // B's columns from 8 x which
      g.b = static_cast<const __nv_bfloat16*>(ops.b.p) + 8 * which;
      g.tuning = c.t;
      g.tuning.split_sum = who;
    };
    const auto run = [&](int which, SplitSum who, cudaStream_t st, std::vector<unsigned char>& out, const char* how) {
      problem(which, who);
      CUDA_CHECK(cudaMemsetAsync(busy.p, 7, std::size_t{64} << 20, side));  // other work, unsynchronized
      CUDA_CHECK(cudaMemsetAsync(d.p, 0xFF, bytes, st));
      const Status s = gemm(GemmImpl::k13_wgmma_in_flight, g, st);
      ASSERT_TRUE(s.is_ok()) << what << " " << how << ": " << s.message;
      CUDA_CHECK(cudaDeviceSynchronize());
      out.resize(bytes);
      CUDA_CHECK(cudaMemcpy(out.data(), d.p, bytes, cudaMemcpyDeviceToHost));
    };
    std::vector<unsigned char> last[2], apart;
    for (int which : {0, 1}) run(which, SplitSum::last_unit, nullptr, last[which], "last unit");
    if (HasFatalFailure()) return;
    ASSERT_NE(std::memcmp(last[0].data(), last[1].data(), bytes), 0) << what << ": the two problems agree";
    for (int call = 0; call < 4; ++call) {
      run(call % 2, SplitSum::second_kernel, call == 1 ? other : nullptr, apart, "apart");
      if (HasFatalFailure()) return;
      ASSERT_EQ(std::memcmp(last[call % 2].data(), apart.data(), bytes), 0) << what << ": call " << call;
    }
    // Replayed from a graph: the sum's programmatic launch captured as the GEMM's dependent.
    for (int which : {0, 1}) {
      problem(which, SplitSum::second_kernel);
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      CUDA_CHECK(cudaStreamBeginCapture(other, cudaStreamCaptureModeThreadLocal));
      const Status captured = gemm(GemmImpl::k13_wgmma_in_flight, g, other);
      CUDA_CHECK(cudaStreamEndCapture(other, &graph));
      ASSERT_TRUE(captured.is_ok()) << what << " captured: " << captured.message;
      std::size_t count = 0;
      CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
      std::vector<cudaGraphNode_t> nodes(count);
      CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
      int kernels = 0;
      for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        kernels += type == cudaGraphNodeTypeKernel;
      }
      EXPECT_EQ(kernels, 2) << what << ": the GEMM and the sum apart";
      CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      for (int round = 0; round < 2; ++round) {
        CUDA_CHECK(cudaMemsetAsync(d.p, 0xFF, bytes, other));
        CUDA_CHECK(cudaGraphLaunch(exec, other));
        CUDA_CHECK(cudaStreamSynchronize(other));
        CUDA_CHECK(cudaMemcpy(apart.data(), d.p, bytes, cudaMemcpyDeviceToHost));
        ASSERT_EQ(std::memcmp(last[which].data(), apart.data(), bytes), 0) << what << ": graph replay " << round;
      }
      CUDA_CHECK(cudaGraphExecDestroy(exec));
      CUDA_CHECK(cudaGraphDestroy(graph));
    }
    ops.expect_near_fp64(last[0].data(), c.m, c.n, 512, what);  // the last unit's result against fp64
  }
  CUDA_CHECK(cudaStreamDestroy(side));
  CUDA_CHECK(cudaStreamDestroy(other));
}

// f11 (stream-K): tiles shared along K by several CTAs, each contribution a
// partial tile that the tile's owner adds.  Exact on small integers for
// shapes whose split shares tiles on this GPU (stream_k_split): 1.5 and 2.5
// waves (whole waves beside the shared half wave), a grid smaller than
// a wave (every tile shared, up to 9 CTAs on one tile), both A layouts,
// beta with C; repeated calls and a second stream (the kept-zero counters
// must be zero again after each launch), a captured graph (counters of its
// own); and, on random inputs, bit-identical results from call to call (the
// owner adds its contributors in a fixed order).
TEST(GemmStreamK, SharedTilesExactAcrossLayoutsStreamsGraphsAndDeterministic) {
  REQUIRE_GPU();
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  struct Shape {
    index_t m, n, k;
  };
  const index_t wave = sms;  // tiles of 128 x 256 per wave
  const std::vector<Shape> shapes = {
      {128 * (wave + wave / 2), 256, 512},  // 1.5 waves: one whole, half a wave shared
      {128 * ((5 * wave) / 2), 256, 1000},  // 2.5 waves: two whole, half a wave shared; K not a multiple of 16
      {256, 2048, 8192},                    // 16 tiles: 8 or 9 CTAs on each
      {1000, 1000, 1000},                   // edges in M, N and K
  };
  index_t max_mk = 0, max_kn = 0, max_mn = 0;
  for (const Shape& sh : shapes) {
    max_mk = std::max(max_mk, sh.m * sh.k);
    max_kn = std::max(max_kn, sh.k * sh.n);
    max_mn = std::max(max_mn, sh.m * sh.n);
  }
  const auto a_val = [](index_t i, index_t l) { return static_cast<float>((i * 5 + l * 3) % 5 - 2); };
  const auto b_val = [](index_t l, index_t j) { return static_cast<float>((l * 7 + j * 11) % 7 - 3); };
  const auto c_val = [](index_t i, index_t j) { return static_cast<float>((i + 2 * j) % 9 - 4); };
  DeviceBuffer a, b, c, d[2];
  CUDA_CHECK(cudaMalloc(&a.p, static_cast<std::size_t>(max_mk) * 4));
  CUDA_CHECK(cudaMalloc(&b.p, static_cast<std::size_t>(max_kn) * 4));
  CUDA_CHECK(cudaMalloc(&c.p, static_cast<std::size_t>(max_mn) * 4));
  for (DeviceBuffer& x : d) CUDA_CHECK(cudaMalloc(&x.p, static_cast<std::size_t>(max_mn) * 4));
  cudaStream_t s1 = nullptr, s2 = nullptr;
  CUDA_CHECK(cudaStreamCreate(&s1));
  CUDA_CHECK(cudaStreamCreate(&s2));
  int shared = 0;
  for (const Shape& sh : shapes) {
    const StreamKSplit split = stream_k_split(((sh.m + 127) / 128) * ((sh.n + 255) / 256), (sh.k + 15) / 16, sms);
    shared += split.sk_ctas > 0;
    // B (k x n, N-major) and C (m x n) the same for both layouts of A.
    std::vector<float> hb(static_cast<std::size_t>(sh.k * sh.n)), hc(static_cast<std::size_t>(sh.m * sh.n));
    for (index_t l = 0; l < sh.k; ++l)
      for (index_t j = 0; j < sh.n; ++j) hb[static_cast<std::size_t>(l * sh.n + j)] = b_val(l, j);
    for (index_t i = 0; i < sh.m; ++i)
      for (index_t j = 0; j < sh.n; ++j) hc[static_cast<std::size_t>(i * sh.n + j)] = c_val(i, j);
    CUDA_CHECK(cudaMemcpy(b.p, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(c.p, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice));
    for (MajorA ma : {MajorA::k, MajorA::m}) {
      std::vector<float> ha(static_cast<std::size_t>(sh.m * sh.k));
      for (index_t i = 0; i < sh.m; ++i)
        for (index_t l = 0; l < sh.k; ++l)
          ha[static_cast<std::size_t>(ma == MajorA::k ? i * sh.k + l : l * sh.m + i)] = a_val(i, l);
      CUDA_CHECK(cudaMemcpy(a.p, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
      GemmArgs g;
      g.m = sh.m, g.n = sh.n, g.k = sh.k;
      g.ab_type = DType::f32, g.cd_type = DType::f32;
      g.layout = GemmLayout{ma, MajorB::n};
      g.lda = ma == MajorA::k ? sh.k : sh.m, g.ldb = sh.n, g.ldc = sh.n, g.ldd = sh.n;
      g.a = a.p, g.b = b.p, g.c = c.p;
      g.alpha = 2.0f, g.beta = -1.0f;
      const std::string what = std::to_string(sh.m) + "x" + std::to_string(sh.n) + "x" + std::to_string(sh.k) +
                               (ma == MajorA::k ? " A:k" : " A:m") + " (" + std::to_string(split.sk_ctas) +
                               " stream-K CTAs on " + std::to_string(split.sk_tiles) + " tiles)";
      const auto launch = [&](DeviceBuffer& out, cudaStream_t st) {
        CUDA_CHECK(cudaMemsetAsync(out.p, 0xFF, static_cast<std::size_t>(sh.m * sh.n) * 4, st));
        g.d = out.p;
        const Status s = gemm(GemmImpl::f11_stream_k, g, st);
        ASSERT_TRUE(s.is_ok()) << what << ": " << s.message;
      };
      const auto check = [&](DeviceBuffer& out, const char* when) {
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<float> h(static_cast<std::size_t>(sh.m * sh.n));
        CUDA_CHECK(cudaMemcpy(h.data(), out.p, h.size() * 4, cudaMemcpyDeviceToHost));
        for (int s = 0; s < 4096; ++s) {
          const index_t i = (s * 977 + s / 13) % sh.m, j = (s * 2311 + s / 7) % sh.n;
          double sum = 0;
          for (index_t l = 0; l < sh.k; ++l) sum += static_cast<double>(a_val(i, l)) * b_val(l, j);
          ASSERT_EQ(static_cast<double>(h[static_cast<std::size_t>(i * sh.n + j)]), 2.0 * sum - c_val(i, j))
              << what << ", " << when << ": D(" << i << "," << j << ")";
        }
      };
      for (int round = 0; round < 2; ++round) {  // the counters are zero again after each launch
        launch(d[0], s1);
        check(d[0], round == 0 ? "first call" : "second call");
      }
      launch(d[0], s1);  // two streams at once
      launch(d[1], s2);
      check(d[0], "stream 1 beside stream 2");
      check(d[1], "stream 2 beside stream 1");
      if (HasFatalFailure()) break;
    }
    if (HasFatalFailure()) break;
  }
  EXPECT_GE(shared, 3) << "stream_k_split shares tiles in fewer than 3 shapes on " << sms << " SMs";

  // A captured graph (counters zeroed inside it), replayed twice, then a plain call.
  {
    const Shape sh = shapes[0];
    GemmArgs g;
    g.m = sh.m, g.n = sh.n, g.k = sh.k;
    g.ab_type = DType::f32, g.cd_type = DType::f32;
    g.layout = GemmLayout{MajorA::m, MajorB::n};
    g.lda = sh.m, g.ldb = sh.n, g.ldd = sh.n;
    g.a = a.p, g.b = b.p, g.d = d[1].p;
    g.alpha = 1.0f, g.beta = 0.0f;
    // Random values in [-1, 1): not exact, so compared call with call.
    std::vector<float> ha(static_cast<std::size_t>(sh.m * sh.k)), hb(static_cast<std::size_t>(sh.k * sh.n));
    unsigned x = 2024;
    const auto rnd = [&] { return static_cast<float>((x = x * 1664525u + 1013904223u) >> 8) / 8388608.0f - 1.0f; };
    for (float& v : ha) v = rnd();
    for (float& v : hb) v = rnd();
    CUDA_CHECK(cudaMemcpy(a.p, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b.p, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    const std::size_t bytes = static_cast<std::size_t>(sh.m * sh.n) * 4;
    const auto result = [&](DeviceBuffer& out) -> std::vector<float> {
      std::vector<float> h(bytes / 4);
      if (cudaDeviceSynchronize() != cudaSuccess ||
          cudaMemcpy(h.data(), out.p, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        ADD_FAILURE() << "stream-K determinism: " << cudaGetErrorString(cudaGetLastError());
        h.assign(h.size(), std::nanf(""));
      }
      return h;
    };
    g.d = d[0].p;
    CUDA_CHECK(cudaMemsetAsync(d[0].p, 0xFF, bytes, s1));
    ASSERT_TRUE(gemm(GemmImpl::f11_stream_k, g, s1).is_ok());
    const std::vector<float> first = result(d[0]);
    for (float v : first) ASSERT_TRUE(std::isfinite(v)) << "a value of D was not written";
    g.d = d[1].p;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeThreadLocal));
    const Status captured = gemm(GemmImpl::f11_stream_k, g, s2);
    CUDA_CHECK(cudaStreamEndCapture(s2, &graph));
    ASSERT_TRUE(captured.is_ok()) << "captured: " << captured.message;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int round = 0; round < 2; ++round) {
      CUDA_CHECK(cudaMemsetAsync(d[1].p, 0xFF, bytes, s2));
      CUDA_CHECK(cudaGraphLaunch(exec, s2));
      EXPECT_TRUE(result(d[1]) == first) << "graph replay " << round << " differs from the first call";
    }
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    g.d = d[0].p;
    CUDA_CHECK(cudaMemsetAsync(d[0].p, 0xFF, bytes, s1));
    ASSERT_TRUE(gemm(GemmImpl::f11_stream_k, g, s1).is_ok());
    EXPECT_TRUE(result(d[0]) == first) << "a second call differs from the first";
  }
  CUDA_CHECK(cudaStreamDestroy(s1));
  CUDA_CHECK(cudaStreamDestroy(s2));
}

// Measured tuning (GemmTuning::tune): the first call times the candidates
// into scratch memory and runs the fastest; the caller's D is written once,
// by that run, and is exact, also where C is D in place (beta = 1).  The
// choice is kept in the cache directory: a fresh process reads it (no
// timing), and after the file is corrupted a fresh process warns, tunes
// again and rewrites it.
TEST(GemmTuned, ExactInPlaceCachedAndRetunedAfterCorruption) {
  REQUIRE_SM90();
  const bool child = std::getenv("TESSEL_TUNE_TEST_CHILD") != nullptr;
  char dir_template[] = "/tmp/tessel-tune-test-XXXXXX";
  std::string dir;
  if (child) {
    dir = std::getenv("TESSEL_TUNE_CACHE");
  } else {
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    dir = dir_template;
    ::setenv("TESSEL_TUNE_CACHE", dir.c_str(), 1);
  }
  const index_t m = 300, n = 520, k = 704;
  const auto a_val = [](index_t i, index_t l) { return static_cast<int>((i * 7 + l * 3) % 5) - 2; };
  const auto b_val = [](index_t l, index_t j) { return static_cast<int>((l * 5 + j * 11) % 7) - 3; };
  const auto c_val = [](index_t i, index_t j) { return static_cast<int>((i + 2 * j) % 9) - 4; };
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  DeviceBuffer a, b, d;
  CUDA_CHECK(cudaMalloc(&a.p, static_cast<std::size_t>(m * k) * 2));
  CUDA_CHECK(cudaMalloc(&b.p, static_cast<std::size_t>(k * n) * 2));
  CUDA_CHECK(cudaMalloc(&d.p, static_cast<std::size_t>(m * n) * 4));
  const GemmLayout l{};
  upload_bf16_operands(m, n, k, l, a_val, b_val, a.p, b.p);
  GemmArgs g;
  g.m = m, g.n = n, g.k = k;
  g.ab_type = DType::bf16, g.cd_type = DType::f32, g.layout = l;
  g.lda = k, g.ldb = n, g.ldc = n, g.ldd = n;
  g.a = a.p, g.b = b.p, g.c = d.p, g.d = d.p;  // C is D, in place
  g.alpha = 1.0f, g.beta = 1.0f;
  g.tuning.tune = true;
  std::vector<float> h(static_cast<std::size_t>(m * n));
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) h[static_cast<std::size_t>(i * n + j)] = static_cast<float>(c_val(i, j));
  CUDA_CHECK(cudaMemcpy(d.p, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  const Status st = gemm(g, stream);
  ASSERT_TRUE(st.is_ok()) << st.message;
  CUDA_CHECK(cudaMemcpyAsync(h.data(), d.p, h.size() * 4, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      std::int64_t sum = c_val(i, j);
      for (index_t x = 0; x < k; ++x) sum += a_val(i, x) * b_val(x, j);
      ASSERT_EQ(static_cast<double>(h[static_cast<std::size_t>(i * n + j)]), static_cast<double>(sum))
          << "D(" << i << "," << j << ")";
    }
  const std::string why = gemm_plan(g).why;
  std::printf("[ tuned ] %s%s\n", child ? "child: " : "", why.c_str());
  const char* expect = child ? std::getenv("TESSEL_TUNE_TEST_CHILD") : "configurations timed";
  EXPECT_NE(why.find(std::strcmp(expect, "disk") == 0 ? "disk cache" : "configurations timed"), std::string::npos)
      << why;
  EXPECT_EQ(why.rfind("tuned ", 0), 0u) << why;
  CUDA_CHECK(cudaStreamDestroy(stream));
  if (child) return;
  // The cache holds one file; a fresh process reads it.
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir)) files.push_back(f.path().string());
  ASSERT_EQ(files.size(), 1u);
  const std::string filter = "GemmTuned.ExactInPlaceCachedAndRetunedAfterCorruption";
  EXPECT_EQ(run_child(filter, {"TESSEL_TUNE_CACHE=" + dir, "TESSEL_TUNE_TEST_CHILD=disk"}), 0);
  // Corrupted, it is ignored (with a warning) and rewritten by a new tuning.
  { std::ofstream(files[0], std::ios::trunc) << "tessel-tune 1\nkey nonsense\n"; }
  EXPECT_EQ(run_child(filter, {"TESSEL_TUNE_CACHE=" + dir, "TESSEL_TUNE_TEST_CHILD=retune"}), 0);
  std::string text;
  {
    std::ifstream f(files[0]);
    text.assign(std::istreambuf_iterator<char>(f), {});
  }
  EXPECT_NE(text.find("choice "), std::string::npos) << text;
  std::filesystem::remove_all(dir);
  ::unsetenv("TESSEL_TUNE_CACHE");
}

}  // namespace
