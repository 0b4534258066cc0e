// A GEMM from C++ through the installed library (tessel::gemm):
// D = A * B in bf16 with fp32 accumulation, tessel's plan choosing the
// kernel, checked bit for bit against a host reference on small integers.
// Plain C++: the kernels are in the library, this program only calls them.
// Exits 0 with a message where no GPU is present.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tessel/host/gemm.hpp"

namespace {

// bf16 is the top half of an fp32, rounded to nearest even (as the kernels
// round their fp32 sums; finite values only).
std::uint16_t to_bf16(float x) {
  std::uint32_t u = 0;
  std::memcpy(&u, &x, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}
float from_bf16(std::uint16_t h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float x = 0;
  std::memcpy(&x, &u, 4);
  return x;
}

bool cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "gemm_bf16: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("gemm_bf16: no CUDA device: skipped (run it on a GPU machine)\n");
    return 0;
  }
  const int m = 256, n = 384, k = 512;
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  for (int i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l) a[static_cast<std::size_t>(i) * k + l] = to_bf16(static_cast<float>((i + 2 * l) % 7 - 3));
  for (int l = 0; l < k; ++l)
    for (int j = 0; j < n; ++j) b[static_cast<std::size_t>(l) * n + j] = to_bf16(static_cast<float>((3 * l + j) % 5 - 2));

  void *da = nullptr, *db = nullptr, *dd = nullptr;
  const std::size_t d_bytes = static_cast<std::size_t>(m) * n * 2;
  if (!cuda_ok(cudaMalloc(&da, a.size() * 2), "cudaMalloc") || !cuda_ok(cudaMalloc(&db, b.size() * 2), "cudaMalloc") ||
      !cuda_ok(cudaMalloc(&dd, d_bytes), "cudaMalloc"))
    return 1;
  cuda_ok(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice), "copy A");
  cuda_ok(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice), "copy B");
  cuda_ok(cudaMemset(dd, 0xFF, d_bytes), "poison D");

  tessel::GemmArgs g;  // A:k (row-major M x K), B:n (row-major K x N), D row-major
  g.m = m, g.n = n, g.k = k;
  g.a = da, g.lda = k;
  g.b = db, g.ldb = n;
  g.d = dd, g.ldd = n;
  const tessel::Status s = tessel::gemm(g);  // the plan chooses (tessel::gemm_plan(g).why says which)
  if (!s) {
    std::fprintf(stderr, "gemm_bf16: tessel::gemm failed: %s\n", s.message.c_str());
    return 1;
  }
  std::vector<std::uint16_t> d(static_cast<std::size_t>(m) * n);
  if (!cuda_ok(cudaMemcpy(d.data(), dd, d_bytes, cudaMemcpyDeviceToHost), "copy D")) return 1;
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float ref = 0;
      for (int l = 0; l < k; ++l)
        ref += from_bf16(a[static_cast<std::size_t>(i) * k + l]) * from_bf16(b[static_cast<std::size_t>(l) * n + j]);
      // |ref| <= 3072 and the fp32 sum is exact: both sides round it alike.
      wrong += to_bf16(ref) != d[static_cast<std::size_t>(i) * n + j];
    }
  std::printf("gemm_bf16: %d x %d x %d with %s: %s\n", m, n, k, tessel::gemm_plan(g).why.c_str(),
              wrong == 0 ? "bit-exact" : "WRONG");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dd);
  return wrong == 0 ? 0 : 1;
}
