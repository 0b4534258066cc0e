// bench/lab/fp32_configs.cu — a screen of f08's configurations (tile, k-tile,
// stages, copy schedule) against cuBLAS's fp32 GEMM in the same process, to
// choose the fp32 ladder's next step with one device run instead of one per
// idea.  A:k, B:n (row-major A and B, the fp32 ladder's suite layout),
// alpha 1, beta 0; inputs small integers in [-2, 2], so every configuration
// must match a naive kernel bit for bit (fp32 sums of at most 4 * K <= 2^24
// are exact).  Each timed launch is preceded by a read of 256 MB (the L2
// flush of tessel bench gemm --flush read); the median of 15 launches after 3
// warm-ups, CUDA events.  Not a replacement for `tessel bench gemm`: the
// configuration chosen here becomes a step and is measured there.
// Build: nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude \
//          bench/lab/fp32_configs.cu -lcublas -o fp32_configs
// Run:   ./fp32_configs 4096 8192
// The screens (SCREEN=...): the default, the tile / k-tile / stage / spread
// screen of f08, then the FFMA order (serpentine) on f08's best tiles and on
// f10's TMA kernel; 3, f10's placement of the next k-step's fragment reads
// (NextReadsAfterRow) on A:m, B:n and on A:k, B:n, each against cuBLAS on its
// own layout; 4, f10 before and after its main loop became a function; 5,
// f11's knobs (FFMA order, fragment-read placement) beside f10; 6, f11 under
// register caps (__maxnreg__); cublas, one launch of cublasSgemm on each A
// layout, for ncu; 9, f11's body with a straight path for whole tiles (Form
// 1); 10, the stream-K CTAs first and other splits of the tiles.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tessel/arch/sm90_tensor_map.hpp"
#include "tessel/gemm_plan.hpp"
#include "tessel/kernels/gemm/f08_thread_tile_16x8.cuh"
#include "tessel/kernels/gemm/f10_tma_loads.cuh"
#include "tessel/kernels/gemm/f11_stream_k.cuh"
// SCREEN=4: f10's kernel as it was before its main loop became
// product_of_k_range (shared with f11), in namespace f10_before: a copy taken
// from git history into f10_before.cuh for the run, not kept in the
// tree (the screen says so and skips where it is missing).
#if __has_include("bench/lab/f10_before.cuh")
#include "bench/lab/f10_before.cuh"
#define HAVE_F10_BEFORE 1
#endif

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace gk = tessel::gemm_kernels;
using tessel::MajorA;
using tessel::MajorB;

// D = A B, A (m,k) row-major, B (k,n) row-major, D row-major: the reference.
__global__ void naive(const float* a, const float* b, float* d, int m, int n, int k) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float s = 0;
  for (int x = 0; x < k; ++x) s += a[static_cast<long>(i) * k + x] * b[static_cast<long>(x) * n + j];
  d[static_cast<long>(i) * n + j] = s;
}

// The same with A column-major (A:m): A(i, x) at a[x * m + i].
__global__ void naive_am(const float* a, const float* b, float* d, int m, int n, int k) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float s = 0;
  for (int x = 0; x < k; ++x) s += a[static_cast<long>(x) * m + i] * b[static_cast<long>(x) * n + j];
  d[static_cast<long>(i) * n + j] = s;
}

__global__ void read_all(const float4* p, long n, float* sink) {
  float4 acc{0, 0, 0, 0};
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * static_cast<long>(blockDim.x))
    acc.x += p[i].x;
  if (acc.x == 12345.f) *sink = acc.x;
}

struct Bufs {
  float *a, *b, *d, *ref, *flush, *sink;
  long flush_n;
};

template <class F>
float median_ms(const Bufs& s, F&& launch) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int i = 0; i < 18; ++i) {
    read_all<<<528, 256>>>(reinterpret_cast<const float4*>(s.flush), s.flush_n / 4, s.sink);
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 3) t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// D = A B on the n x n problem of `s` (row-major, alpha 1, beta 0).
gk::Params<float> square_params(const Bufs& s, int n) {
  gk::Params<float> p{};
  p.m = n, p.n = n, p.k = n;
  p.a = s.a, p.b = s.b, p.d = s.d, p.c = nullptr;
  p.lda = n, p.ldb = n, p.ldd = n, p.ldc = n;
  p.alpha = 1, p.beta = 0;
  return p;
}

/// One configuration: D poisoned, one launch compared bit for bit with the
/// naive kernel's, then timed; one line of output.
template <class F>
void check_and_time(const char* name, const Bufs& s, int n, float cublas_ms, int regs, int smem, F&& launch) {
  CK(cudaMemset(s.d, 0xff, sizeof(float) * n * n));  // poison
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> d(static_cast<size_t>(n) * n), r(d.size());
  CK(cudaMemcpy(d.data(), s.d, d.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r.data(), s.ref, r.size() * 4, cudaMemcpyDeviceToHost));
  const bool exact = std::memcmp(d.data(), r.data(), d.size() * 4) == 0;
  const float ms = median_ms(s, launch);
  const double tf = 2.0 * n * n * static_cast<double>(n) / (ms * 1e9);
  std::printf("%-28s n=%d regs=%3d smem=%6d %s  %.4f ms  %.2f TFLOP/s  ratio %.3f\n", name, n, regs, smem,
              exact ? "exact" : "WRONG", ms, tf, cublas_ms / ms);
}

template <class Cfg>
void run(const char* name, const Bufs& s, int n, float cublas_ms) {
  auto* kernel = &gk::f08::gemm_thread_tile_16x8<MajorA::k, MajorB::n, Cfg>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, kernel));
  const gk::Params<float> p = square_params(s, n);
  const dim3 grid((n + Cfg::kBN - 1) / Cfg::kBN, (n + Cfg::kBM - 1) / Cfg::kBM);
  check_and_time(name, s, n, cublas_ms, fa.numRegs, Cfg::kSmemBytes,
                 [&] { kernel<<<grid, gk::f08::kThreads, Cfg::kSmemBytes>>>(p); });
}

// The TMA maps of f10's and f11's kernels on the n x n problem of `s`, as
// f10.cu makes them: A:k {K, M} in 64-byte swizzled boxes or A:m {M, K}, B:n.
template <MajorA MA>
void f10_maps(const Bufs& s, int n, CUtensorMap& ma, CUtensorMap& mb) {
  namespace k10 = gk::f10;
  const auto map = [&](CUtensorMap& m, const float* p, const int(&box)[2], CUtensorMapSwizzle sw) {
    tessel::arch::sm90::TensorMapSpec t;
    t.dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    t.global_address = p;
    t.global_dim = {static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n), 1, 1, 1};
    t.global_stride_bytes = {0, static_cast<std::uint64_t>(n) * 4, 0, 0, 0};
    t.box_dim = {static_cast<std::uint32_t>(box[0]), static_cast<std::uint32_t>(box[1]), 1, 1, 1};
    t.swizzle = sw;
    const auto st = tessel::arch::sm90::encode_tiled(m, t);
    if (!st.ok()) {
      std::fprintf(stderr, "map: %s\n", st.message.c_str());
      std::exit(3);
    }
  };
  if constexpr (MA == MajorA::k)
    map(ma, s.a, k10::kBoxAk, CU_TENSOR_MAP_SWIZZLE_64B);
  else
    map(ma, s.a, k10::kBoxAm, CU_TENSOR_MAP_SWIZZLE_NONE);
  map(mb, s.b, k10::kBoxBn, CU_TENSOR_MAP_SWIZZLE_NONE);
}

// f10's kernel (A:k or A:m, B:n) with its TMA maps and epilogue tensors, as
// f10.cu makes them; `s.ref` must hold the reference of the same layout.
// F10KernelBefore: the signature of f10_before.cuh's kernel (no epilogue tensors).
using F10Kernel = void (*)(const CUtensorMap, const CUtensorMap, gk::Params<float>, gk::f10::Out);
using F10KernelBefore = void (*)(const CUtensorMap, const CUtensorMap, gk::Params<float>);
template <MajorA MA, bool Serpentine, int NextReadsAfterRow = -1, class K = F10Kernel>
void run_f10(const char* name, const Bufs& s, int n, float cublas_ms,
             K kernel = &gk::f10::gemm_tma_loads<MA, Serpentine, NextReadsAfterRow>) {
  namespace k10 = gk::f10;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, k10::kSmemBytes));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, kernel));
  CUtensorMap ma, mb;
  f10_maps<MA>(s, n, ma, mb);
  const gk::Params<float> p = square_params(s, n);
  k10::Out out;
  if (!k10::make_out(p, out)) {
    std::fprintf(stderr, "f10: the offsets of D's tiles do not fit in int at n = %d\n", n);
    std::exit(3);
  }
  const dim3 grid((n + k10::kBN - 1) / k10::kBN, (n + k10::kBM - 1) / k10::kBM);
  check_and_time(name, s, n, cublas_ms, fa.numRegs, k10::kSmemBytes, [&] {
    if constexpr (std::is_same_v<K, F10Kernel>)
      kernel<<<grid, k10::kThreads, k10::kSmemBytes>>>(ma, mb, p, out);
    else
      kernel<<<grid, k10::kThreads, k10::kSmemBytes>>>(ma, mb, p);
  });
}

// SCREEN=6: f11's body (f11::stream_k_body, its defaults) in kernels of
// other register limits: ptxas gives f11's A:m instance 254 registers where
// f10's has 204, and f11's loop runs ~3 % under f10's.
#define TESSEL_F11_CAPPED(NAME, CAP, MA)                                                                              \
  __global__ void __maxnreg__(CAP)                                                                                    \
      NAME(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, gk::Params<float> p, \
           gk::f10::Out out, gk::f11::StreamK sk) {                                                                   \
    gk::f11::stream_k_body<MA, true, MA == MajorA::m ? 7 : -1>(map_a, map_b, p, out, sk);                             \
  }
TESSEL_F11_CAPPED(f11_am_cap204, 204, MajorA::m)
TESSEL_F11_CAPPED(f11_am_cap216, 216, MajorA::m)
TESSEL_F11_CAPPED(f11_am_cap232, 232, MajorA::m)
TESSEL_F11_CAPPED(f11_ak_cap208, 208, MajorA::k)
TESSEL_F11_CAPPED(f11_ak_cap232, 232, MajorA::k)
TESSEL_F11_CAPPED(f11_ak_cap240, 240, MajorA::k)
// SCREEN=9: f11's body with a straight path for whole tiles (Form 1) and the
// next fragments read at other rows.
#define TESSEL_F11_FORM(NAME, MA, READS, FORM)                                                                        \
  __global__ void __launch_bounds__(gk::f11::kThreads, 1)                                                             \
      NAME(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, gk::Params<float> p, \
           gk::f10::Out out, gk::f11::StreamK sk) {                                                                   \
    gk::f11::stream_k_body<MA, true, READS, FORM>(map_a, map_b, p, out, sk);                                          \
  }
TESSEL_F11_FORM(f11_am_form1_r7, MajorA::m, 7, 1)
TESSEL_F11_FORM(f11_am_form1_r3, MajorA::m, 3, 1)
TESSEL_F11_FORM(f11_am_form1_first, MajorA::m, -1, 1)
TESSEL_F11_FORM(f11_am_form0_r5, MajorA::m, 5, 0)
TESSEL_F11_FORM(f11_am_form0_r0, MajorA::m, 0, 0)
TESSEL_F11_FORM(f11_ak_form1, MajorA::k, -1, 1)
// SCREEN=10: the stream-K CTAs first in the grid (form 2).
TESSEL_F11_FORM(f11_am_form2, MajorA::m, 7, 2)
TESSEL_F11_FORM(f11_ak_form2, MajorA::k, -1, 2)

// SCREEN=10's splits of the tiles (run_f11's split_mode): 0 stream_k_split's
// (every full wave whole, the remainder shared); 1 the last full wave
// shared too (f11's first split); 2 every tile shared; 3
// all full waves but the last two whole.
tessel::StreamKSplit lab_split(int tiles, int k_tiles, int sms, int mode) {
  const tessel::StreamKSplit split = tessel::stream_k_split(tiles, k_tiles, sms);
  if (mode == 0 || split.sk_ctas == 0) return split;
  const int waves = tiles / sms;
  const int dp = mode == 1   ? (waves >= 1 ? (waves - 1) * sms : 0)
                 : mode == 2 ? 0
                             : (waves >= 2 ? (waves - 2) * sms : 0);
  return {dp, tiles - dp, sms};
}

// f11's kernel (stream-K on f10's tile) with its split as f11.cu makes it:
// partial tiles and counters allocated here (the counters zeroed once; the
// kernel sets them back to zero).
using F11Kernel = void (*)(const CUtensorMap, const CUtensorMap, gk::Params<float>, gk::f10::Out, gk::f11::StreamK);
template <MajorA MA, bool Serpentine, int NextReadsAfterRow = -1>
void run_f11(const char* name, const Bufs& s, int n, float cublas_ms,
             F11Kernel kernel = &gk::f11::gemm_stream_k<MA, Serpentine, NextReadsAfterRow>, int split_mode = 0) {
  namespace k11 = gk::f11;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, k11::kSmemBytes));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, kernel));
  CUtensorMap ma, mb;
  f10_maps<MA>(s, n, ma, mb);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  k11::StreamK sk;
  sk.tiles_n = (n + k11::kBN - 1) / k11::kBN;
  const int tiles = sk.tiles_n * ((n + k11::kBM - 1) / k11::kBM);
  sk.k_tiles = (n + k11::kBK - 1) / k11::kBK;
  const tessel::StreamKSplit split = lab_split(tiles, sk.k_tiles, sms, split_mode);
  sk.dp_tiles = static_cast<int>(split.dp_tiles);
  sk.sk_ctas = split.sk_ctas;
  sk.sk_iters = static_cast<long long>(split.sk_tiles) * sk.k_tiles;
  float* partials = nullptr;
  int* counters = nullptr;
  CK(cudaMalloc(&partials, static_cast<size_t>(sms) * k11::kPartialFloats * 4));
  CK(cudaMalloc(&counters, static_cast<size_t>(tiles) * 4 + 4));
  CK(cudaMemset(counters, 0, static_cast<size_t>(tiles) * 4 + 4));
  sk.partials = partials, sk.counters = counters;
  const gk::Params<float> p = square_params(s, n);
  gk::f10::Out out;
  if (!gk::f10::make_out(p, out)) {
    std::fprintf(stderr, "f11: the offsets of D's tiles do not fit in int at n = %d\n", n);
    std::exit(3);
  }
  check_and_time(name, s, n, cublas_ms, fa.numRegs, k11::kSmemBytes,
                 [&] { kernel<<<sk.dp_tiles + sk.sk_ctas, k11::kThreads, k11::kSmemBytes>>>(ma, mb, p, out, sk); });
  CK(cudaFree(partials));
  CK(cudaFree(counters));
}

int main(int argc, char** argv) {
  for (int arg = 1; arg < argc; ++arg) {
    const int n = std::atoi(argv[arg]);
    Bufs s{};
    const size_t bytes = sizeof(float) * n * static_cast<size_t>(n);
    CK(cudaMalloc(&s.a, bytes));
    CK(cudaMalloc(&s.b, bytes));
    CK(cudaMalloc(&s.d, bytes));
    CK(cudaMalloc(&s.ref, bytes));
    s.flush_n = 64L << 20;  // 256 MB of floats
    CK(cudaMalloc(&s.flush, s.flush_n * 4));
    CK(cudaMalloc(&s.sink, 4));
    CK(cudaMemset(s.flush, 0, s.flush_n * 4));
    std::vector<float> h(static_cast<size_t>(n) * n);
    unsigned x = 12345;
    for (auto& v : h) v = static_cast<float>(static_cast<int>((x = x * 1664525u + 1013904223u) >> 29) % 5 - 2);
    CK(cudaMemcpy(s.a, h.data(), bytes, cudaMemcpyHostToDevice));
    for (auto& v : h) v = static_cast<float>(static_cast<int>((x = x * 1664525u + 1013904223u) >> 29) % 5 - 2);
    CK(cudaMemcpy(s.b, h.data(), bytes, cudaMemcpyHostToDevice));
    naive<<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>(s.a, s.b, s.ref, n, n, n);
    CK(cudaDeviceSynchronize());

    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
    const float one = 1, zero = 0;
    // Row-major D = A B is column-major D^T = B^T A^T: cuBLAS's (n,n) B then A.
    const auto cublas = [&] {
      if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, s.b, n, s.a, n, &zero, s.d, n) !=
          CUBLAS_STATUS_SUCCESS)
        std::exit(2);
    };
    const std::string screen = std::getenv("SCREEN") != nullptr ? std::getenv("SCREEN") : "2";
    if (screen == "cublas") {  // one launch of cuBLAS's fp32 GEMM on A:k, B:n and on A:m, B:n (for ncu)
      cublas();
      if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, s.b, n, s.a, n, &zero, s.d, n) !=
          CUBLAS_STATUS_SUCCESS)
        return 2;
      CK(cudaDeviceSynchronize());
      cublasDestroy(handle);
      continue;
    }
    cublas();
    CK(cudaDeviceSynchronize());
    const float cublas_ms = median_ms(s, cublas);
    std::printf("%-28s n=%d %.4f ms  %.2f TFLOP/s\n", "cublasSgemm", n, cublas_ms,
                2.0 * n * n * static_cast<double>(n) / (cublas_ms * 1e9));
    // The A:m screens: the same buffer read as column-major A, its naive
    // reference (into s.ref) and cuBLAS's time on that layout.
    const auto cublas_am = [&] {
      if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, s.b, n, s.a, n, &zero, s.d, n) !=
          CUBLAS_STATUS_SUCCESS)
        std::exit(2);
    };
    const auto to_a_m = [&] {
      naive_am<<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>(s.a, s.b, s.ref, n, n, n);
      CK(cudaDeviceSynchronize());
      const float ms = median_ms(s, cublas_am);
      std::printf("%-28s n=%d %.4f ms\n", "cublasSgemm A:m", n, ms);
      return ms;
    };
    if (screen == "10") {  // f11's splits and the stream-K CTAs first (form 2), A:k then A:m
      run_f10<MajorA::k, false>("f10 A:k", s, n, cublas_ms);
      run_f11<MajorA::k, true>("f11 A:k", s, n, cublas_ms);
      run_f11<MajorA::k, true>("f11 A:k form 1", s, n, cublas_ms, &f11_ak_form1);
      run_f11<MajorA::k, true>("f11 A:k first split form 1", s, n, cublas_ms, &f11_ak_form1, 1);
      const float am_ms = to_a_m();
      run_f10<MajorA::m, true>("f10 A:m", s, n, am_ms);
      run_f11<MajorA::m, true, 7>("f11 A:m", s, n, am_ms);
      run_f11<MajorA::m, true, 7>("f11 A:m form 1", s, n, am_ms, &f11_am_form1_r7);
      run_f11<MajorA::m, true, 7>("f11 A:m first split", s, n, am_ms, &gk::f11::gemm_stream_k<MajorA::m>, 1);
      run_f11<MajorA::m, true, 7>("f11 A:m first split form 1", s, n, am_ms, &f11_am_form1_r7, 1);
      run_f11<MajorA::m, true, 7>("f11 A:m all shared", s, n, am_ms, &gk::f11::gemm_stream_k<MajorA::m>, 2);
      run_f11<MajorA::m, true, 7>("f11 A:m (again)", s, n, am_ms);
    } else if (screen == "ncu11") {  // one launch each of f10 and f11 on A:m (for ncu)
      const float am_ms = to_a_m();
      run_f10<MajorA::m, true>("f10 A:m", s, n, am_ms);
      run_f11<MajorA::m, true, 7>("f11 A:m", s, n, am_ms);
    } else if (screen == "9") {  // f11 forms: a straight path for whole tiles, other read rows; f10 beside
      run_f10<MajorA::k, false>("f10 A:k", s, n, cublas_ms);
      run_f11<MajorA::k, true>("f11 A:k", s, n, cublas_ms);
      run_f11<MajorA::k, true>("f11 A:k form 1", s, n, cublas_ms, &f11_ak_form1);
      const float am_ms = to_a_m();
      run_f10<MajorA::m, true>("f10 A:m", s, n, am_ms);
      run_f11<MajorA::m, true, 7>("f11 A:m (r7, form 0)", s, n, am_ms);
      run_f11<MajorA::m, true, 7>("f11 A:m form 1 r7", s, n, am_ms, &f11_am_form1_r7);
      run_f11<MajorA::m, true, 7>("f11 A:m form 1 r3", s, n, am_ms, &f11_am_form1_r3);
      run_f11<MajorA::m, true, 7>("f11 A:m form 1 first", s, n, am_ms, &f11_am_form1_first);
      run_f11<MajorA::m, true, 7>("f11 A:m form 0 r5", s, n, am_ms, &f11_am_form0_r5);
      run_f11<MajorA::m, true, 7>("f11 A:m form 0 r0", s, n, am_ms, &f11_am_form0_r0);
    } else if (screen == "6") {  // f11 under register caps, A:k then A:m, f10 and f11 as built beside
      run_f10<MajorA::k, false>("f10 A:k", s, n, cublas_ms);
      run_f11<MajorA::k, true>("f11 A:k", s, n, cublas_ms);
      run_f11<MajorA::k, true>("f11 A:k cap 208", s, n, cublas_ms, &f11_ak_cap208);
      run_f11<MajorA::k, true>("f11 A:k cap 232", s, n, cublas_ms, &f11_ak_cap232);
      run_f11<MajorA::k, true>("f11 A:k cap 240", s, n, cublas_ms, &f11_ak_cap240);
      const float am_ms = to_a_m();
      run_f10<MajorA::m, true>("f10 A:m", s, n, am_ms);
      run_f11<MajorA::m, true, 7>("f11 A:m", s, n, am_ms);
      run_f11<MajorA::m, true, 7>("f11 A:m cap 204", s, n, am_ms, &f11_am_cap204);
      run_f11<MajorA::m, true, 7>("f11 A:m cap 216", s, n, am_ms, &f11_am_cap216);
      run_f11<MajorA::m, true, 7>("f11 A:m cap 232", s, n, am_ms, &f11_am_cap232);
    } else if (screen == "5") {  // f11's FFMA order and fragment-read placement, A:k then A:m, f10 beside
      run_f10<MajorA::k, false>("f10 A:k", s, n, cublas_ms);
      run_f11<MajorA::k, false>("f11 A:k", s, n, cublas_ms);
      run_f11<MajorA::k, true>("f11 A:k serp", s, n, cublas_ms);
      run_f11<MajorA::k, false, 3>("f11 A:k after row 3", s, n, cublas_ms);
      const float am_ms = to_a_m();
      run_f10<MajorA::m, true>("f10 A:m", s, n, am_ms);
      run_f11<MajorA::m, true>("f11 A:m serp", s, n, am_ms);
      run_f11<MajorA::m, false>("f11 A:m", s, n, am_ms);
      run_f11<MajorA::m, true, 1>("f11 A:m serp after row 1", s, n, am_ms);
      run_f11<MajorA::m, true, 3>("f11 A:m serp after row 3", s, n, am_ms);
      run_f11<MajorA::m, true, 7>("f11 A:m serp after row 7", s, n, am_ms);
      run_f11<MajorA::m, false, 1>("f11 A:m after row 1", s, n, am_ms);
      run_f11<MajorA::m, false, 3>("f11 A:m after row 3", s, n, am_ms);
      run_f10<MajorA::m, true>("f10 A:m (again)", s, n, am_ms);
    } else if (screen == "4") {  // f10 before and after the refactor, A:k then A:m, alternating
#ifdef HAVE_F10_BEFORE
      for (int round = 0; round < 2; ++round) {
        run_f10<MajorA::k, false, -1, F10KernelBefore>("f10 A:k before", s, n, cublas_ms,
                                                       &gk::f10_before::gemm_tma_loads<MajorA::k>);
        run_f10<MajorA::k, false>("f10 A:k after", s, n, cublas_ms);
      }
      const float am_ms = to_a_m();
      for (int round = 0; round < 2; ++round) {
        run_f10<MajorA::m, true, -1, F10KernelBefore>("f10 A:m before", s, n, am_ms,
                                                      &gk::f10_before::gemm_tma_loads<MajorA::m>);
        run_f10<MajorA::m, true>("f10 A:m after", s, n, am_ms);
      }
#else
      std::printf("SCREEN=4 needs bench/lab/f10_before.cuh, f10 from before product_of_k_range\n");
#endif
    } else if (screen == "3") {  // f10's fragment reads placed in the k-step, A:k then A:m
      run_f10<MajorA::k, false>("f10 A:k reads first", s, n, cublas_ms);
      run_f10<MajorA::k, false, 3>("f10 A:k reads after row 3", s, n, cublas_ms);
      const float am_ms = to_a_m();
      check_and_time("cublasSgemm A:m", s, n, 0.0f, 0, 0, cublas_am);  // cuBLAS's own exactness on A:m
      run_f10<MajorA::m, true>("f10 A:m reads first", s, n, am_ms);
      run_f10<MajorA::m, true, 1>("f10 A:m reads after row 1", s, n, am_ms);
      run_f10<MajorA::m, true, 3>("f10 A:m reads after row 3", s, n, am_ms);
      run_f10<MajorA::m, true, 7>("f10 A:m reads after row 7", s, n, am_ms);
      run_f10<MajorA::m, true, -1>("f10 A:m reads first (again)", s, n, am_ms);
    } else if (screen == "1") {  // the first screen (tiles, k-tiles, stages, spread copies)
      run<gk::f08::Config<256, 128, 16, 4, 0>>("256x128 bk16 s4 (f08)", s, n, cublas_ms);
      run<gk::f08::Config<256, 128, 8, 4, 0>>("256x128 bk8 s4", s, n, cublas_ms);
      run<gk::f08::Config<256, 128, 8, 3, 0>>("256x128 bk8 s3", s, n, cublas_ms);
      run<gk::f08::Config<256, 128, 16, 4, 2>>("256x128 bk16 s4 spread2", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 16, 4, 0>>("128x256 bk16 s4", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 16, 3, 0>>("128x256 bk16 s3", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 8, 4, 0>>("128x256 bk8 s4", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 8, 3, 0>>("128x256 bk8 s3", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 16, 4, 2>>("128x256 bk16 s4 spread2", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 16, 4, 4>>("128x256 bk16 s4 spread4", s, n, cublas_ms);
    } else {  // the second: FFMA order, deeper stages, f10
      run<gk::f08::Config<256, 128, 16, 4, 0>>("256x128 bk16 s4 (f08)", s, n, cublas_ms);
      run<gk::f08::Config<256, 128, 16, 4, 0, true>>("256x128 bk16 s4 serp", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 8, 4, 0>>("128x256 bk8 s4", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 8, 4, 0, true>>("128x256 bk8 s4 serp", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 8, 6, 0>>("128x256 bk8 s6", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 8, 6, 0, true>>("128x256 bk8 s6 serp", s, n, cublas_ms);
      run<gk::f08::Config<128, 256, 16, 4, 0, true>>("128x256 bk16 s4 serp", s, n, cublas_ms);
      run_f10<MajorA::k, false>("f10 128x256 tma", s, n, cublas_ms);
      run_f10<MajorA::k, true>("f10 128x256 tma serp", s, n, cublas_ms);
    }
    cublasDestroy(handle);
    CK(cudaFree(s.a));
    CK(cudaFree(s.b));
    CK(cudaFree(s.d));
    CK(cudaFree(s.ref));
    CK(cudaFree(s.flush));
    CK(cudaFree(s.sink));
  }
  return 0;
}
