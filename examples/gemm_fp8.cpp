// An FP8 GEMM from C++ through the installed library (docs/fp8.md):
// D (bf16) = alpha * A * B with A and B in e4m3, both K-major (B stored N x
// K), per-tensor scales folded into alpha, the sums promoted into fp32 as by
// default; checked bit for bit against a host reference on small integers.
// Exits 0 with a message where no GPU is present.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tessel/host/gemm.hpp"

namespace {

// e4m3 (bias 7, three mantissa bits) of the integers -4..4, which it holds exactly.
std::uint8_t to_e4m3(int v) {
  static const std::uint8_t kMagnitude[5] = {0x00, 0x38, 0x40, 0x44, 0x48};  // 0, 1, 2, 3, 4
  return static_cast<std::uint8_t>(kMagnitude[v < 0 ? -v : v] | (v < 0 ? 0x80 : 0));
}
std::uint16_t to_bf16(float x) {  // nearest even, finite values
  std::uint32_t u = 0;
  std::memcpy(&u, &x, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

bool cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "gemm_fp8: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("gemm_fp8: no CUDA device: skipped (run it on an sm_90 GPU)\n");
    return 0;
  }
  const int m = 256, n = 384, k = 512;
  std::vector<int> ai(static_cast<std::size_t>(m) * k), bi(static_cast<std::size_t>(n) * k);
  std::vector<std::uint8_t> a(ai.size()), b(bi.size());
  for (std::size_t i = 0; i < ai.size(); ++i) a[i] = to_e4m3(ai[i] = static_cast<int>((i * 7 + i / k) % 9) - 4);
  for (std::size_t i = 0; i < bi.size(); ++i) b[i] = to_e4m3(bi[i] = static_cast<int>((i * 5 + i / k) % 9) - 4);
  const float scale_a = 0.5f, scale_b = 0.25f;  // per-tensor dequantization scales

  void *da = nullptr, *db = nullptr, *dd = nullptr;
  const std::size_t d_bytes = static_cast<std::size_t>(m) * n * 2;
  if (!cuda_ok(cudaMalloc(&da, a.size()), "cudaMalloc") || !cuda_ok(cudaMalloc(&db, b.size()), "cudaMalloc") ||
      !cuda_ok(cudaMalloc(&dd, d_bytes), "cudaMalloc"))
    return 1;
  cuda_ok(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice), "copy A");
  cuda_ok(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice), "copy B");
  cuda_ok(cudaMemset(dd, 0xFF, d_bytes), "poison D");

  tessel::GemmArgs g;
  g.ab_type = tessel::DType::e4m3;
  g.cd_type = tessel::DType::bf16;
  g.layout = {tessel::MajorA::k, tessel::MajorB::k};  // A row-major M x K, B row-major N x K
  g.m = m, g.n = n, g.k = k;
  g.a = da, g.lda = k;
  g.b = db, g.ldb = k;
  g.d = dd, g.ldd = n;
  g.alpha = scale_a * scale_b;
  const tessel::Status s = tessel::gemm(g);
  if (!s) {
    std::fprintf(stderr, "gemm_fp8: tessel::gemm failed: %s\n", s.message.c_str());
    return 1;
  }
  std::vector<std::uint16_t> d(static_cast<std::size_t>(m) * n);
  if (!cuda_ok(cudaMemcpy(d.data(), dd, d_bytes, cudaMemcpyDeviceToHost), "copy D")) return 1;
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      long sum = 0;
      for (int l = 0; l < k; ++l)
        sum += ai[static_cast<std::size_t>(i) * k + l] * bi[static_cast<std::size_t>(j) * k + l];
      // |sum| <= 8192: exact in the sums and in fp32; alpha is a power of two.
      wrong += to_bf16(static_cast<float>(sum) * g.alpha) != d[static_cast<std::size_t>(i) * n + j];
    }
  std::printf("gemm_fp8: %d x %d x %d with %s: %s\n", m, n, k, tessel::gemm_plan(g).why.c_str(),
              wrong == 0 ? "bit-exact" : "WRONG");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dd);
  return wrong == 0 ? 0 : 1;
}
