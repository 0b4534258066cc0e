// tessel::attention: the checks (no GPU needed), and every step against an
// fp64 reference on the GPU (skipped without one): random inputs within a
// derived bound, the mask's edges exactly, packed sequences, GQA, both
// layouts, head dims 64..256, Q shorter and longer than K/V.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tessel/host/attention.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace {

using tessel::AttentionArgs;
using tessel::AttentionImpl;
using tessel::DType;
using tessel::index_t;
using tessel::Status;

// ---------------------------------------------------------------- checks

/// A well-formed call on fake, aligned addresses (the checks never read them):
/// (batch, heads, seq, dim) row-major tensors far apart.
AttentionArgs fake(index_t d = 128) {
  AttentionArgs a;
  a.batch = 2, a.heads_q = 8, a.heads_kv = 2, a.seq_q = 100, a.seq_kv = 300, a.head_dim = d;
  const auto at = [](std::uintptr_t gib) { return reinterpret_cast<void*>(gib << 30); };
  a.q = at(1), a.k = at(2), a.v = at(3), a.o = at(4);
  a.q_stride = {8 * 100 * d, 100 * d, d};
  a.o_stride = a.q_stride;
  a.k_stride = {2 * 300 * d, 300 * d, d};
  a.v_stride = a.k_stride;
  return a;
}

void expect_rule(const AttentionArgs& a, Status::Code code, const std::string& words,
                 AttentionImpl impl = AttentionImpl::automatic) {
  const Status s = tessel::attention_check(impl, a);
  EXPECT_EQ(s.code, code) << s.message;
  EXPECT_NE(s.message.find(words), std::string::npos) << s.message;
}

TEST(AttentionCheck, WellFormedCallsPass) {
  for (index_t d : {64, 96, 128, 192, 256}) {
    EXPECT_TRUE(tessel::attention_check(AttentionImpl::automatic, fake(d))) << d;
    EXPECT_TRUE(tessel::attention_check(AttentionImpl::a01, fake(d))) << d;
  }
  AttentionArgs a = fake();  // FlashAttention's (batch, seq, heads, dim)
  a.q_stride = a.o_stride = {100 * 8 * 128, 128, 8 * 128};
  a.k_stride = a.v_stride = {300 * 2 * 128, 128, 2 * 128};
  EXPECT_TRUE(tessel::attention_check(AttentionImpl::a02, a));
}

TEST(AttentionCheck, MalformedCallsNameTheRule) {
  const auto inv = Status::invalid_argument;
  AttentionArgs a = fake();
  a.dtype = DType::f32;
  expect_rule(a, inv, "bf16 or f16");
  a = fake(), a.heads_kv = 3;
  expect_rule(a, inv, "must divide heads_q");
  a = fake(), a.seq_kv = 0;
  expect_rule(a, inv, ">= 1");
  a = fake(), a.k = nullptr;
  expect_rule(a, inv, "K is null");
  a = fake(), a.v_stride.head = -1;
  expect_rule(a, inv, "V's strides must be >= 0");
  a = fake(), a.q_stride.row = 64;
  expect_rule(a, inv, "row stride 64 is below head_dim");
  a = fake(), a.o = const_cast<void*>(a.q);
  expect_rule(a, inv, "O overlaps Q");
  a = fake(), a.o_stride.head = 0;  // every head onto one tensor
  expect_rule(a, inv, "two of its elements");
  a = fake(), a.lse = static_cast<float*>(const_cast<void*>(a.v));
  expect_rule(a, inv, "lse overlaps V");
  a = fake(), a.scale = -1.0f;
  expect_rule(a, inv, "scale");
  a = fake(), a.scale = std::nanf("");
  expect_rule(a, inv, "scale");
  a = fake(), a.cu_seqlens_q = reinterpret_cast<const int*>(std::uintptr_t{5} << 30);
  expect_rule(a, inv, "both set");
  a.cu_seqlens_kv = a.cu_seqlens_q;
  expect_rule(a, inv, "max_seq_q");
}

TEST(AttentionCheck, CallsTheKernelsCannotTakeAreUnsupported) {
  const auto uns = Status::unsupported;
  expect_rule(fake(80), uns, "head_dim 80");
  AttentionArgs a = fake();
  a.q = static_cast<const char*>(a.q) + 2;
  expect_rule(a, uns, "Q is not 16-byte aligned");
  a = fake(), a.k_stride.row = 132;
  expect_rule(a, uns, "K's strides must be multiples of 8");
  a = fake(), a.cu_seqlens_q = a.cu_seqlens_kv = reinterpret_cast<const int*>(std::uintptr_t{5} << 30);
  a.max_seq_q = a.max_seq_kv = 10;
  EXPECT_TRUE(tessel::attention_check(AttentionImpl::a02, a));
  expect_rule(a, uns, "a01 takes no packed sequences", AttentionImpl::a01);
  EXPECT_TRUE(tessel::attention_check(AttentionImpl::a03, a));
  a = fake(), a.k_stride.head = a.v_stride.head = 0;  // K/V broadcast over heads: TMA cannot step by 0
  EXPECT_TRUE(tessel::attention_check(AttentionImpl::automatic, a));
  expect_rule(a, uns, "takes no stride 0", AttentionImpl::a03);
  a = fake(96);
  EXPECT_TRUE(tessel::attention_check(AttentionImpl::a02, a));
  expect_rule(a, uns, "a03 takes head dims 64, 128, 192 and 256", AttentionImpl::a03);
  expect_rule(a, uns, "a04 takes head dims 64, 128, 192 and 256", AttentionImpl::a04);
  expect_rule(a, uns, "a05 takes head dims 64, 128, 192 and 256", AttentionImpl::a05);
  expect_rule(a, uns, "a06 takes head dims 64, 128, 192 and 256", AttentionImpl::a06);
  expect_rule(a, uns, "a07 takes head dims 64, 128, 192 and 256", AttentionImpl::a07);
  expect_rule(a, uns, "a08 takes head dims 64, 128, 192 and 256", AttentionImpl::a08);
  expect_rule(a, uns, "a09 takes head dims 64, 128, 192 and 256", AttentionImpl::a09);
  expect_rule(a, uns, "a10 takes head dims 64, 128 and 192", AttentionImpl::a10);
  expect_rule(fake(256), uns, "a10 takes head dims 64, 128 and 192", AttentionImpl::a10);
  EXPECT_TRUE(tessel::attention_check(AttentionImpl::a10, fake(192)));
}

/// auto's choice, made on the host by the cost model (a fixed cost a row tile, a cost a key computed): a10's
/// chained tiles where tiles are short (1k: 8 blocks), a09's blocks of 176 keys at d 128 where they are long
/// (8k, causal or not), a10 at d 64 and 192 at every length, a08 at d 256, a06 / a03 for packed sequences,
/// a02 at d 96; a malformed call gets attention_check's status.
TEST(AttentionCheck, AutoStep) {
  const auto step = [](index_t d, index_t seq, bool causal, bool packed = false) {
    AttentionArgs a = fake(d);
    a.batch = 1, a.heads_q = a.heads_kv = 2, a.seq_q = a.seq_kv = seq, a.causal = causal;
    a.q_stride = a.o_stride = a.k_stride = a.v_stride = {2 * seq * d, seq * d, d};
    static const int cu[2] = {0, 0};
    if (packed) a.cu_seqlens_q = a.cu_seqlens_kv = cu, a.max_seq_q = a.max_seq_kv = seq;
    AttentionImpl s = AttentionImpl::a01;
    EXPECT_TRUE(tessel::attention_auto_step(a, s));
    return s;
  };
  EXPECT_EQ(step(128, 8192, false), AttentionImpl::a09);
  EXPECT_EQ(step(128, 8192, true), AttentionImpl::a09);
  EXPECT_EQ(step(128, 1024, true), AttentionImpl::a10);
  EXPECT_EQ(step(128, 1024, false), AttentionImpl::a10);
  EXPECT_EQ(step(128, 2048, false), AttentionImpl::a10);
  EXPECT_EQ(step(128, 8448, false), AttentionImpl::a09);  // 48 blocks of 176 hold it exactly
  EXPECT_EQ(step(64, 8192, false), AttentionImpl::a10);
  EXPECT_EQ(step(64, 1024, true), AttentionImpl::a10);
  EXPECT_EQ(step(192, 8192, true), AttentionImpl::a10);
  EXPECT_EQ(step(192, 1024, false), AttentionImpl::a10);
  EXPECT_EQ(step(256, 8192, false), AttentionImpl::a08);
  EXPECT_EQ(step(128, 8192, false, true), AttentionImpl::a06);
  EXPECT_EQ(step(256, 8192, true, true), AttentionImpl::a03);
  EXPECT_EQ(step(96, 8192, false), AttentionImpl::a02);
  AttentionArgs bad = fake(128);  // a malformed call: the check's status, the step untouched
  bad.q = nullptr;
  AttentionImpl s = AttentionImpl::a05;
  const Status st = tessel::attention_auto_step(bad, s);
  EXPECT_EQ(st.code, Status::invalid_argument);
  EXPECT_NE(st.message.find("Q is null"), std::string::npos) << st.message;
  EXPECT_EQ(s, AttentionImpl::a05);
}

TEST(AttentionCheck, NamesAndScale) {
  for (AttentionImpl i : tessel::kAttentionImpls) EXPECT_EQ(tessel::parse_attention_impl(tessel::name(i)), i);
  EXPECT_FALSE(tessel::parse_attention_impl("a99").has_value());
  AttentionArgs a = fake(64);
  EXPECT_FLOAT_EQ(tessel::attention_scale(a), 0.125f);
  a.scale = 0.5f;
  EXPECT_FLOAT_EQ(tessel::attention_scale(a), 0.5f);
}

// ---------------------------------------------------------------- GPU

std::uint16_t to_bits(float x, DType t) {
  if (t == DType::f16) {
    const __half h = __float2half_rn(x);
    std::uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
  }
  std::uint32_t u;  // the inputs are exact in bf16: the top half
  std::memcpy(&u, &x, 4);
  return static_cast<std::uint16_t>(u >> 16);
}

float from_bits(std::uint16_t b, DType t) {
  if (t == DType::f16) {
    __half h;
    std::memcpy(&h, &b, 2);
    return __half2float(h);
  }
  const std::uint32_t u = std::uint32_t{b} << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

/// A problem on the GPU: (batch, heads, seq, dim) or (batch, seq, heads, dim)
/// tensors, or packed sequences of the given lengths (`lens_q`, `lens_kv`).
struct Case {
  DType dtype = DType::bf16;
  index_t batch = 1, heads_q = 1, heads_kv = 1, seq_q = 1, seq_kv = 1, d = 64;
  bool causal = false, seq_major = false;  // seq_major: (batch, seq, heads, dim)
  std::vector<int> lens_q, lens_kv;        // packed when not empty
  float scale = 0.0f;
  std::string name() const {
    return std::string(tessel::name(dtype)) + " b" + std::to_string(batch) + " h" + std::to_string(heads_q) + "/" +
           std::to_string(heads_kv) + " " + std::to_string(seq_q) + "x" + std::to_string(seq_kv) + " d" +
           std::to_string(d) + (causal ? " causal" : "") + (seq_major ? " bshd" : "") +
           (lens_q.empty() ? "" : " packed");
  }
};

struct Host {
  std::vector<std::uint16_t> q, k, v;
  std::vector<float> qf, kf, vf;  // the same values
};

/// Strides of a tensor of `heads` x `rows` per sequence.
tessel::AttentionStrides strides(const Case& c, index_t heads, index_t rows) {
  if (!c.lens_q.empty() || c.seq_major) return {rows * heads * c.d, c.d, heads * c.d};
  return {heads * rows * c.d, rows * c.d, c.d};
}

/// The fp64 reference of one query row: O (d values) and lse.
void reference_row(const Case& c, const Host& h, const AttentionArgs& a, index_t b, index_t head, index_t i, index_t lq,
                   index_t lk, index_t q_first, index_t kv_first, std::vector<double>& o, double& lse) {
  const index_t hk = head / (c.heads_q / c.heads_kv);
  const bool packed = !c.lens_q.empty();
  const auto at = [&](const tessel::AttentionStrides& s, index_t hh, index_t row) {
    return (packed ? 0 : b * s.batch) + hh * s.head + row * s.row;
  };
  const double scale = tessel::attention_scale(a);
  const index_t count = c.causal ? std::clamp<index_t>(i + (lk - lq) + 1, 0, lk) : lk;
  std::vector<double> s(count);
  double m = -INFINITY;
  for (index_t j = 0; j < count; ++j) {
    double dot = 0;
    for (index_t e = 0; e < c.d; ++e)
      dot += double{h.qf[at(a.q_stride, head, q_first + i) + e]} * h.kf[at(a.k_stride, hk, kv_first + j) + e];
    s[j] = scale * dot;
    m = std::max(m, s[j]);
  }
  double l = 0;
  for (double& x : s) l += (x = std::exp(x - m));
  o.assign(c.d, 0.0);
  for (index_t j = 0; j < count; ++j)
    for (index_t e = 0; e < c.d; ++e) o[e] += s[j] / l * h.vf[at(a.v_stride, hk, kv_first + j) + e];
  lse = count > 0 ? m + std::log(l) : -INFINITY;
}

/// What a run wrote: O's bits and the log-sum-exp.
struct Outputs {
  std::vector<std::uint16_t> o;
  std::vector<float> lse;
};

/// Runs `impl` on `c` with inputs from `fill` and compares every row with the
/// reference: |O - O_ref| <= the bound below (where O_ref is 0, <= `zero_tol`
/// when that is not negative), |lse - lse_ref| <= 1e-3 (1 + |lse|); O's rows
/// outside every sequence (packed) keep their poison.  With `keep`, the
/// outputs go there instead, unchecked (for problems whose fp64 reference
/// would take minutes).
template <class Fill>
void run_case(AttentionImpl impl, const Case& c, Fill fill, double zero_tol = -1, Outputs* keep = nullptr) {
  SCOPED_TRACE(std::string(tessel::name(impl)) + " " + c.name());
  const bool packed = !c.lens_q.empty();
  index_t rows_q = c.seq_q, rows_kv = c.seq_kv, batch_rows = c.batch;
  std::vector<int> cu_q{0}, cu_kv{0};
  if (packed) {
    for (int n : c.lens_q) cu_q.push_back(cu_q.back() + n);
    for (int n : c.lens_kv) cu_kv.push_back(cu_kv.back() + n);
    // Three query rows past the last sequence stay unwritten; five key rows past it hold NaN, which no
    // sequence may see (a masked key multiplies its V row by 0, and 0 x NaN is NaN).
    rows_q = cu_q.back() + 3, rows_kv = cu_kv.back() + 5;
    batch_rows = 1;
  }
  AttentionArgs a;
  a.dtype = c.dtype, a.batch = c.batch, a.heads_q = c.heads_q, a.heads_kv = c.heads_kv;
  a.seq_q = rows_q, a.seq_kv = rows_kv, a.head_dim = c.d, a.causal = c.causal, a.scale = c.scale;
  a.q_stride = a.o_stride = strides(c, c.heads_q, rows_q);
  a.k_stride = a.v_stride = strides(c, c.heads_kv, rows_kv);
  const std::size_t nq = batch_rows * c.heads_q * rows_q * c.d, nkv = batch_rows * c.heads_kv * rows_kv * c.d;
  const std::size_t nlse = batch_rows * c.heads_q * rows_q;
  Host h;
  h.qf.resize(nq), h.kf.resize(nkv), h.vf.resize(nkv);
  fill(h.qf, h.kf, h.vf);
  if (packed)
    for (index_t hk = 0; hk < c.heads_kv; ++hk)
      for (index_t r = cu_kv.back(); r < rows_kv; ++r)
        for (index_t e = 0; e < c.d; ++e)
          h.kf[hk * a.k_stride.head + r * a.k_stride.row + e] = NAN,
                                                           h.vf[hk * a.v_stride.head + r * a.v_stride.row + e] = NAN;
  for (auto [f, bits] : {std::pair{&h.qf, &h.q}, {&h.kf, &h.k}, {&h.vf, &h.v}}) {
    bits->resize(f->size());
    for (std::size_t i = 0; i < f->size(); ++i) (*bits)[i] = to_bits((*f)[i], c.dtype);
  }
  tessel::testing::DeviceArray<std::uint16_t> dq(nq), dk(nkv), dv(nkv), dout(nq);
  tessel::testing::DeviceArray<float> dlse(nlse);
  tessel::testing::DeviceArray<int> dcu(cu_q.size() + cu_kv.size());
  ASSERT_TRUE(dq.ptr && dk.ptr && dv.ptr && dout.ptr && dlse.ptr && dcu.ptr);
  CUDA_CHECK(dq.upload(h.q));
  CUDA_CHECK(dk.upload(h.k));
  CUDA_CHECK(dv.upload(h.v));
  CUDA_CHECK(dout.fill_bytes(0xff));  // NaN in both types: unwritten rows show
  CUDA_CHECK(dlse.fill_bytes(0xff));
  std::vector<int> cu = cu_q;
  cu.insert(cu.end(), cu_kv.begin(), cu_kv.end());
  CUDA_CHECK(dcu.upload(cu));
  a.q = dq.ptr, a.k = dk.ptr, a.v = dv.ptr, a.o = dout.ptr, a.lse = dlse.ptr;
  if (packed) {
    a.cu_seqlens_q = dcu.ptr, a.cu_seqlens_kv = dcu.ptr + cu_q.size();
    a.max_seq_q = *std::max_element(c.lens_q.begin(), c.lens_q.end());
    a.max_seq_kv = *std::max_element(c.lens_kv.begin(), c.lens_kv.end());
  }
  const Status st = tessel::attention(impl, a);
  if (!st && impl == AttentionImpl::a01 && st.message.find("TESSEL_GEMM_INSTANCES=one") != std::string::npos) {
    std::cout << "a01 skipped: this build's GEMMs hold one layout (" << st.message << ")\n";
    return;  // a01's S = Q K^T needs B:k, outside a one-instance build
  }
  ASSERT_TRUE(st) << st.message;
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> out;
  std::vector<float> lse;
  CUDA_CHECK(dout.download(out));
  CUDA_CHECK(dlse.download(lse));
  if (keep != nullptr) {
    keep->o = std::move(out), keep->lse = std::move(lse);
    return;
  }

  // The bound (docs/attention.md): P rounded to the input type (u = 2^-8 for
  // bf16, 2^-11 for f16) and O rounded again, each at most u max|V|; a
  // score's fp32 sum off by at most d 2^-24 scale d max|q| max|k|, which
  // moves p and the row's sum by that much relative each; O's fp32 sum over
  // the keys, keys 2^-24; exp's approximation, 1e-5.
  const double u = c.dtype == DType::bf16 ? 0x1p-8 : 0x1p-11;
  const auto largest = [](const std::vector<float>& x) {
    double m = 0;
    for (float e : x) m = std::max(m, double{std::fabs(e)});
    return m;
  };
  const double vmax = largest(h.vf), d = static_cast<double>(c.d);  // NaN compares false: skipped
  const double s_err = d * 0x1p-24 * tessel::attention_scale(a) * d * largest(h.qf) * largest(h.kf);
  const double bound = (2 * u + 2 * s_err + 0x1p-24 * static_cast<double>(rows_kv) + 1e-5) * vmax;
  std::vector<double> ref;
  double ref_lse = 0, worst = 0;
  int bad = 0;
  for (index_t b = 0; b < c.batch; ++b) {
    const index_t lq = packed ? c.lens_q[b] : c.seq_q, lk = packed ? c.lens_kv[b] : c.seq_kv;
    const index_t qf = packed ? cu_q[b] : 0, kf = packed ? cu_kv[b] : 0;
    for (index_t head = 0; head < c.heads_q; ++head)
      for (index_t i = 0; i < lq; ++i) {
        reference_row(c, h, a, b, head, i, lq, lk, qf, kf, ref, ref_lse);
        const index_t row = (packed ? 0 : b * a.o_stride.batch) + head * a.o_stride.head + (qf + i) * a.o_stride.row;
        for (index_t e = 0; e < c.d; ++e) {
          const double err = std::fabs(from_bits(out[row + e], c.dtype) - ref[e]);
          worst = std::max(worst, std::isnan(err) ? INFINITY : err);
          const double tol = ref[e] == 0.0 && zero_tol >= 0 ? zero_tol : bound;
          if (!(err <= tol) && bad++ < 5)
            ADD_FAILURE() << "O(b " << b << ", h " << head << ", i " << i << ", e " << e
                          << ") = " << from_bits(out[row + e], c.dtype) << ", reference " << ref[e] << ", bound "
                          << tol;
        }
        const index_t li = packed ? head * rows_q + qf + i : (b * c.heads_q + head) * rows_q + i;
        const bool lse_ok =
            std::isinf(ref_lse) ? lse[li] == ref_lse : std::fabs(lse[li] - ref_lse) <= 1e-3 * (1 + std::fabs(ref_lse));
        if (!lse_ok && bad++ < 5)
          ADD_FAILURE() << "lse(b " << b << ", h " << head << ", i " << i << ") = " << lse[li] << ", reference "
                        << ref_lse;
      }
  }
  EXPECT_EQ(bad, 0) << "worst error " << worst << " against a bound of " << bound;
  if (packed)  // the rows past the last sequence: still poison
    for (index_t head = 0; head < c.heads_q; ++head)
      for (index_t r = cu_q.back(); r < rows_q; ++r)
        EXPECT_TRUE(std::isnan(from_bits(out[head * a.o_stride.head + r * a.o_stride.row], c.dtype)))
            << "row " << r << " of head " << head << " was written";
}

/// Uniform values on a grid of 1/8 (exact in bf16 and f16); Q scaled up so
/// that the softmax is peaked and a misplaced key shows.
auto random_fill(unsigned seed) {
  return [seed](std::vector<float>& q, std::vector<float>& k, std::vector<float>& v) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> pick(-8, 8);
    for (float& x : q) x = pick(rng) / 4.0f;
    for (float& x : k) x = pick(rng) / 8.0f;
    for (float& x : v) x = pick(rng) / 8.0f;
  };
}

std::vector<AttentionImpl> steps() {
  return {AttentionImpl::a01, AttentionImpl::a02, AttentionImpl::a03, AttentionImpl::a04, AttentionImpl::a05,
          AttentionImpl::a06, AttentionImpl::a07, AttentionImpl::a08, AttentionImpl::a09, AttentionImpl::a10};
}

/// Does `impl` take head dim d?  (a03-a10: multiples of 64; a10 not 256.)
bool takes(AttentionImpl impl, index_t d) {
  if (impl == AttentionImpl::a10 && d == 256) return false;
  return impl == AttentionImpl::a01 || impl == AttentionImpl::a02 || d % 64 == 0;
}

TEST(AttentionGpu, HeadDimsAndEdges) {
  REQUIRE_GPU();
  for (AttentionImpl impl : steps())
    for (index_t d : {64, 96, 128, 192, 256})
      for (auto [sq, skv] : {std::pair<index_t, index_t>{1, 1}, {63, 65}, {130, 200}, {300, 129}}) {
        if (!takes(impl, d)) continue;
        Case c;
        c.d = d, c.seq_q = sq, c.seq_kv = skv, c.heads_q = 2, c.heads_kv = 1;
        run_case(impl, c, random_fill(static_cast<unsigned>(d + sq)));
        c.causal = true;
        run_case(impl, c, random_fill(static_cast<unsigned>(d + skv)));
      }
}

TEST(AttentionGpu, GroupsLayoutsTypesAndLengths) {
  REQUIRE_GPU();
  for (AttentionImpl impl : steps())
    for (DType t : {DType::bf16, DType::f16})
      for (bool causal : {false, true}) {
        Case c;  // GQA 4:1 in FlashAttention's layout, Q shorter than K/V
        c.dtype = t, c.batch = 2, c.heads_q = 8, c.heads_kv = 2, c.seq_q = 77, c.seq_kv = 333, c.d = 128;
        c.causal = causal, c.seq_major = true, c.scale = 0.2f;
        run_case(impl, c, random_fill(7));
        c = Case{};  // MQA, Q longer than K/V: causal rows with no key
        c.dtype = t, c.heads_q = 3, c.heads_kv = 1, c.seq_q = 150, c.seq_kv = 70, c.d = 64, c.causal = causal;
        run_case(impl, c, random_fill(8));
        c = Case{};  // several key blocks of a03 (128 a block at d 128, 64 at 256) with a ragged last one
        c.dtype = t, c.batch = 2, c.heads_q = 2, c.heads_kv = 2, c.seq_q = 200, c.seq_kv = 777, c.causal = causal;
        c.d = 256;
        if (takes(impl, c.d)) run_case(impl, c, random_fill(11));
      }
}

TEST(AttentionGpu, PackedSequences) {
  REQUIRE_GPU();
  for (bool causal : {false, true}) {
    Case c;
    c.batch = 4, c.heads_q = 4, c.heads_kv = 2, c.d = 128, c.causal = causal;
    c.lens_q = {1, 200, 64, 0}, c.lens_kv = {5, 130, 64, 17};
    run_case(AttentionImpl::a02, c, random_fill(9));
    run_case(AttentionImpl::a03, c, random_fill(9));
    run_case(AttentionImpl::a04, c, random_fill(9));
    run_case(AttentionImpl::a05, c, random_fill(9));
    run_case(AttentionImpl::a06, c, random_fill(9));
    run_case(AttentionImpl::a07, c, random_fill(9));
    run_case(AttentionImpl::a08, c, random_fill(9));
    run_case(AttentionImpl::a09, c, random_fill(9));
    run_case(AttentionImpl::a10, c, random_fill(9));
    run_case(AttentionImpl::automatic, c, random_fill(10));
  }
}

/// a07's-a10's persistent CTAs over more tiles than SMs: several rounds a CTA, the
/// snake's partial last round, tiles with no key (causal, Q longer than K/V)
/// and rows past a packed sequence, at each head dim.
TEST(AttentionGpu, PersistentRounds) {
  REQUIRE_GPU();
  for (index_t d : {64, 128, 192, 256})
    for (bool causal : {false, true}) {
      Case c;  // 2 x 16 heads x 5 row blocks: 160 tiles
      c.batch = 2, c.heads_q = 16, c.heads_kv = 4, c.seq_q = 520, c.seq_kv = 200, c.d = d, c.causal = causal;
      run_case(AttentionImpl::a07, c, random_fill(static_cast<unsigned>(d + 1)));
      run_case(AttentionImpl::a08, c, random_fill(static_cast<unsigned>(d + 1)));
      run_case(AttentionImpl::a09, c, random_fill(static_cast<unsigned>(d + 1)));
      if (takes(AttentionImpl::a10, d)) run_case(AttentionImpl::a10, c, random_fill(static_cast<unsigned>(d + 1)));
      c = Case{};  // packed: 9 sequences of 0-520 rows, 4 heads, 5 row blocks: 180 places
      c.batch = 9, c.heads_q = 4, c.heads_kv = 2, c.d = d, c.causal = causal;
      c.lens_q = {520, 1, 0, 300, 129, 450, 64, 5, 400}, c.lens_kv = {500, 9, 40, 300, 200, 450, 1, 0, 380};
      run_case(AttentionImpl::a07, c, random_fill(static_cast<unsigned>(d + 2)));
      run_case(AttentionImpl::a08, c, random_fill(static_cast<unsigned>(d + 2)));
      run_case(AttentionImpl::a09, c, random_fill(static_cast<unsigned>(d + 2)));
      if (takes(AttentionImpl::a10, d)) run_case(AttentionImpl::a10, c, random_fill(static_cast<unsigned>(d + 2)));
    }
}

/// a07, a08 and a10 against a06, bit for bit, where a CTA runs many rounds: the
/// persistent steps run a06's arithmetic on each tile (a05's turns), in
/// another order over the SMs, so O and lse must not differ in a bit.  1k
/// at batch 16 (16 rounds on 132 SMs, tiles with keys after tiles with keys,
/// the rings wrapping across tiles at every head dim), and a packed batch
/// whose first places have no key (sequences of K/V length 0 under Q rows).
TEST(AttentionGpu, PersistentStepsMatchA06BitForBit) {
  REQUIRE_GPU();
  for (index_t d : {64, 128, 256})
    for (bool causal : {false, true})
      for (bool packed : {false, true}) {
        Case c;
        c.d = d, c.causal = causal;
        if (packed) {
          c.batch = 6, c.heads_q = 8, c.heads_kv = 2;
          c.lens_q = {1000, 700, 64, 1024, 300, 900}, c.lens_kv = {0, 700, 0, 1024, 17, 0};
        } else {
          c.batch = 16, c.heads_q = 8, c.heads_kv = 4, c.seq_q = c.seq_kv = 1024;
        }
        const auto fill = random_fill(static_cast<unsigned>(d + 7 * causal + 3 * packed));
        Outputs base, other;
        run_case(AttentionImpl::a06, c, fill, -1, &base);
        for (AttentionImpl impl : {AttentionImpl::a07, AttentionImpl::a08, AttentionImpl::a10}) {
          if (!takes(impl, d)) continue;
          run_case(impl, c, fill, -1, &other);
          SCOPED_TRACE(std::string(tessel::name(impl)) + " " + c.name());
          ASSERT_EQ(base.o.size(), other.o.size());
          std::size_t o_diff = 0, lse_diff = 0;
          for (std::size_t i = 0; i < base.o.size(); ++i) o_diff += base.o[i] != other.o[i];
          for (std::size_t i = 0; i < base.lse.size(); ++i)
            lse_diff += std::memcmp(&base.lse[i], &other.lse[i], sizeof(float)) != 0;
          EXPECT_EQ(o_diff, 0u) << "elements of O differ from a06's";
          EXPECT_EQ(lse_diff, 0u) << "log-sum-exps differ from a06's";
        }
      }
}

/// Q = 0 and V = the identity: row i's output is 1/n at each of the n keys it
/// attends to and exactly 0 past them, lse = log n.  A mask off by one key
/// moves a 1/n.
TEST(AttentionGpu, MaskEdgesExactly) {
  REQUIRE_GPU();
  for (AttentionImpl impl : steps())
    for (auto [sq, skv] : {std::pair<index_t, index_t>{128, 128}, {40, 128}, {128, 70}, {1, 128}}) {
      Case c;
      c.d = 128, c.seq_q = sq, c.seq_kv = skv, c.causal = true;
      run_case(
          impl, c,
          [&](std::vector<float>& q, std::vector<float>& k, std::vector<float>& v) {
            std::fill(q.begin(), q.end(), 0.0f);
            std::mt19937 rng(3);
            for (float& x : k) x = static_cast<float>(rng() % 9) / 8.0f;
            std::fill(v.begin(), v.end(), 0.0f);
            for (index_t j = 0; j < skv; ++j) v[j * c.d + j] = 1.0f;
          },
          0.0);
    }
}

TEST(AttentionGpu, RefusedCallWritesNothing) {
  REQUIRE_GPU();
  constexpr int kTensor = 64 * 128;
  tessel::testing::DeviceArray<std::uint16_t> buf(4 * kTensor);
  ASSERT_TRUE(buf.ptr);
  CUDA_CHECK(buf.fill_bytes(0x5a));
  AttentionArgs a;
  a.seq_q = a.seq_kv = 64, a.head_dim = 80;  // unsupported head dim
  a.q = buf.ptr, a.k = buf.ptr + kTensor, a.v = buf.ptr + 2 * kTensor, a.o = buf.ptr + 3 * kTensor;
  a.q_stride = a.k_stride = a.v_stride = a.o_stride = {0, 0, 128};
  EXPECT_EQ(tessel::attention(a).code, Status::unsupported);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> back;
  CUDA_CHECK(buf.download(back));
  EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](std::uint16_t x) { return x == 0x5a5a; }));
}

}  // namespace
