// `tessel bench gemm`: the GEMM ladder's steps against cuBLASLt, measured in
// the same run on the same inputs (docs/bench-protocol.md):
//
//   per problem  fill A, B (and C) with random data; compute an fp64
//                reference on the device; run cuBLASLt and every step once on
//                a poisoned D and verify it (tier 1: bit-exact on small
//                integers; tier 2: error bound on uniform [-1,1] data);
//   per repeat   time cuBLASLt, then every step that passed: warm-up, then at
//                least --iterations launches and 200 ms, L2 flushed before
//                every timed launch, CUDA events, median / min / p90.
//
// Argument parsing and the CSV/JSON writers are host code in
// bench_gemm_args.cpp (unit-tested without a GPU); this file is the part that
// needs one.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench.hpp"
#include "tessel/host/gemm.hpp"

#ifndef TESSEL_GIT_COMMIT
#define TESSEL_GIT_COMMIT "unknown"
#endif

namespace tessel::bench {
namespace {

using bf16 = __nv_bfloat16;
using f16 = __half;

// ================================================================== errors

/// A failed CUDA or cuBLAS call; the message names the call.  Caught per
/// problem: the problem's remaining rows become `error` rows, and the run
/// goes on unless the CUDA context is broken (a sticky error).
struct BenchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check_cuda(cudaError_t e, const char* call) {
  if (e != cudaSuccess)
    throw BenchError(std::string(call) + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
void check_cublas(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) throw BenchError(std::string(call) + " failed: " + cublasLtGetStatusString(s));
}
#define CUDA_CHECK(expr) check_cuda((expr), #expr)
#define CUBLAS_CHECK(expr) check_cublas((expr), #expr)

/// Device memory, freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, const char* what) {
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&p_, bytes);
    if (e != cudaSuccess) {
      p_ = nullptr;
      cudaGetLastError();  // out of memory is not sticky: clear it
      throw BenchError(std::string("cudaMalloc(") + what + ", " + std::to_string(bytes >> 20) +
                       " MiB) failed: " + cudaGetErrorString(e));
    }
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  void* get() const { return p_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

// ================================================================== element types

__host__ __device__ inline double to_double(bf16 x) { return static_cast<double>(__bfloat162float(x)); }
__host__ __device__ inline double to_double(f16 x) { return static_cast<double>(__half2float(x)); }
__host__ __device__ inline double to_double(float x) { return static_cast<double>(x); }

/// Round to nearest even (the conversions are host and device functions).
template <class T>
__host__ __device__ T round_float(float x) {
  if constexpr (std::is_same_v<T, bf16>)
    return __float2bfloat16_rn(x);
  else if constexpr (std::is_same_v<T, f16>)
    return __float2half_rn(x);
  else
    return x;
}

__device__ inline std::uint32_t bits_of(bf16 x) { return __bfloat16_as_ushort(x); }
__device__ inline std::uint32_t bits_of(f16 x) { return __half_as_ushort(x); }
__device__ inline std::uint32_t bits_of(float x) { return __float_as_uint(x); }
template <class T>
constexpr std::uint32_t kSignBit = sizeof(T) == 2 ? 0x8000u : 0x80000000u;

/// Unit roundoff of the output type (docs/bench-protocol.md §1, tier 2).
double unit_roundoff(DType t) {
  switch (t) {
    case DType::bf16:
      return std::ldexp(1.0, -8);
    case DType::f16:
      return std::ldexp(1.0, -11);
    case DType::f32:
      return std::ldexp(1.0, -24);
  }
  return 1.0;
}

cudaDataType_t to_cuda_type(DType t) {
  switch (t) {
    case DType::bf16:
      return CUDA_R_16BF;
    case DType::f16:
      return CUDA_R_16F;
    case DType::f32:
      return CUDA_R_32F;
  }
  return CUDA_R_32F;
}

/// Bytes of one element, for buffer sizes.
std::size_t elem_bytes(DType t) { return static_cast<std::size_t>(size_bytes(t)); }

/// Calls f with a value of the storage type of `t` (a type tag).
template <class F>
void with_type(DType t, F&& f) {
  switch (t) {
    case DType::bf16:
      f(bf16{});
      break;
    case DType::f16:
      f(f16{});
      break;
    case DType::f32:
      f(float{});
      break;
  }
}

// ================================================================== device kernels

constexpr int kThreads = 256;

__device__ inline std::uint32_t hash32(std::uint64_t x) {  // splitmix64's finalizer
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<std::uint32_t>(x >> 32);
}

/// Tier 1: integers in [-4, 4]; otherwise uniform in [-1, 1) rounded to T.
template <class T>
__global__ void fill_random(T* p, std::size_t n, std::uint64_t seed, bool small_integers) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t h = hash32(seed * 0x100000001B3ull ^ i);
    const float v = small_integers ? static_cast<float>(static_cast<int>(h % 9u) - 4)
                                   : static_cast<float>(h >> 8) * 0x1p-23f - 1.0f;
    p[i] = round_float<T>(v);
  }
}

/// The fp64 reference: ref = alpha * A*B + beta * C and the tier-2 bound
///   2 u |ref| + 2 K 2^-24 |alpha| (|A||B|)_ij + 2 u |beta C_ij|
/// per element, both accumulated in double.  A plain shared-memory tiled
/// kernel: 64x64 outputs per block, 16 of K per step, 4x4 per thread.  A and B
/// are read through the layout's strides, with the tile loads mapped so that
/// consecutive threads read consecutive addresses in every layout.
constexpr int kRefTile = 64, kRefK = 16;

template <class TIn, class TOut>
struct RefParams {
  std::int64_t m, n, k;
  const TIn* a;
  std::int64_t lda;
  bool a_k;
  const TIn* b;
  std::int64_t ldb;
  bool b_n;
  const TOut* c;  // null when beta == 0
  std::int64_t ldc;
  double alpha, beta, u_out;
  double* ref;    // m x n, row-major, ld n
  double* bound;  // m x n, row-major, ld n
};

template <class TIn, class TOut>
__global__ void __launch_bounds__(kThreads) reference_gemm(RefParams<TIn, TOut> p) {
  __shared__ double As[kRefK][kRefTile];  // As[l][i] = A(i0 + i, l0 + l)
  __shared__ double Bs[kRefK][kRefTile];  // Bs[l][j] = B(l0 + l, j0 + j)
  const int t = static_cast<int>(threadIdx.x), tx = t % 16, ty = t / 16;
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * kRefTile;
  const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.x) * kRefTile;
  double acc[4][4] = {}, mag[4][4] = {};
  for (std::int64_t l0 = 0; l0 < p.k; l0 += kRefK) {
    for (int e = t; e < kRefTile * kRefK; e += kThreads) {
      int ii = p.a_k ? e / kRefK : e % kRefTile, ll = p.a_k ? e % kRefK : e / kRefTile;
      std::int64_t gi = i0 + ii, gl = l0 + ll;
      As[ll][ii] = gi < p.m && gl < p.k ? to_double(p.a[p.a_k ? gi * p.lda + gl : gi + gl * p.lda]) : 0.0;
      const int jj = p.b_n ? e % kRefTile : e / kRefK;
      ll = p.b_n ? e / kRefTile : e % kRefK;
      const std::int64_t gj = j0 + jj;
      gl = l0 + ll;
      Bs[ll][jj] = gl < p.k && gj < p.n ? to_double(p.b[p.b_n ? gl * p.ldb + gj : gl + gj * p.ldb]) : 0.0;
    }
    __syncthreads();
#pragma unroll 4
    for (int l = 0; l < kRefK; ++l) {
      double av[4], bv[4];
#pragma unroll
      for (int r = 0; r < 4; ++r) av[r] = As[l][ty + 16 * r];
#pragma unroll
      for (int c = 0; c < 4; ++c) bv[c] = Bs[l][tx + 16 * c];
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          acc[r][c] = fma(av[r], bv[c], acc[r][c]);
          mag[r][c] = fma(fabs(av[r]), fabs(bv[c]), mag[r][c]);
        }
    }
    __syncthreads();
  }
  const double k_term = 2.0 * static_cast<double>(p.k) * 0x1p-24 * fabs(p.alpha);
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const std::int64_t i = i0 + ty + 16 * r, j = j0 + tx + 16 * c;
      if (i >= p.m || j >= p.n) continue;
      const double cv = p.c != nullptr ? to_double(p.c[i * p.ldc + j]) : 0.0;
      const double ref = p.alpha * acc[r][c] + p.beta * cv;
      p.ref[i * p.n + j] = ref;
      p.bound[i * p.n + j] = 2.0 * p.u_out * fabs(ref) + k_term * mag[r][c] + 2.0 * p.u_out * fabs(p.beta * cv);
    }
}

/// What the comparison kernel reports.
struct VerifyStats {
  unsigned long long mismatches;
  unsigned long long first_bad;     // smallest linear index that failed (ULLONG_MAX: none)
  unsigned long long max_err_bits;  // bit pattern of the largest error (a non-negative double)
  unsigned long long nonzero_ref;   // tier 1: elements whose rounded reference is not zero
};

/// Compares D with the reference.  Tier 1 (exact): D must equal the
/// reference rounded to the output type bit for bit (+0 and -0 are the same
/// value); the error is |D - round(ref)|.  Tier 2: the error is
/// |D - ref| / bound and must be at most 1.  NaN (the poison) always fails.
template <class TOut>
__global__ void __launch_bounds__(kThreads) compare_output(const TOut* d, const double* ref, const double* bound,
                                                           std::size_t count, bool exact, VerifyStats* stats) {
  unsigned long long bad = 0, first = ULLONG_MAX, nonzero = 0;
  double max_err = 0.0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const TOut got = d[i];
    const double g = to_double(got);
    double err;
    bool ok;
    if (exact) {
      // The reference is an integer below 2^24 (tier1_problem_error), so the
      // float conversion is exact and round_float is the one rounding.
      const TOut want = round_float<TOut>(static_cast<float>(ref[i]));
      const std::uint32_t gb = bits_of(got), wb = bits_of(want);
      ok = gb == wb || ((gb | wb) & ~kSignBit<TOut>) == 0;
      err = fabs(g - to_double(want));
      nonzero += to_double(want) != 0.0;
    } else {
      const double diff = fabs(g - ref[i]), b = bound[i];
      err = diff == 0.0 ? 0.0 : b > 0.0 ? diff / b : INFINITY;
      ok = err <= 1.0;
    }
    if (isnan(err)) err = INFINITY, ok = false;  // NaN in D
    if (!ok) {
      ++bad;
      first = min(first, static_cast<unsigned long long>(i));
    }
    max_err = fmax(max_err, err);
  }
  for (int off = 16; off > 0; off /= 2) {
    bad += __shfl_xor_sync(0xFFFFFFFFu, bad, off);
    nonzero += __shfl_xor_sync(0xFFFFFFFFu, nonzero, off);
    first = min(first, __shfl_xor_sync(0xFFFFFFFFu, first, off));
    max_err = fmax(max_err, __shfl_xor_sync(0xFFFFFFFFu, max_err, off));
  }
  if (threadIdx.x % 32 == 0) {
    if (bad) atomicAdd(&stats->mismatches, bad);
    if (nonzero) atomicAdd(&stats->nonzero_ref, nonzero);
    if (first != ULLONG_MAX) atomicMin(&stats->first_bad, first);
    // Non-negative doubles order like their bit patterns.
    if (max_err > 0.0) atomicMax(&stats->max_err_bits, static_cast<unsigned long long>(__double_as_longlong(max_err)));
  }
}

// ================================================================== the problem on the device

/// Everything one problem needs on the device.
struct ProblemData {
  const GemmProblem& p;
  DeviceBuffer a, b, c, d_tessel, d_cublas, ref, bound, stats;
  std::size_t a_elems, b_elems, d_elems;

  ProblemData(const GemmProblem& prob, bool with_reference)
      : p(prob),
        a_elems(static_cast<std::size_t>(prob.m) * static_cast<std::size_t>(prob.k)),
        b_elems(static_cast<std::size_t>(prob.k) * static_cast<std::size_t>(prob.n)),
        d_elems(static_cast<std::size_t>(prob.m) * static_cast<std::size_t>(prob.n)) {
    a = DeviceBuffer(a_elems * elem_bytes(p.in), "A");
    b = DeviceBuffer(b_elems * elem_bytes(p.in), "B");
    if (p.beta != 0.0) c = DeviceBuffer(d_elems * elem_bytes(p.out), "C");  // C is read only when beta != 0
    d_tessel = DeviceBuffer(d_elems * elem_bytes(p.out), "D (tessel)");
    d_cublas = DeviceBuffer(d_elems * elem_bytes(p.out), "D (cuBLAS)");
    if (with_reference) {
      ref = DeviceBuffer(d_elems * sizeof(double), "reference");
      bound = DeviceBuffer(d_elems * sizeof(double), "bound");
      stats = DeviceBuffer(sizeof(VerifyStats), "verification counters");
    }
  }
  bool a_k() const { return p.layout.a == MajorA::k; }
  bool b_n() const { return p.layout.b == MajorB::n; }
  std::int64_t lda() const { return a_k() ? p.k : p.m; }
  std::int64_t ldb() const { return b_n() ? p.n : p.k; }
  std::int64_t ldd() const { return p.n; }
};

int grid_for(int sm_count) { return 4 * sm_count; }

void fill_inputs(ProblemData& d, bool small_integers, int sms, cudaStream_t s) {
  auto fill = [&](const DeviceBuffer& buf, DType t, std::size_t n, std::uint64_t seed) {
    with_type(t, [&](auto tag) {
      using T = decltype(tag);
      fill_random<T><<<grid_for(sms), kThreads, 0, s>>>(buf.as<T>(), n, seed, small_integers);
    });
    CUDA_CHECK(cudaGetLastError());
  };
  fill(d.a, d.p.in, d.a_elems, 1);
  fill(d.b, d.p.in, d.b_elems, 2);
  if (d.c.get()) fill(d.c, d.p.out, d.d_elems, 3);
}

void launch_reference(ProblemData& d, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>((d.p.n + kRefTile - 1) / kRefTile),
                  static_cast<unsigned>((d.p.m + kRefTile - 1) / kRefTile));
  if (grid.y > 65535) throw BenchError("reference GEMM: M = " + std::to_string(d.p.m) + " is too large for its grid");
  with_type(d.p.in, [&](auto in_tag) {
    with_type(d.p.out, [&](auto out_tag) {
      using TIn = decltype(in_tag);
      using TOut = decltype(out_tag);
      if constexpr (!std::is_same_v<TIn, float>) {  // inputs are never fp32 (parse_gemm_bench_args)
        RefParams<TIn, TOut> rp{};
        rp.m = d.p.m;
        rp.n = d.p.n;
        rp.k = d.p.k;
        rp.a = d.a.as<TIn>();
        rp.lda = d.lda();
        rp.a_k = d.a_k();
        rp.b = d.b.as<TIn>();
        rp.ldb = d.ldb();
        rp.b_n = d.b_n();
        rp.c = d.c.as<TOut>();  // null when beta == 0
        rp.ldc = d.ldd();
        rp.alpha = d.p.alpha;
        rp.beta = d.p.beta;
        rp.u_out = unit_roundoff(d.p.out);
        rp.ref = d.ref.as<double>();
        rp.bound = d.bound.as<double>();
        reference_gemm<TIn, TOut><<<grid, kThreads, 0, s>>>(rp);
      }
    });
  });
  CUDA_CHECK(cudaGetLastError());
}

struct Verdict {
  bool passed = false;
  double max_err = 0;
  std::string note;  // why it failed (empty when passed)
};

/// Verifies `out` (the D just written) against the reference.
Verdict verify_output(ProblemData& d, const DeviceBuffer& out, VerifyTier tier, int sms, cudaStream_t s) {
  VerifyStats init{0, ULLONG_MAX, 0, 0};
  CUDA_CHECK(cudaMemcpyAsync(d.stats.get(), &init, sizeof init, cudaMemcpyHostToDevice, s));
  const bool exact = tier == VerifyTier::tier1;
  with_type(d.p.out, [&](auto tag) {
    using T = decltype(tag);
    compare_output<T><<<grid_for(sms), kThreads, 0, s>>>(out.as<T>(), d.ref.as<double>(), d.bound.as<double>(),
                                                         d.d_elems, exact, d.stats.as<VerifyStats>());
  });
  CUDA_CHECK(cudaGetLastError());
  VerifyStats st{};
  CUDA_CHECK(cudaMemcpyAsync(&st, d.stats.get(), sizeof st, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  Verdict v;
  std::memcpy(&v.max_err, &st.max_err_bits, sizeof v.max_err);
  v.passed = st.mismatches == 0;
  if (exact && st.nonzero_ref == 0) {
    v.passed = false;
    v.note = "the rounded reference is all zero (degenerate inputs: tier 1 proves nothing)";
    return v;
  }
  if (!v.passed) {
    // Read back the first failing element for the message.
    const std::size_t idx = static_cast<std::size_t>(st.first_bad);
    double got = 0, ref = 0, bound = 0, want = 0;
    CUDA_CHECK(cudaMemcpy(&ref, d.ref.as<double>() + idx, sizeof ref, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bound, d.bound.as<double>() + idx, sizeof bound, cudaMemcpyDeviceToHost));
    with_type(d.p.out, [&](auto tag) {
      using T = decltype(tag);
      T x{};
      CUDA_CHECK(cudaMemcpy(&x, out.as<T>() + idx, sizeof x, cudaMemcpyDeviceToHost));
      got = to_double(x);
      want = to_double(round_float<T>(static_cast<float>(ref)));
    });
    char buf[320];
    const long long row = static_cast<long long>(idx / static_cast<std::size_t>(d.p.n));
    const long long col = static_cast<long long>(idx % static_cast<std::size_t>(d.p.n));
    if (exact)
      std::snprintf(buf, sizeof buf, "%llu of %zu elements differ; first at (%lld, %lld): got %.9g, want %.9g (exact)",
                    st.mismatches, d.d_elems, row, col, got, want);
    else
      std::snprintf(buf, sizeof buf,
                    "%llu of %zu elements out of bound; first at (%lld, %lld): got %.9g, reference %.17g, bound %.3g",
                    st.mismatches, d.d_elems, row, col, got, ref, bound);
    v.note = buf;
  }
  return v;
}

/// The problem's buffers as tessel::gemm's arguments.
GemmArgs tessel_args(const ProblemData& d) {
  GemmArgs g;
  g.m = d.p.m;
  g.n = d.p.n;
  g.k = d.p.k;
  g.ab_type = d.p.in;
  g.cd_type = d.p.out;
  g.layout = d.p.layout;
  g.a = d.a.get();
  g.lda = d.lda();
  g.b = d.b.get();
  g.ldb = d.ldb();
  g.c = d.c.get();  // null when beta == 0
  g.ldc = d.ldd();
  g.d = d.d_tessel.get();
  g.ldd = d.ldd();
  g.alpha = static_cast<float>(d.p.alpha);
  g.beta = static_cast<float>(d.p.beta);
  return g;
}

// ================================================================== cuBLASLt

/// cuBLASLt on the same buffers.  cuBLAS is column-major; tessel's D is
/// row-major, and a row-major M x N matrix with ld N is the column-major
/// N x M matrix D^T with the same ld.  So cuBLAS computes
///     D^T (N x M) = alpha * B^T (N x K) * A^T (K x M) + beta * C^T
/// i.e. cuBLAS's "A" is tessel's B and cuBLAS's "B" is tessel's A:
///   B:n  b[l*N + j]  read column-major is N x K (ld N)   = B^T -> op N
///   B:k  b[l + j*K]  read column-major is K x N (ld K)   = B   -> op T
///   A:k  a[i*K + l]  read column-major is K x M (ld K)   = A^T -> op N
///   A:m  a[i + l*M]  read column-major is M x K (ld M)   = A   -> op T
/// A cuBLASLt matrix layout describes the stored matrix (rows x cols before
/// the op), hence the (rows, cols) pairs below.
class CublasGemm {
 public:
  CublasGemm(cublasLtHandle_t lt, ProblemData& d, void* workspace, std::size_t workspace_bytes)
      : lt_(lt), d_(d), workspace_(workspace), workspace_bytes_(workspace_bytes) {
    const GemmProblem& p = d.p;
    alpha_ = static_cast<float>(p.alpha);
    beta_ = static_cast<float>(p.beta);
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const bool a_k = d.a_k(), b_n = d.b_n();
    const cublasOperation_t op_a = b_n ? CUBLAS_OP_N : CUBLAS_OP_T;  // cuBLAS's A is tessel's B
    const cublasOperation_t op_b = a_k ? CUBLAS_OP_N : CUBLAS_OP_T;  // cuBLAS's B is tessel's A
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la_, to_cuda_type(p.in), u(b_n ? p.n : p.k), u(b_n ? p.k : p.n), d.ldb()));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb_, to_cuda_type(p.in), u(a_k ? p.k : p.m), u(a_k ? p.m : p.k), d.lda()));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc_, to_cuda_type(p.out), u(p.n), u(p.m), d.ldd()));
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref_));
    const std::uint64_t ws = workspace_bytes;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    int found = 0;
    const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt_, op_, la_, lb_, lc_, lc_, pref_, 1, &heur_, &found);
    if (s != CUBLAS_STATUS_SUCCESS || found == 0 || heur_.state != CUBLAS_STATUS_SUCCESS)
      reason_ = std::string("cublasLtMatmulAlgoGetHeuristic found no algorithm (") +
                cublasLtGetStatusString(s != CUBLAS_STATUS_SUCCESS ? s : heur_.state) + ")";
  }
  ~CublasGemm() {
    if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
    if (lc_) cublasLtMatrixLayoutDestroy(lc_);
    if (lb_) cublasLtMatrixLayoutDestroy(lb_);
    if (la_) cublasLtMatrixLayoutDestroy(la_);
    if (op_) cublasLtMatmulDescDestroy(op_);
  }
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  bool supported() const { return reason_.empty(); }
  const std::string& reason() const { return reason_; }

  void run(cudaStream_t s) {
    // With beta == 0 C is not read; cuBLASLt still wants a pointer: D's.
    void* dptr = d_.d_cublas.get();
    const void* cptr = d_.c.get() ? d_.c.get() : dptr;
    CUBLAS_CHECK(cublasLtMatmul(lt_, op_, &alpha_, d_.b.get(), la_, d_.a.get(), lb_, &beta_, cptr, lc_, dptr, lc_,
                                &heur_.algo, workspace_, workspace_bytes_, s));
  }

 private:
  cublasLtHandle_t lt_;
  ProblemData& d_;
  void* workspace_;
  std::size_t workspace_bytes_;
  float alpha_ = 1, beta_ = 0;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasLtMatmulHeuristicResult_t heur_{};
  std::string reason_;
};

// ================================================================== timing

struct Timing {
  double median_ms = 0, min_ms = 0, p90_ms = 0;
  int launches = 0;
};

class Events {
 public:
  Events() {
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  cudaEvent_t start = nullptr, stop = nullptr;
};

struct TimingPolicy {
  int warmup = 10, iterations = 50;
  double warmup_ms = 25, timed_ms = 200;
  void* flush = nullptr;
  std::size_t flush_bytes = 0;
};

/// Warm-up (at least `warmup` launches and 25 ms), then at least
/// `iterations` timed launches and 200 ms.  Before every timed launch the L2
/// is evicted by a memset of flush_bytes (>= 2x L2); it also covers the
/// launch's host-side latency, since the start event is recorded behind it.
template <class Launch>
Timing time_launches(Launch&& launch, const TimingPolicy& pol, cudaStream_t s) {
  constexpr int kMaxLaunches = 100000;
  Events ev;
  float ms = 0;
  double warm_ms = 0;
  for (int i = 0; (i < pol.warmup || warm_ms < pol.warmup_ms) && i < kMaxLaunches; ++i) {
    CUDA_CHECK(cudaEventRecord(ev.start, s));
    launch();
    CUDA_CHECK(cudaEventRecord(ev.stop, s));
    CUDA_CHECK(cudaEventSynchronize(ev.stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    warm_ms += ms;
  }
  std::vector<double> t;
  double total_ms = 0;
  while ((static_cast<int>(t.size()) < pol.iterations || total_ms < pol.timed_ms) &&
         static_cast<int>(t.size()) < kMaxLaunches) {
    CUDA_CHECK(cudaMemsetAsync(pol.flush, static_cast<int>(t.size() & 0xFF), pol.flush_bytes, s));
    CUDA_CHECK(cudaEventRecord(ev.start, s));
    launch();
    CUDA_CHECK(cudaEventRecord(ev.stop, s));
    CUDA_CHECK(cudaEventSynchronize(ev.stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    t.push_back(ms);
    total_ms += ms;
  }
  std::sort(t.begin(), t.end());
  Timing r;
  r.median_ms = t[t.size() / 2];
  r.min_ms = t.front();
  r.p90_ms = t[t.size() * 9 / 10];
  r.launches = static_cast<int>(t.size());
  return r;
}

double tflops(const GemmProblem& p, double ms) {
  return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) / (ms * 1e-3) / 1e12;
}

// ================================================================== the run

DeviceInfo read_device(int dev, const cudaDeviceProp& prop) {
  DeviceInfo d;
  d.gpu = prop.name;
  d.sm_count = prop.multiProcessorCount;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  // Peak clocks, where the driver tells them (0 otherwise).
  if (cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, dev) != cudaSuccess) d.sm_clock_khz = 0;
  if (cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess) d.mem_clock_khz = 0;
  cudaGetLastError();
  cudaDriverGetVersion(&d.driver);
  // The driver's own version (580.x) is not in the runtime API; Linux shows
  // it in /proc, worded differently by the open and the proprietary module:
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...".
  // Take the first word made of digits and dots that has a dot.
  if (std::ifstream f("/proc/driver/nvidia/version"); f) {
    std::string line, word;
    std::getline(f, line);
    std::istringstream words(line);
    while (words >> word && d.driver_version.empty())
      if (word.find('.') != std::string::npos && word.find_first_not_of("0123456789.") == std::string::npos &&
          word.front() != '.')
        d.driver_version = word;
  }
  cudaRuntimeGetVersion(&d.runtime);
  d.l2_bytes = prop.l2CacheSize;
  d.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  d.commit = TESSEL_GIT_COMMIT;
  return d;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// The rows, the CSV stream and the progress lines.
class Reporter {
 public:
  Reporter(const DeviceInfo& dev, std::ostream& csv, std::size_t total) : dev_(dev), csv_(csv), total_(total) {
    csv_ << csv_header() << '\n';
    csv_.flush();
  }
  /// "[i/n] k09 4096x4096x4096 bf16 A:k,B:n r1 ... " (the result follows on the same line).
  void start(const std::string& impl, const GemmProblem& p, int repeat) {
    line_open_ = true;
    std::cerr << "[" << rows_.size() + 1 << "/" << total_ << "] " << impl << " " << shape_name(p) << " "
              << tessel::name(p.in);
    if (p.out != p.in) std::cerr << "->" << tessel::name(p.out);
    std::cerr << " " << tessel::name(p.layout);
    if (p.alpha != 1.0 || p.beta != 0.0) std::cerr << " alpha=" << p.alpha << " beta=" << p.beta;
    std::cerr << " r" << repeat << " ... " << std::flush;
  }
  void finish(const GemmBenchRow& r) {
    std::cerr << r.disposition;
    if (r.median_ms) std::cerr << "  " << fmt("%.4g", *r.median_ms) << " ms  " << fmt("%.1f", *r.tflops) << " TFLOP/s";
    if (r.ratio && r.impl != "cublas") std::cerr << "  ratio " << fmt("%.3f", *r.ratio);
    if (r.cublas_median_ms && r.impl != "cublas")
      std::cerr << " (cuBLAS " << fmt("%.4g", *r.cublas_median_ms) << " ms, " << fmt("%.1f", *r.cublas_tflops)
                << " TFLOP/s)";
    if (r.max_err) std::cerr << "  err " << fmt("%.3g", *r.max_err);
    if (r.cublas_max_err && r.impl != "cublas") std::cerr << " (cuBLAS " << fmt("%.3g", *r.cublas_max_err) << ")";
    if (!r.note.empty()) std::cerr << "  [" << r.note << "]";
    std::cerr << '\n';
    line_open_ = false;
    rows_.push_back(r);
    csv_ << csv_row(dev_, r) << '\n';
    csv_.flush();
  }
  std::size_t emitted() const { return rows_.size(); }
  /// A progress line was started and its result not printed (an error came in between).
  bool line_open() const { return line_open_; }
  const std::vector<GemmBenchRow>& rows() const { return rows_; }

 private:
  const DeviceInfo& dev_;
  std::ostream& csv_;
  std::size_t total_;
  bool line_open_ = false;
  std::vector<GemmBenchRow> rows_;
};

/// The state of one problem's implementations between verification and timing.
struct ImplState {
  std::string impl;              // "k09"
  std::optional<GemmImpl> step;  // nullopt for cuBLAS
  std::string disposition;       // passed, incorrect, not_supported, unverified, error
  std::string note;
  std::optional<double> max_err;
};

}  // namespace

int run_gemm_bench(const GemmBenchOptions& opt) {
  // ---------------------------------------------------------------- the device
  int count = 0;
  const cudaError_t ce = cudaGetDeviceCount(&count);
  if (ce != cudaSuccess || count == 0) {
    std::cerr << "tessel bench gemm: no CUDA device: tessel bench gemm needs a GPU ("
              << (ce != cudaSuccess ? cudaGetErrorString(ce) : "no device found") << ")\n";
    return 4;
  }
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    std::cerr << "tessel bench gemm: no CUDA device: tessel bench gemm needs a GPU (cudaGetDeviceProperties failed)\n";
    return 4;
  }
  const DeviceInfo device = read_device(dev, prop);

  // ---------------------------------------------------------------- outputs
  std::ofstream csv_file, json_file;
  std::ostream* csv = &std::cout;
  const bool csv_to_stdout = opt.csv.empty() || opt.csv == "-";
  if (!csv_to_stdout) {
    csv_file.open(opt.csv);
    if (!csv_file) {
      std::cerr << "tessel bench gemm: --csv: cannot write " << opt.csv << "\n";
      return 1;
    }
    csv = &csv_file;
  }
  if (!opt.json.empty() && opt.json != "-") {
    json_file.open(opt.json);
    if (!json_file) {
      std::cerr << "tessel bench gemm: --json: cannot write " << opt.json << "\n";
      return 1;
    }
  }
  // Standard output carries the CSV or the JSON when asked to; the summary then goes to stderr.
  std::ostream& summary_out = csv_to_stdout || opt.json == "-" ? std::cerr : std::cout;

  // ---------------------------------------------------------------- protocol
  constexpr std::size_t kWorkspaceBytes = 32u << 20;
  TimingPolicy pol;
  pol.warmup = opt.warmup;
  pol.iterations = opt.iterations;
  pol.flush_bytes = std::max<std::size_t>(2 * static_cast<std::size_t>(device.l2_bytes), 64u << 20);
  ProtocolInfo proto;
  proto.warmup_min_launches = opt.warmup;
  proto.timed_min_launches = opt.iterations;
  proto.flush_bytes = static_cast<std::int64_t>(pol.flush_bytes);
  proto.l2_policy = "flush: cudaMemsetAsync of " + std::to_string(pol.flush_bytes >> 20) +
                    " MiB (>= 2x L2) before every timed launch, outside the timed region; one input set";
  proto.verify = verify_name(opt.verify);
  proto.repeat = opt.repeat;
  proto.reference =
      "cublasLtMatmul, first result of cublasLtMatmulAlgoGetHeuristic, 32 MiB workspace, CUBLAS_COMPUTE_32F, "
      "fp32 scale, same buffers; ratio = t_cublas_median / t_impl_median";

  std::cerr << "# " << device.gpu << ", " << device.sm_count << " SMs, sm_" << device.cc_major << device.cc_minor
            << ", SM clock " << device.sm_clock_khz / 1000 << " MHz, memory clock " << device.mem_clock_khz / 1000
            << " MHz, L2 " << (device.l2_bytes >> 20) << " MiB, " << (device.memory_bytes >> 30) << " GiB, driver "
            << (device.driver_version.empty() ? "?" : device.driver_version) << " (CUDA " << device.driver
            << "), runtime " << device.runtime << ", tessel " << device.commit << "\n"
            << "# warm-up >= " << opt.warmup << " launches and 25 ms; timed >= " << opt.iterations
            << " launches and 200 ms; median (min, p90 in the CSV); L2: " << proto.l2_policy << "\n"
            << "# verify " << proto.verify << "; cuBLAS: " << proto.reference << "\n";
  if (opt.warmup < 10 || opt.iterations < 50)
    std::cerr << "# note: --warmup " << opt.warmup << " / --iterations " << opt.iterations
              << " are below the protocol's 10 / 50: these numbers are not publishable\n";

  const std::size_t rows_per_repeat = opt.steps.size() + (opt.cublas_rows ? 1 : 0);
  Reporter rep(device, *csv, opt.problems.size() * static_cast<std::size_t>(opt.repeat) * rows_per_repeat);
  std::string fatal;

  try {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const std::unique_ptr<CUstream_st, cudaError_t (*)(cudaStream_t)> stream_guard(stream, cudaStreamDestroy);
    cublasLtHandle_t lt = nullptr;
    CUBLAS_CHECK(cublasLtCreate(&lt));
    const std::unique_ptr<cublasLtContext, cublasStatus_t (*)(cublasLtHandle_t)> lt_guard(lt, cublasLtDestroy);
    DeviceBuffer flush(pol.flush_bytes, "L2 flush buffer");
    DeviceBuffer workspace(kWorkspaceBytes, "cuBLAS workspace");
    pol.flush = flush.get();
    const int sms = device.sm_count;
    const bool verifying = opt.verify != VerifyTier::none;

    for (std::size_t pi = 0; pi < opt.problems.size(); ++pi) {
      const GemmProblem& p = opt.problems[pi];
      const std::size_t rows_before = rep.emitted();
      std::cerr << "problem " << pi + 1 << "/" << opt.problems.size() << ": " << p.group << " " << shape_name(p) << " "
                << tessel::name(p.in) << "->" << tessel::name(p.out) << " " << tessel::name(p.layout)
                << " alpha=" << p.alpha << " beta=" << p.beta << "\n";
      // Rows not yet emitted when a problem fails with a CUDA error.
      auto emit_error_rows = [&](const std::string& why) {
        std::size_t done = rep.emitted() - rows_before;
        for (int r = 1; r <= opt.repeat; ++r) {
          std::vector<std::string> impls;
          if (opt.cublas_rows) impls.push_back("cublas");
          for (GemmImpl g : opt.steps) impls.push_back(short_name(g));
          for (const std::string& impl : impls) {
            if (done > 0) {
              --done;
              continue;
            }
            GemmBenchRow row;
            row.impl = impl;
            row.repeat = r;
            row.problem = p;
            row.verify = proto.verify;
            row.disposition = "error";
            row.note = why;
            rep.start(impl, p, r);
            rep.finish(row);
          }
        }
      };
      try {
        ProblemData data(p, verifying);
        fill_inputs(data, opt.verify == VerifyTier::tier1, sms, stream);
        if (verifying) {
          const auto t0 = std::chrono::steady_clock::now();
          launch_reference(data, stream);
          CUDA_CHECK(cudaStreamSynchronize(stream));
          std::cerr << "  reference (fp64): "
                    << fmt("%.2f", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())
                    << " s\n";
        }

        // ---- verification: cuBLAS first (tier 2 compares each step with it)
        const std::size_t d_bytes = data.d_elems * elem_bytes(p.out);
        CublasGemm cublas(lt, data, workspace.get(), kWorkspaceBytes);
        ImplState cub{"cublas", std::nullopt, "", "", std::nullopt};
        if (!cublas.supported()) {
          cub.disposition = "not_supported";
          cub.note = cublas.reason();
        } else {
          CUDA_CHECK(cudaMemsetAsync(data.d_cublas.get(), 0xFF, d_bytes, stream));  // NaN in every float type
          cublas.run(stream);
          CUDA_CHECK(cudaStreamSynchronize(stream));
          if (verifying) {
            const Verdict v = verify_output(data, data.d_cublas, opt.verify, sms, stream);
            cub.disposition = v.passed ? "passed" : "incorrect";
            cub.note = v.note;
            cub.max_err = v.max_err;
          } else {
            cub.disposition = "unverified";
          }
        }
        std::cerr << "  verify cublas: " << cub.disposition;
        if (cub.max_err) std::cerr << ", max err " << fmt("%.3g", *cub.max_err);
        if (!cub.note.empty()) std::cerr << " [" << cub.note << "]";
        std::cerr << "\n";

        std::vector<ImplState> steps;
        const GemmArgs args = tessel_args(data);
        for (GemmImpl g : opt.steps) {
          ImplState st{short_name(g), g, "", "", std::nullopt};
          if (Status chk = gemm_check(*st.step, args); !chk) {
            st.disposition = "not_supported";
            st.note = std::string(to_string(chk.code)) + ": " + chk.message;
          } else {
            CUDA_CHECK(cudaMemsetAsync(data.d_tessel.get(), 0xFF, d_bytes, stream));
            const Status run = gemm(*st.step, args, stream);
            const cudaError_t sync = cudaStreamSynchronize(stream);
            if (!run) {
              st.disposition = run.code == Status::cuda_error ? "error" : "not_supported";
              st.note = std::string(to_string(run.code)) + ": " + run.message;
            } else if (sync != cudaSuccess) {
              st.disposition = "error";
              st.note = std::string("kernel failed: ") + cudaGetErrorName(sync) + ": " + cudaGetErrorString(sync);
              cudaGetLastError();
              // A sticky error (illegal address, ...) breaks the context for good.
              check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after a failed kernel");
            } else if (verifying) {
              const Verdict v = verify_output(data, data.d_tessel, opt.verify, sms, stream);
              st.max_err = v.max_err;
              st.disposition = v.passed ? "passed" : "incorrect";
              st.note = v.note;
              // Tier 2: not more than twice cuBLAS's error on the same inputs.
              if (v.passed && opt.verify == VerifyTier::tier2 && cub.disposition == "passed" && cub.max_err &&
                  *cub.max_err > 0 && v.max_err > 2.0 * *cub.max_err) {
                st.disposition = "incorrect";
                st.note =
                    "max normalized error " + fmt("%.3g", v.max_err) + " > 2x cuBLAS's " + fmt("%.3g", *cub.max_err);
              }
            } else {
              st.disposition = "unverified";
            }
          }
          std::cerr << "  verify " << st.impl << ": " << st.disposition;
          if (st.max_err) std::cerr << ", max err " << fmt("%.3g", *st.max_err);
          if (!st.note.empty()) std::cerr << " [" << st.note << "]";
          std::cerr << "\n";
          steps.push_back(st);
        }

        // ---- timing, per repeat
        const auto timed = [](const std::string& disp) { return disp == "passed" || disp == "unverified"; };
        for (int r = 1; r <= opt.repeat; ++r) {
          std::optional<Timing> tc;
          if (timed(cub.disposition)) {
            if (opt.cublas_rows) rep.start("cublas", p, r);
            tc = time_launches([&] { cublas.run(stream); }, pol, stream);
          }
          auto base_row = [&](const ImplState& st) {
            GemmBenchRow row;
            row.impl = st.impl;
            row.repeat = r;
            row.problem = p;
            row.verify = proto.verify;
            row.disposition = st.disposition;
            row.note = st.note;
            row.max_err = st.max_err;
            row.cublas_max_err = cub.max_err;
            row.cublas_disposition = cub.disposition;
            if (tc) {
              row.cublas_median_ms = tc->median_ms;
              row.cublas_tflops = tflops(p, tc->median_ms);
            }
            return row;
          };
          if (opt.cublas_rows) {
            if (!tc) rep.start("cublas", p, r);
            GemmBenchRow row = base_row(cub);
            if (tc) {
              row.median_ms = tc->median_ms;
              row.min_ms = tc->min_ms;
              row.p90_ms = tc->p90_ms;
              row.tflops = tflops(p, tc->median_ms);
              row.ratio = 1.0;
            }
            rep.finish(row);
          }
          for (const ImplState& st : steps) {
            rep.start(st.impl, p, r);
            GemmBenchRow row = base_row(st);
            if (timed(st.disposition)) {
              const Timing t = time_launches(
                  [&] {
                    if (Status s = gemm(*st.step, args, stream); !s)
                      throw BenchError(std::string("tessel::gemm(") + st.impl + ") failed while timing: " + s.message);
                  },
                  pol, stream);
              row.median_ms = t.median_ms;
              row.min_ms = t.min_ms;
              row.p90_ms = t.p90_ms;
              row.tflops = tflops(p, t.median_ms);
              if (tc) row.ratio = tc->median_ms / t.median_ms;
            }
            rep.finish(row);
          }
        }
      } catch (const BenchError& e) {
        std::cerr << (rep.line_open() ? "\n" : "") << "  error: " << e.what() << "\n";
        cudaGetLastError();
        emit_error_rows(e.what());
        // Out of memory or a bad launch leaves the context usable; an illegal
        // address and the like do not (every later call fails): stop then.
        const cudaError_t health = cudaDeviceSynchronize();
        if (health != cudaSuccess) {
          fatal = std::string("the CUDA context is broken (") + cudaGetErrorString(health) +
                  "): stopped after problem " + std::to_string(pi + 1) + " of " + std::to_string(opt.problems.size());
          break;
        }
      }
    }
  } catch (const BenchError& e) {
    fatal = e.what();
  }

  // ---------------------------------------------------------------- summary
  const std::vector<ImplSummary> summary = summarize(rep.rows());
  summary_out << "summary: t_cublas / t_impl over the problems that passed (geometric mean of the repeats)\n";
  for (const ImplSummary& s : summary) {
    summary_out << "  " << s.impl << ": ";
    if (s.problems == 0)
      summary_out << "no passed problem with a cuBLAS time (" << s.rows << " rows)\n";
    else
      summary_out << "geomean " << fmt("%.3f", s.geomean_ratio) << ", min " << fmt("%.3f", s.min_ratio) << " over "
                  << s.problems << " problems\n";
  }
  if (!opt.json.empty()) {
    std::ostream& js = opt.json == "-" ? std::cout : json_file;
    write_json(js, device, proto, rep.rows(), summary, fatal);
    js.flush();
    if (!js) {
      std::cerr << "tessel bench gemm: --json: write failed\n";
      return 1;
    }
  }
  if (!fatal.empty()) {
    std::cerr << "tessel bench gemm: " << fatal << "\n";
    return 3;
  }
  return 0;
}

}  // namespace tessel::bench
