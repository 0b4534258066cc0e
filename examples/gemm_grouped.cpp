// A grouped GEMM through the installed library (tessel::gemm_grouped): the
// experts of a mixture-of-experts layer, each with its own weights and its
// own number of tokens, in one launch.  fp16 in, fp32 out, small integers, so
// that every result is exact and checked bit for bit.  Exits 0 with a
// message where no GPU is present.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "tessel/host/gemm.hpp"

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("gemm_grouped: no CUDA device: skipped (run it on a GPU machine)\n");
    return 0;
  }
  const int n = 256, k = 192;
  const std::vector<int> tokens = {1, 37, 128, 300};  // M of each expert
  std::vector<std::vector<__half>> a, b;
  std::vector<void*> da, db, dd;
  std::vector<tessel::GemmArgs> group;
  for (std::size_t e = 0; e < tokens.size(); ++e) {
    const int m = tokens[e];
    a.emplace_back(static_cast<std::size_t>(m) * k);
    b.emplace_back(static_cast<std::size_t>(k) * n);
    for (std::size_t x = 0; x < a[e].size(); ++x) a[e][x] = __float2half(static_cast<float>((x + e) % 7) - 3);
    for (std::size_t x = 0; x < b[e].size(); ++x) b[e][x] = __float2half(static_cast<float>((2 * x + e) % 5) - 2);
    void *pa = nullptr, *pb = nullptr, *pd = nullptr;
    const std::size_t d_bytes = static_cast<std::size_t>(m) * n * sizeof(float);
    if (cudaMalloc(&pa, a[e].size() * 2) != cudaSuccess || cudaMalloc(&pb, b[e].size() * 2) != cudaSuccess ||
        cudaMalloc(&pd, d_bytes) != cudaSuccess) {
      std::fprintf(stderr, "gemm_grouped: cudaMalloc failed\n");
      return 1;
    }
    cudaMemcpy(pa, a[e].data(), a[e].size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(pb, b[e].data(), b[e].size() * 2, cudaMemcpyHostToDevice);
    cudaMemset(pd, 0xFF, d_bytes);
    da.push_back(pa), db.push_back(pb), dd.push_back(pd);
    tessel::GemmArgs g;  // shared: types and layout; per expert: M and the pointers
    g.m = m, g.n = n, g.k = k;
    g.ab_type = tessel::DType::f16;
    g.cd_type = tessel::DType::f32;
    g.a = pa, g.lda = k;
    g.b = pb, g.ldb = n;
    g.d = pd, g.ldd = n;
    group.push_back(g);
  }
  const int count = static_cast<int>(group.size());
  if (const tessel::Status s = tessel::gemm_grouped(group.data(), count); !s) {
    std::fprintf(stderr, "gemm_grouped: tessel::gemm_grouped failed: %s\n", s.message.c_str());
    return 1;
  }
  int wrong = 0;
  for (std::size_t e = 0; e < tokens.size(); ++e) {
    const int m = tokens[e];
    std::vector<float> d(static_cast<std::size_t>(m) * n);
    cudaMemcpy(d.data(), dd[e], d.size() * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        float ref = 0;  // |ref| <= 6 K: exact in fp32, as the kernel's sum
        for (int l = 0; l < k; ++l)
          ref += __half2float(a[e][static_cast<std::size_t>(i) * k + l]) *
                 __half2float(b[e][static_cast<std::size_t>(l) * n + j]);
        wrong += ref != d[static_cast<std::size_t>(i) * n + j];
      }
    cudaFree(da[e]);
    cudaFree(db[e]);
    cudaFree(dd[e]);
  }
  std::printf("gemm_grouped: %d experts (M 1, 37, 128, 300; N %d, K %d) with %s: %s\n", count, n, k,
              tessel::gemm_plan_grouped(group.data(), count).why.c_str(), wrong == 0 ? "bit-exact" : "WRONG");
  return wrong == 0 ? 0 : 1;
}
