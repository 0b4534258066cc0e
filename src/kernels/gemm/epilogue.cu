// The unfused epilogue (tessel::gemm_epilogue_apply, host/gemm.hpp;
// docs/epilogues.md): over an M x N row-major D, in place,
//   x = D(i, j) + bias;  aux(i, j) = x;  D(i, j) = act(x)
// in fp32, rounded to D's type.  tessel::gemm runs it after the plain GEMM
// wherever no fused instance serves the call (every step but k13's fused
// tiles), and `tessel bench gemm --epilogue` times it with the plain GEMM as
// the "unfused" row.
//
// Here too, split K's sum where it runs as a second kernel (split_k_sum).
//
// A memory-bound pass: each thread takes 8 consecutive elements of a row
// (16 bytes of a 16-bit D, 32 of fp32), one vector load and store where the
// rows and pointers allow it, else element by element.  Grid: x along the
// row's groups of 8, y along the rows (a grid-stride loop beyond 65535).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <utility>

#include "src/kernels/gemm/launch.hpp"
#include "src/kernels/gemm/mma_launch.hpp"
#include "src/kernels/gemm/params.hpp"
#include "tessel/arch/sm90.hpp"
#include "tessel/kernels/gemm/fused_epilogue.cuh"
#include "tessel/kernels/gemm/split_k.cuh"

namespace tessel::gemm_launch {

namespace {

namespace gk = gemm_kernels;

constexpr int kPerThread = 8;  // elements of a row per thread
constexpr int kThreadsX = 128;

/// What the kernel reads: D, the epilogue, the extents.
struct ApplyParams {
  void* d;
  index_t m, n, ldd;
  gk::EpilogueParams e;
};

/// x = D + bias, aux = x, D = act(x) for the kPerThread elements of row i
/// from column j (those below N).  `vector`: D's and aux's rows and bases
/// are aligned for one 16-byte access per 8 16-bit elements (two for fp32).
template <class U, Activation A>
__device__ __forceinline__ void apply_group(const ApplyParams& p, index_t i, index_t j, bool vector) {
  U* d = static_cast<U*>(p.d) + i * p.ldd + j;
  U* aux = p.e.aux != nullptr ? static_cast<U*>(p.e.aux) + i * p.e.ldaux + j : nullptr;
  const U* bias = static_cast<const U*>(p.e.bias);
  const float row_bias = p.e.bias_kind == BiasKind::row ? gk::detail::to_float(bias[i]) : 0.0f;
  const int count = p.n - j < kPerThread ? static_cast<int>(p.n - j) : kPerThread;
  // Every index below is a constant once the loops are unrolled, so x and
  // pre stay in registers (a run-time index would put them in local memory).
  constexpr int kVec = kPerThread * static_cast<int>(sizeof(U)) / 16;  // 16-byte accesses
  alignas(16) U x[kPerThread];
  if (vector && count == kPerThread) {
#pragma unroll
    for (int v = 0; v < kVec; ++v) *reinterpret_cast<uint4*>(&x[v * 16 / sizeof(U)]) = reinterpret_cast<uint4*>(d)[v];
  } else {
#pragma unroll
    for (int e = 0; e < kPerThread; ++e)
      if (e < count) x[e] = d[e];
  }
  alignas(16) U pre[kPerThread];
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    if (e >= count) break;
    float v = gk::detail::to_float(x[e]) + row_bias;
    if (p.e.bias_kind == BiasKind::col) v += gk::detail::to_float(bias[j + e]);
    pre[e] = gk::detail::from_float<U>(v);
    x[e] = gk::detail::from_float<U>(gk::activate<A>(v));
  }
  if (vector && count == kPerThread) {
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      reinterpret_cast<uint4*>(d)[v] = *reinterpret_cast<const uint4*>(&x[v * 16 / sizeof(U)]);
      if (aux != nullptr) reinterpret_cast<uint4*>(aux)[v] = *reinterpret_cast<const uint4*>(&pre[v * 16 / sizeof(U)]);
    }
  } else {
#pragma unroll
    for (int e = 0; e < kPerThread; ++e)
      if (e < count) {
        d[e] = x[e];
        if (aux != nullptr) aux[e] = pre[e];
      }
  }
}

template <class U, Activation A>
__global__ void __launch_bounds__(kThreadsX) epilogue_apply(const ApplyParams p, bool vector) {
  const index_t j = (static_cast<index_t>(blockIdx.x) * kThreadsX + threadIdx.x) * kPerThread;
  if (j >= p.n) return;
  for (index_t i = blockIdx.y; i < p.m; i += gridDim.y) apply_group<U, A>(p, i, j, vector);
}

/// Is `ptr` with rows of `ld` elements of `bytes` each aligned for 16-byte accesses?
bool rows_aligned_16(const void* ptr, index_t ld, int bytes) {
  return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0 && (ld * bytes) % 16 == 0;
}

template <class U>
Status launch_as(const ApplyParams& p, cudaStream_t stream) {
  const bool vector =
      rows_aligned_16(p.d, p.ldd, sizeof(U)) && (p.e.aux == nullptr || rows_aligned_16(p.e.aux, p.e.ldaux, sizeof(U)));
  const index_t groups = (p.n + kPerThread - 1) / kPerThread;
  const dim3 grid(static_cast<unsigned>((groups + kThreadsX - 1) / kThreadsX),
                  static_cast<unsigned>(p.m < 65535 ? p.m : 65535));
  switch (p.e.act) {
    case Activation::none:
      epilogue_apply<U, Activation::none><<<grid, kThreadsX, 0, stream>>>(p, vector);
      break;
    case Activation::relu:
      epilogue_apply<U, Activation::relu><<<grid, kThreadsX, 0, stream>>>(p, vector);
      break;
    case Activation::gelu_erf:
      epilogue_apply<U, Activation::gelu_erf><<<grid, kThreadsX, 0, stream>>>(p, vector);
      break;
    case Activation::gelu_tanh:
      epilogue_apply<U, Activation::gelu_tanh><<<grid, kThreadsX, 0, stream>>>(p, vector);
      break;
    case Activation::silu:
      epilogue_apply<U, Activation::silu><<<grid, kThreadsX, 0, stream>>>(p, vector);
      break;
  }
  return launch_status("gemm_epilogue_apply");
}

constexpr int kSumThreads = 512;
// Blocks launched while the GEMM runs wait on the SMs it leaves idle, as many as fit there: with several a
// SM, a few SMs took most of the sum.  Claiming more than half an SM's shared memory (unused) keeps one a SM,
// and a grid of at most one block an SM gives each the same share.
constexpr int kSumClaimBytes = 120 * 1024;

/// Split K summed apart: a thread a group of 8 elements of a row of D
/// (split_sum_group).  It may start while the GEMM runs (launch_split_sum's
/// programmatic launch) and waits for the GEMM's grid before reading.  The
/// inputs' type only types the Params: the sum reads neither A nor B.
template <class U>
__global__ void __launch_bounds__(kSumThreads) split_k_sum(const gk::Params<__nv_bfloat16> p, const float* partials,
                                                           index_t plane, int ld, int splits, bool vector) {
  arch::sm90::griddep_wait();
  // 32-bit group indices: a plane's offsets fit in int (the launcher's check), so its groups of 8 do.
  const unsigned per_row = static_cast<unsigned>((p.n + 7) / 8), groups = static_cast<unsigned>(p.m) * per_row;
  for (unsigned g = blockIdx.x * kSumThreads + threadIdx.x; g < groups; g += gridDim.x * kSumThreads) {
    const unsigned i = g / per_row;
    gk::split_sum_group<U>(p, partials, plane, ld, splits, i, (g - i * per_row) * 8, vector);
  }
}

}  // namespace

Status launch_split_sum(const GemmArgs& args, bool transposed, const float* partials, index_t plane, int ld, int splits,
                        cudaStream_t stream) {
  GemmArgs d = args;  // D's own problem
  if (transposed) std::swap(d.m, d.n);
  const auto p = make_params<__nv_bfloat16>(d);
  const bool vector = rows_aligned_16(d.d, d.ldd, static_cast<int>(size_bytes(d.cd_type)));
  const index_t groups = d.m * ((d.n + 7) / 8), blocks = (groups + kSumThreads - 1) / kSumThreads;
  cudaLaunchConfig_t cfg{};
  const index_t sms = device_sm_count();
  cfg.gridDim = dim3(static_cast<unsigned>(blocks < sms ? blocks : sms));
  cfg.blockDim = dim3(kSumThreads);
  cfg.dynamicSmemBytes = kSumClaimBytes;
  cfg.stream = stream;
  gk::with_out_type(d.cd_type, [&]<class U>() {
    static const bool claimed = cudaFuncSetAttribute(split_k_sum<U>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     kSumClaimBytes) == cudaSuccess;
    if (!claimed) cfg.dynamicSmemBytes = 0;
    auto params = p;
    const float* from = partials;
    int rows = ld, count = splits;
    bool vec = vector;
    void* args[] = {&params, &from, &plane, &rows, &count, &vec};
    const auto* kernel = reinterpret_cast<const void*>(split_k_sum<U>);
    cudaLaunchAttribute attrs[1];
    if (launch_dependent(cfg, attrs, kernel, args, true) == cudaSuccess) return;
    // Without the claim (a device where it was not made), one block an SM is not kept, the sum as correct.
    (void)cudaGetLastError();
    cfg.dynamicSmemBytes = 0;
    (void)launch_dependent(cfg, attrs, kernel, args, false);
  });
  return launch_status("split K's sum");
}

Status launch_epilogue(const GemmArgs& g, cudaStream_t stream) {
  if (!g.epilogue.active()) return Status::success();
  // Rows of N elements in groups of 8 along x: the grid's x extent fits 2^31 - 1 for any N < 2^40.
  const GemmEpilogue& e = g.epilogue;
  const ApplyParams p{g.d, g.m, g.n, g.ldd, gk::EpilogueParams{e.bias, e.aux, e.ldaux, e.act, e.bias_kind}};
  return gk::with_out_type(g.cd_type, [&]<class U>() { return launch_as<U>(p, stream); });
}

}  // namespace tessel::gemm_launch
