// bench/lab/copy2d.cu — times the copy the TMA steps' launchers (k09..k11) make for an unaligned
// operand: cudaMemcpy2DAsync of a 4095 x 4095 bf16 matrix from 8190-byte to
// 8192-byte rows (median of 20 after 10 warm-up copies).  docs/ladder.md quotes it.
//   nvcc -O2 -o build/lab/copy2d bench/lab/copy2d.cu && build/lab/copy2d
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
int main() {
  const size_t rows = 4095, cols = 4095, sp = 4095 * 2, dp = 4096 * 2;
  void *s, *d;
  cudaMalloc(&s, rows * sp);
  cudaMalloc(&d, rows * dp);
  cudaMemset(s, 1, rows * sp);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int i = 0; i < 30; ++i) {
    cudaEventRecord(a);
    cudaMemcpy2DAsync(d, dp, s, sp, cols * 2, rows, cudaMemcpyDeviceToDevice, 0);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (i >= 10) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  printf("cudaMemcpy2DAsync 4095x4095 bf16, 8190 -> 8192 byte rows: median %.1f us (%.0f GB/s r+w)\n",
         t[t.size() / 2] * 1e3, 2.0 * rows * cols * 2 / (t[t.size() / 2] * 1e-3) / 1e9);
  return cudaGetLastError();
}
