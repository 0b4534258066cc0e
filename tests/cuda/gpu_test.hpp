// tests/cuda/gpu_test.hpp — what every GPU test needs: skip with a clear
// message where no GPU is present, and check every CUDA call.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>

namespace tessel::testing {
inline bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
/// n elements of T in device memory, freed on scope exit (ptr is null when
/// the allocation failed: check it).
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(std::size_t n) {
    if (cudaMalloc(&ptr, n * sizeof(T)) != cudaSuccess) ptr = nullptr;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(ptr); }
};
}  // namespace tessel::testing

#define REQUIRE_GPU()                 \
  if (!::tessel::testing::have_gpu()) \
  GTEST_SKIP() << "no CUDA device on this machine: GPU test skipped (it runs on the device)"

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    const cudaError_t err_ = (expr);                                           \
    ASSERT_EQ(err_, cudaSuccess) << #expr << ": " << cudaGetErrorString(err_); \
  } while (0)
