#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "tessel/host/gemm.hpp"
using namespace tessel;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(1);} } while (0)
#define DECL(n) bool run_v##n(const GemmArgs&, cudaStream_t, int);
LAB_DECLS
struct Var { const char* name; bool (*fn)(const GemmArgs&, cudaStream_t, int); };
__global__ void init(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    p[i] = __float2bfloat16((float)((int)(h % 5) - 2));
  }
}
__global__ void initr(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    p[i] = __float2bfloat16((float)(h & 0xFFFFFF) / 8388608.0f - 1.0f);
  }
}
int main(int argc, char** argv) {
  const index_t M = argc > 1 ? atol(argv[1]) : 4096, N = argc > 2 ? atol(argv[2]) : 4096, K = argc > 3 ? atol(argv[3]) : 4096;
  const int iters = argc > 4 ? atoi(argv[4]) : 50;
  const char* only = argc > 5 ? argv[5] : nullptr;
  Var vars[] = {LAB_VARS};
  int dev = 0, sms = 0, l2 = 0; CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, dev));
  std::printf("%s, %d SMs, %lldx%lldx%lld bf16 A:k B:n\n", prop.name, sms, (long long)M, (long long)N, (long long)K);
  __nv_bfloat16 *A, *B, *D, *R; char* flush; size_t fl = 2 * (size_t)l2;
  CK(cudaMalloc(&A, M * K * 2)); CK(cudaMalloc(&B, K * N * 2)); CK(cudaMalloc(&D, M * N * 2)); CK(cudaMalloc(&R, M * N * 2)); CK(cudaMalloc(&flush, fl));
  init<<<1024, 256>>>(A, M * K, 1u); init<<<1024, 256>>>(B, K * N, 7u); CK(cudaGetLastError());
  GemmArgs g; g.m = M; g.n = N; g.k = K; g.layout = GemmLayout{}; g.a = A; g.lda = K; g.b = B; g.ldb = N; g.d = R; g.ldd = N;
  CK(cudaMemset(R, 0xFF, M * N * 2));
  Status s = gemm(GemmImpl::k09_best_mma_sync, g); if (!s) { std::printf("ref: %s\n", s.message.c_str()); return 1; }
  CK(cudaDeviceSynchronize());
  std::vector<unsigned short> hr(M * N), hd(M * N);
  CK(cudaMemcpy(hr.data(), R, M * N * 2, cudaMemcpyDeviceToHost));
  size_t zeros = 0; for (auto v : hr) zeros += (v == 0);
  std::printf("reference: %zu of %lld zero\n", zeros, (long long)(M * N));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto time_one = [&](auto&& launch) {
    std::vector<float> ts;
    for (int i = 0; i < 10; ++i) launch();
    for (int i = 0; i < iters; ++i) {
      CK(cudaMemsetAsync(flush, i & 0xFF, fl));
      CK(cudaEventRecord(e0)); launch(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end()); return ts[ts.size() / 2];
  };
  const double flop = 2.0 * M * N * K;
  for (auto& v : vars) {
    if (only && std::strcmp(v.name, only) != 0) continue;
    g.d = D;
    CK(cudaMemset(D, 0xFF, M * N * 2));
    if (!v.fn(g, nullptr, sms)) { std::printf("%s: launch failed\n", v.name); continue; }
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hd.data(), D, M * N * 2, cudaMemcpyDeviceToHost));
    size_t bad = 0; for (size_t i = 0; i < hd.size(); ++i) bad += hd[i] != hr[i];
    std::printf("verify %-6s mismatches %zu\n", v.name, bad);
  }
  initr<<<1024, 256>>>(A, M * K, 3u); initr<<<1024, 256>>>(B, K * N, 9u); CK(cudaGetLastError());
  std::printf("timing on uniform [-1,1] data\n");
  for (int rep = 0; rep < 2; ++rep) {
    if (!only || std::strcmp(only, "lib") == 0) {  // `lib` alone times only the library's k09
      g.d = R;
      float ms = time_one([&] { (void)gemm(GemmImpl::k09_best_mma_sync, g); });
      std::printf("rep %d  %-14s %8.3f ms %7.1f TFLOP/s\n", rep, "k09(lib)", ms, flop / ms / 1e9);
    }
    for (auto& v : vars) {
      if (only && std::strcmp(v.name, only) != 0) continue;
      g.d = D;
      float ms = time_one([&] { v.fn(g, nullptr, sms); });
      std::printf("rep %d  %-14s %8.3f ms %7.1f TFLOP/s\n", rep, v.name, ms, flop / ms / 1e9);
    }
  }
  return 0;
}
