// bench/lab/fixed_cost.cu — what one small GEMM call costs beyond its kernel,
// tessel::gemm(auto) against cuBLASLt, per shape (default: M, N in {256,
// 512, 1024}, K = 256, bf16, A:k, B:n, beta 0):
//   host     host microseconds per call, 2000 calls back to back (the
//            launch path: checks, plan, tensor maps, launch; cuBLASLt with
//            the heuristic's algorithm found once, as an application keeps it)
//   stream   device microseconds per call of 500 calls back to back on one
//            stream, no flush (the operands stay in L2): kernel + gaps
//   graph    the same 500 calls captured in a CUDA graph and replayed:
//            kernel + the device's own launch gap, no host
//   alone    median of 50 single calls, each behind an L2 flush (a read of
//            2x L2), between events: what `tessel bench gemm` measures
// Build (after the CLI's build in BUILD):
//   nvcc -std=c++20 -O2 -arch=sm_90a --expt-relaxed-constexpr -I. -Iinclude bench/lab/fixed_cost.cu \
//     BUILD/libtessel_kernels.a BUILD/libtessel_jit.a -lcublasLt -o fixed_cost
// Run: fixed_cost [MxNxK ...]
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tessel/host/gemm.hpp"

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)
#define CHECK_LT(x)                                                              \
  do {                                                                           \
    cublasStatus_t s_ = (x);                                                     \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                           \
      std::fprintf(stderr, "%s:%d: cublas status %d\n", __FILE__, __LINE__, s_); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

__global__ void fill(__nv_bfloat16* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    p[i] = __float2bfloat16(static_cast<float>(h % 2001) / 1000.0f - 1.0f);
  }
}
__global__ void flush_read(const uint4* w, std::size_t n, unsigned* sink) {
  unsigned s = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s ^= w[i].x;
  if (s == 0x12345u) *sink = s;
}

struct Lt {
  cublasLtHandle_t h = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulHeuristicResult_t heur{};
  void* ws = nullptr;
  std::size_t ws_bytes = 32u << 20;
};

int main(int argc, char** argv) {
  std::vector<std::array<long, 3>> shapes;
  for (int i = 1; i < argc; ++i) {
    long m = 0, n = 0, k = 0;
    if (std::sscanf(argv[i], "%ldx%ldx%ld", &m, &n, &k) == 3) shapes.push_back({m, n, k});
  }
  if (shapes.empty())
    for (long m : {256, 512, 1024})
      for (long n : {256, 512, 1024}) shapes.push_back({m, n, 256});
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const std::size_t flush_bytes = 2 * static_cast<std::size_t>(l2);
  void* flush = nullptr;
  CHECK(cudaMalloc(&flush, flush_bytes + 16));
  CHECK(cudaMemset(flush, 0, flush_bytes + 16));
  Lt lt;
  CHECK_LT(cublasLtCreate(&lt.h));
  CHECK(cudaMalloc(&lt.ws, lt.ws_bytes));
  std::printf("%-16s %-42s %9s %9s %9s %9s %9s %9s %9s %9s\n", "shape", "tessel plan", "host_t", "host_cl", "strm_t",
              "strm_cl", "graph_t", "graph_cl", "alone_t", "alone_cl");
  for (const auto& sh : shapes) {
    const long m = sh[0], n = sh[1], k = sh[2];
    __nv_bfloat16 *a, *b, *d, *dc;
    CHECK(cudaMalloc(&a, m * k * 2));
    CHECK(cudaMalloc(&b, k * n * 2));
    CHECK(cudaMalloc(&d, m * n * 2));
    CHECK(cudaMalloc(&dc, m * n * 2));
    fill<<<256, 256, 0, s>>>(a, m * k, 1);
    fill<<<256, 256, 0, s>>>(b, k * n, 2);
    tessel::GemmArgs g;
    g.m = m, g.n = n, g.k = k;
    g.a = a, g.lda = k, g.b = b, g.ldb = n, g.d = d, g.ldd = n;
    // cuBLASLt on the transposed problem (column-major D^T = B^T A^T).
    CHECK_LT(cublasLtMatmulDescCreate(&lt.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK_LT(cublasLtMatrixLayoutCreate(&lt.la, CUDA_R_16BF, n, k, n));
    CHECK_LT(cublasLtMatrixLayoutCreate(&lt.lb, CUDA_R_16BF, k, m, k));
    CHECK_LT(cublasLtMatrixLayoutCreate(&lt.lc, CUDA_R_16BF, n, m, n));
    cublasLtMatmulPreference_t pref;
    CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &lt.ws_bytes,
                                                  sizeof lt.ws_bytes));
    int found = 0;
    CHECK_LT(cublasLtMatmulAlgoGetHeuristic(lt.h, lt.op, lt.la, lt.lb, lt.lc, lt.lc, pref, 1, &lt.heur, &found));
    const float alpha = 1, beta = 0;
    const auto run_t = [&] {
      const tessel::Status st = tessel::gemm(g, s);
      if (!st) {
        std::fprintf(stderr, "tessel: %s\n", st.message.c_str());
        std::exit(1);
      }
    };
    const auto run_c = [&] {
      CHECK_LT(cublasLtMatmul(lt.h, lt.op, &alpha, b, lt.la, a, lt.lb, &beta, dc, lt.lc, dc, lt.lc, &lt.heur.algo,
                              lt.ws, lt.ws_bytes, s));
    };
    const auto host_us = [&](auto&& f) {
      for (int i = 0; i < 200; ++i) f();
      CHECK(cudaStreamSynchronize(s));
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 2000; ++i) f();
      const auto t1 = std::chrono::steady_clock::now();
      CHECK(cudaStreamSynchronize(s));
      return std::chrono::duration<double, std::micro>(t1 - t0).count() / 2000;
    };
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const auto stream_us = [&](auto&& f) {
      for (int i = 0; i < 50; ++i) f();
      CHECK(cudaEventRecord(e0, s));
      for (int i = 0; i < 500; ++i) f();
      CHECK(cudaEventRecord(e1, s));
      CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      return 1000.0 * ms / 500;
    };
    const auto graph_us = [&](auto&& f) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < 500; ++i) f();
      CHECK(cudaStreamEndCapture(s, &graph));
      CHECK(cudaGraphInstantiate(&exec, graph, 0));
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaEventRecord(e0, s));
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaEventRecord(e1, s));
      CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      CHECK(cudaGraphExecDestroy(exec));
      CHECK(cudaGraphDestroy(graph));
      return 1000.0 * ms / 500;
    };
    const auto alone_us = [&](auto&& f) {
      std::vector<float> v;
      for (int i = 0; i < 50; ++i) {
        flush_read<<<1024, 256, 0, s>>>(static_cast<const uint4*>(flush), flush_bytes / 16,
                                        static_cast<unsigned*>(flush) + flush_bytes / 4);
        CHECK(cudaEventRecord(e0, s));
        f();
        CHECK(cudaEventRecord(e1, s));
        CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        v.push_back(1000.0f * ms);
      }
      std::nth_element(v.begin(), v.begin() + 25, v.end());
      return static_cast<double>(v[25]);
    };
    const std::string plan = tessel::gemm_plan(g).why;
    const double ht = host_us(run_t), hc = host_us(run_c);
    const double st = stream_us(run_t), sc = stream_us(run_c);
    const double gt = graph_us(run_t), gc = graph_us(run_c);
    const double at = alone_us(run_t), ac = alone_us(run_c);
    char name[64];
    std::snprintf(name, sizeof name, "%ldx%ldx%ld", m, n, k);
    std::printf("%-16s %-42.42s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", name, plan.c_str(), ht, hc, st, sc,
                gt, gc, at, ac);
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(lt.la);
    cublasLtMatrixLayoutDestroy(lt.lb);
    cublasLtMatrixLayoutDestroy(lt.lc);
    cublasLtMatmulDescDestroy(lt.op);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(d));
    CHECK(cudaFree(dc));
  }
  return 0;
}
