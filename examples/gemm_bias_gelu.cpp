// A GEMM with a fused epilogue through the installed library (tessel::gemm):
// D = GELU(A * B + bias), the bias one value per column of D (a linear
// layer's), fp16 inputs and an fp32 output, checked against a host reference
// with the tolerance of docs/epilogues.md.  Exits 0 with a message where no
// GPU is present.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "tessel/host/gemm.hpp"

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("gemm_bias_gelu: no CUDA device: skipped (run it on a GPU machine)\n");
    return 0;
  }
  const int m = 200, n = 320, k = 256;
  std::vector<__half> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  std::vector<float> bias(n);
  for (std::size_t x = 0; x < a.size(); ++x) a[x] = __float2half(static_cast<float>(static_cast<int>(x % 7) - 3) / 8);
  for (std::size_t x = 0; x < b.size(); ++x) b[x] = __float2half(static_cast<float>(static_cast<int>(x % 5) - 2) / 4);
  for (int j = 0; j < n; ++j) bias[j] = static_cast<float>(j % 9 - 4) / 2;

  void *da = nullptr, *db = nullptr, *dbias = nullptr, *dd = nullptr;
  const std::size_t d_bytes = static_cast<std::size_t>(m) * n * sizeof(float);
  if (cudaMalloc(&da, a.size() * 2) != cudaSuccess || cudaMalloc(&db, b.size() * 2) != cudaSuccess ||
      cudaMalloc(&dbias, n * sizeof(float)) != cudaSuccess || cudaMalloc(&dd, d_bytes) != cudaSuccess) {
    std::fprintf(stderr, "gemm_bias_gelu: cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dbias, bias.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dd, 0xFF, d_bytes);  // NaN: every element must be written

  tessel::GemmArgs g;  // row-major A (M x K), B (K x N) and D (M x N)
  g.m = m, g.n = n, g.k = k;
  g.ab_type = tessel::DType::f16;
  g.cd_type = tessel::DType::f32;  // the bias has D's type
  g.a = da, g.lda = k;
  g.b = db, g.ldb = n;
  g.d = dd, g.ldd = n;
  g.epilogue.act = tessel::Activation::gelu_tanh;
  g.epilogue.bias_kind = tessel::BiasKind::col;
  g.epilogue.bias = dbias;
  if (const tessel::Status s = tessel::gemm(g); !s) {
    std::fprintf(stderr, "gemm_bias_gelu: tessel::gemm failed: %s\n", s.message.c_str());
    return 1;
  }
  std::vector<float> d(static_cast<std::size_t>(m) * n);
  if (cudaMemcpy(d.data(), dd, d_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::fprintf(stderr, "gemm_bias_gelu: copying D back failed\n");
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double x = bias[j];
      for (int l = 0; l < k; ++l)
        x += static_cast<double>(__half2float(a[static_cast<std::size_t>(i) * k + l])) *
             __half2float(b[static_cast<std::size_t>(l) * n + j]);
      const double gelu = 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
      // tanh.approx.f32's error (2^-10.99 relative) on the 0.5 x tanh(...) term, and fp32's rounding.
      const double err = std::fabs(d[static_cast<std::size_t>(i) * n + j] - gelu);
      wrong += !(err <= std::fabs(x) * std::ldexp(1.0, -10) + std::ldexp(1.0, -20));
    }
  std::printf("gemm_bias_gelu: %d x %d x %d, GELU(A B + bias) with %s: %s\n", m, n, k,
              tessel::gemm_plan(g).why.c_str(), wrong == 0 ? "within tolerance" : "WRONG");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dbias);
  cudaFree(dd);
  return wrong == 0 ? 0 : 1;
}
