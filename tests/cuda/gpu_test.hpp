// tests/cuda/gpu_test.hpp — what every GPU test needs: skip with a clear
// message where no GPU is present, and check every CUDA call.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace tessel::testing {
inline bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
/// Is device 0 a Hopper (sm_90) GPU?  `why` says why not.
inline bool have_sm90(std::string& why) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    why = "no CUDA device on this machine: GPU test skipped (it runs on the device)";
    return false;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || prop.major != 9) {
    why = std::string("device 0 is not an sm_90 GPU (") + prop.name + "): Hopper test skipped";
    return false;
  }
  return true;
}
/// n elements of T in device memory, freed on scope exit (ptr is null when
/// the allocation failed: check it).
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(std::size_t count) : n(count) {
    if (cudaMalloc(&ptr, n * sizeof(T)) != cudaSuccess) ptr = nullptr;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(ptr); }
  cudaError_t upload(const std::vector<T>& h) {
    return cudaMemcpy(ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  cudaError_t fill_bytes(int byte) { return cudaMemset(ptr, byte, n * sizeof(T)); }
  cudaError_t download(std::vector<T>& h) const {
    h.resize(n);
    return cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost);
  }
};
}  // namespace tessel::testing

#define REQUIRE_GPU()                 \
  if (!::tessel::testing::have_gpu()) \
  GTEST_SKIP() << "no CUDA device on this machine: GPU test skipped (it runs on the device)"

/// Skips a Hopper test, with the reason, where device 0 is not an sm_90 GPU.
#define REQUIRE_SM90()                                             \
  do {                                                             \
    std::string why_;                                              \
    if (!::tessel::testing::have_sm90(why_)) GTEST_SKIP() << why_; \
  } while (0)

/// Skips a GEMM call with inputs of type `ab` (fp32: the fp32 ladder) and
/// layout `layout` where this build holds one instance a step
/// (TESSEL_GEMM_INSTANCES=one, the define tessel::kernels passes its
/// targets): the library refuses it there by design, with its rule.
#if defined(TESSEL_GEMM_BUILT_ONE)
#define SKIP_UNBUILT_GEMM(fp32, ab, layout)                                       \
  do {                                                                            \
    if (!::tessel::is_one_instance_call((fp32), (ab), (layout)))                  \
      GTEST_SKIP() << "this build holds " << ::tessel::one_instance_rule((fp32)); \
  } while (0)
#else
#define SKIP_UNBUILT_GEMM(fp32, ab, layout) (void)0
#endif

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    const cudaError_t err_ = (expr);                                           \
    ASSERT_EQ(err_, cudaSuccess) << #expr << ": " << cudaGetErrorString(err_); \
  } while (0)
