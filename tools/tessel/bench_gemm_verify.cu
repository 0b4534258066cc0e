// `tessel bench gemm`: the verification (docs/bench-protocol.md §1).  Random
// inputs, an fp64 reference GEMM with its per-element tier-2 error bound, and
// a comparison kernel, all on the device; verify_output turns the kernel's
// counters into a verdict and a message naming the first failing element.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "bench_gemm_verify.hpp"

namespace tessel::bench::gemm_detail {
namespace {

using bf16 = __nv_bfloat16;
using f16 = __half;
using e4m3 = __nv_fp8_e4m3;
using e5m2 = __nv_fp8_e5m2;

// ================================================================== element types

__host__ __device__ inline double to_double(bf16 x) { return static_cast<double>(__bfloat162float(x)); }
__host__ __device__ inline double to_double(f16 x) { return static_cast<double>(__half2float(x)); }
__host__ __device__ inline double to_double(float x) { return static_cast<double>(x); }
__host__ __device__ inline double to_double(e4m3 x) { return static_cast<double>(static_cast<float>(x)); }
__host__ __device__ inline double to_double(e5m2 x) { return static_cast<double>(static_cast<float>(x)); }

/// Round to nearest even (the conversions are host and device functions).
template <class T>
__host__ __device__ T round_float(float x) {
  if constexpr (std::is_same_v<T, bf16>)
    return __float2bfloat16_rn(x);
  else if constexpr (std::is_same_v<T, f16>)
    return __float2half_rn(x);
  else if constexpr (std::is_same_v<T, e4m3> || std::is_same_v<T, e5m2>)
    return T(x);  // nearest, saturating to the largest finite value (inputs only)
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
    case DType::e4m3:  // not an output type (parse_gemm_bench_args)
    case DType::e5m2:
      break;
  }
  return 1.0;
}

/// Calls f with a value of the storage type of output type `t` (a type tag).
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
    case DType::e4m3:  // not an output type (parse_gemm_bench_args)
    case DType::e5m2:
      f(float{});
      break;
  }
}
/// with_type for an input type: also the FP8 formats.
template <class F>
void with_input_type(DType t, F&& f) {
  if (t == DType::e4m3)
    f(e4m3{});
  else if (t == DType::e5m2)
    f(e5m2{});
  else
    with_type(t, static_cast<F&&>(f));
}

/// The accumulation's unit roundoff per element of K, in the tier-2 bound:
/// fp32's 2^-24 per FMA; for FP8 inputs 2^-18, the FP8 tensor core's
/// accumulator keeping about 14 bits (DeepSeek-V3's report on Hopper): an
/// error of 2^-13 of the running sum per k32 instruction, K/32 of them.
double accumulation_roundoff(DType in) { return is_fp8(in) ? 0x1p-18 : 0x1p-24; }

// ================================================================== device kernels

constexpr int kThreads = 256;

/// Blocks of the grid-stride kernels (fill_random, compare_output): 4 per SM.
int grid_for(int sm_count) { return 4 * sm_count; }

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

/// FP8 scales: powers of two from 1/4 to 4 (exact in every tier; tier 1's
/// products stay integers times powers of two).
__global__ void fill_scales(float* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = ldexpf(1.0f, static_cast<int>(hash32(seed * 0x100000001B3ull ^ i) % 5u) - 2);
}

/// An FP8 problem's scales as the reference reads them: A's of element (i, l)
/// and B's of element (l, j) of the dequantized operands (GemmArgs::fp8_scale).
struct RefScales {
  Fp8Scale mode = Fp8Scale::none;
  const float* a = nullptr;
  const float* b = nullptr;
  std::int64_t k_blocks = 0, m = 0;
  __device__ double of_a(std::int64_t i, std::int64_t l) const {
    switch (mode) {
      case Fp8Scale::tensor:
        return a[0];
      case Fp8Scale::channel:
        return a[i];
      case Fp8Scale::block:
        return a[(l / 128) * m + i];
      default:
        return 1.0;
    }
  }
  __device__ double of_b(std::int64_t l, std::int64_t j) const {
    switch (mode) {
      case Fp8Scale::tensor:
        return b[0];
      case Fp8Scale::channel:
        return b[j];
      case Fp8Scale::block:
        return b[(j / 128) * k_blocks + l / 128];
      default:
        return 1.0;
    }
  }
};

/// The fp64 reference: ref = alpha * A*B + beta * C and the tier-2 bound
///   2 u |ref| + 2 K u_acc |alpha| (|A||B|)_ij + 2 u |beta C_ij|
/// per element, both accumulated in double.  u_acc is 2^-24, fp32's unit
/// roundoff, for 16- and 32-bit inputs: every ladder accumulates in fp32, and
/// a sum of K products rounded once per FMA is within K 2^-24 (|A||B|)_ij of
/// the exact one (to first order; the factor 2 is margin); for FP8 inputs
/// accumulation_roundoff's 2^-18.  The inputs are not rounded again: FP8,
/// bf16, fp16 and fp32 values are exact in double, so the bound holds for
/// every input type alike.  A plain shared-memory tiled
/// kernel: 64x64 outputs per block, 16 of K per step, 4x4 per thread.  A and B
/// are read through the layout's strides, with the tile loads mapped so that
/// consecutive threads read consecutive addresses in every layout.
constexpr int kRefTile = 64, kRefK = 16;

template <class TIn, class TOut, class TB = TIn>  // TB: B's type where it differs (FP8 pairs)
struct RefParams {
  std::int64_t m, n, k;
  const TIn* a;
  std::int64_t lda;
  bool a_k;
  const TB* b;
  std::int64_t ldb;
  bool b_n;
  const TOut* c;  // null when beta == 0
  std::int64_t ldc;
  double alpha, beta, u_out, u_acc;  // u_acc: accumulation_roundoff
  const TOut* bias;                  // null: no bias
  bool bias_row;                     // per row (length M), else per column (length N)
  Activation act;
  double* ref;       // m x n, row-major, ld n
  double* bound;     // m x n, row-major, ld n
  RefScales scales;  // FP8: A and B dequantized by them
};

/// act(x) in double, the activations' definitions (gemm_types.hpp).
__device__ inline double act_exact(Activation a, double x) {
  switch (a) {
    case Activation::none:
      return x;
    case Activation::relu:
      return x > 0.0 ? x : 0.0;
    case Activation::gelu_erf:
      return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
    case Activation::gelu_tanh:
      return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
    case Activation::silu:
      return x / (1.0 + exp(-x));
  }
  return x;
}
/// The error an implementation may add in evaluating act, per unit of |x|:
/// tanh GELU 2^-10 (tessel's tanh.approx.f32 has relative error 2^-10.99, and
/// implementations differ in how they approximate), SiLU 2^-14 (fast exp and
/// reciprocal), erf GELU 2^-18; none and ReLU are exact.
__device__ inline double act_error(Activation a) {
  return a == Activation::gelu_tanh  ? 0x1p-10
         : a == Activation::silu     ? 0x1p-14
         : a == Activation::gelu_erf ? 0x1p-18
                                     : 0.0;
}

template <class TIn, class TOut, class TB>
__global__ void __launch_bounds__(kThreads) reference_gemm(RefParams<TIn, TOut, TB> p) {
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
      As[ll][ii] = gi < p.m && gl < p.k
                       ? to_double(p.a[p.a_k ? gi * p.lda + gl : gi + gl * p.lda]) * p.scales.of_a(gi, gl)
                       : 0.0;
      const int jj = p.b_n ? e % kRefTile : e / kRefK;
      ll = p.b_n ? e / kRefTile : e % kRefK;
      const std::int64_t gj = j0 + jj;
      gl = l0 + ll;
      Bs[ll][jj] = gl < p.k && gj < p.n
                       ? to_double(p.b[p.b_n ? gl * p.ldb + gj : gl + gj * p.ldb]) * p.scales.of_b(gl, gj)
                       : 0.0;
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
  const double k_term = 2.0 * static_cast<double>(p.k) * p.u_acc * fabs(p.alpha);
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const std::int64_t i = i0 + ty + 16 * r, j = j0 + tx + 16 * c;
      if (i >= p.m || j >= p.n) continue;
      const double cv = p.c != nullptr ? to_double(p.c[i * p.ldc + j]) : 0.0;
      const double b = p.bias == nullptr ? 0.0 : to_double(p.bias[p.bias_row ? i : j]);
      const double x = p.alpha * acc[r][c] + p.beta * cv + b;
      const double ref = act_exact(p.act, x);
      p.ref[i * p.n + j] = ref;
      const double pre = k_term * mag[r][c] + 2.0 * p.u_out * fabs(p.beta * cv);
      if (p.act == Activation::none && p.bias == nullptr) {
        p.bound[i * p.n + j] = 2.0 * p.u_out * fabs(ref) + pre;
      } else {
        // The epilogue: the error in x (as above, plus a rounding of x to the
        // output type, which the unfused path makes before adding the bias),
        // through act's slope (at most 1.13 for the GELUs and SiLU), then
        // act's own evaluation error and the final rounding.
        const double slope = p.act == Activation::none || p.act == Activation::relu ? 1.0 : 1.13;
        p.bound[i * p.n + j] = slope * (pre + 2.0 * p.u_out * fabs(x) + 2.0 * p.u_out * fabs(b)) +
                               act_error(p.act) * fabs(x) + 2.0 * p.u_out * fabs(ref) + 0x1p-40;
      }
    }
}

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
      // The same bits are exact, infinities too (an exact sum past the output type's range).
      err = ok ? 0.0 : fabs(g - to_double(want));
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

}  // namespace

void fill_inputs(ProblemData& d, bool small_integers, int sms, cudaStream_t s) {
  auto fill = [&](const DeviceBuffer& buf, DType t, std::size_t n, std::uint64_t seed) {
    with_input_type(t, [&](auto tag) {
      using T = decltype(tag);
      fill_random<T><<<grid_for(sms), kThreads, 0, s>>>(buf.as<T>(), n, seed, small_integers);
    });
    CUDA_CHECK(cudaGetLastError());
  };
  fill(d.a, d.p.in, d.a_elems, 1);
  fill(d.b, d.p.in_b.value_or(d.p.in), d.b_elems, 2);
  if (d.c.get()) fill(d.c, d.p.out, d.d_elems, 3);
  if (d.bias.get()) fill(d.bias, d.p.out, d.bias_elems, 4);
  if (d.scale_a.get()) {
    fill_scales<<<grid_for(sms), kThreads, 0, s>>>(d.scale_a.as<float>(), d.scale_a_elems, 5);
    CUDA_CHECK(cudaGetLastError());
    fill_scales<<<grid_for(sms), kThreads, 0, s>>>(d.scale_b.as<float>(), d.scale_b_elems, 6);
    CUDA_CHECK(cudaGetLastError());
  }
}

void launch_reference(ProblemData& d, cudaStream_t s) {
  // One launch per problem of a batch or a group, at its offsets.
  for (const SubProblem& sp : d.subs) {
    const dim3 grid(static_cast<unsigned>((d.p.n + kRefTile - 1) / kRefTile),
                    static_cast<unsigned>((sp.m + kRefTile - 1) / kRefTile));
    if (grid.y > 65535) throw BenchError("reference GEMM: M = " + std::to_string(sp.m) + " is too large for its grid");
    with_input_type(d.p.in, [&](auto in_tag) {
      with_input_type(d.p.in_b.value_or(d.p.in), [&](auto b_tag) {
        with_type(d.p.out, [&](auto out_tag) {
          using TIn = decltype(in_tag);
          using TB = decltype(b_tag);
          using TOut = decltype(out_tag);
          // fp32 inputs take fp32 outputs (parse_gemm_bench_args), and only FP8
          // A and B differ in type; the other combinations would be
          // instantiated for nothing.
          constexpr bool fp8_pair = sizeof(TIn) == 1 && sizeof(TB) == 1;
          if constexpr ((std::is_same_v<TIn, TB> || fp8_pair) &&
                        (!std::is_same_v<TIn, float> || std::is_same_v<TOut, float>)) {
            RefParams<TIn, TOut, TB> rp{};
            rp.m = sp.m;
            rp.n = d.p.n;
            rp.k = d.p.k;
            rp.a = d.a.as<TIn>() + sp.a_off;
            rp.lda = d.lda(sp.m);
            rp.a_k = d.a_k();
            rp.b = d.b.as<TB>() + sp.b_off;
            rp.ldb = d.ldb();
            rp.b_n = d.b_n();
            rp.c = d.c.get() != nullptr ? d.c.as<TOut>() + sp.d_off : nullptr;  // null when beta == 0
            rp.ldc = d.ldd();
            rp.alpha = d.p.alpha;
            rp.beta = d.p.beta;
            rp.u_out = unit_roundoff(d.p.out);
            rp.u_acc = accumulation_roundoff(d.p.in);
            rp.bias = d.bias.as<TOut>();  // null without a bias (single problems only)
            rp.bias_row = d.p.epilogue.bias == BiasKind::row;
            rp.act = d.p.epilogue.act;
            rp.ref = d.ref.as<double>() + sp.d_off;
            rp.bound = d.bound.as<double>() + sp.d_off;
            rp.scales = {d.p.fp8_scale, d.scale_a.as<float>() + sp.sa_off, d.scale_b.as<float>() + sp.sb_off,
                         (d.p.k + 127) / 128, sp.m};
            reference_gemm<TIn, TOut, TB><<<grid, kThreads, 0, s>>>(rp);
          }
        });
      });
    });
    CUDA_CHECK(cudaGetLastError());
  }
}

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

}  // namespace tessel::bench::gemm_detail
