// Stream-ordered scratch memory for the GEMM launchers (split K's partial
// tiles and counters), from a memory pool of tessel's own per device.
//
// Why a pool of our own: the device's default pool has a release threshold of
// 0, so every synchronization hands freed memory back to the driver and the
// next cudaMallocAsync maps it again, on the stream, inside the launch's
// time: on an H100, k13 with two splits measured 0.39 of cuBLASLt (geometric
// mean of bench/k13_tuning.sh's small shapes) from the default pool and 0.67
// from this one.  tessel's pool keeps up to kKeepBytes of freed memory
// mapped for reuse; the user's default pool is left as it is.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace tessel::gemm_launch {

inline constexpr std::uint64_t kKeepBytes = std::uint64_t{512} << 20;  // kept mapped after a sync

/// tessel's pool on `device`, created on first use (nullptr if it cannot be).
inline cudaMemPool_t workspace_pool(int device) {
  constexpr int kDevices = 64;
  static std::mutex mutex;
  static cudaMemPool_t pools[kDevices] = {};
  if (device < 0 || device >= kDevices) return nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (pools[device] == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: the caller reports the allocation failure
      return nullptr;
    }
    std::uint64_t keep = kKeepBytes;
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    pools[device] = pool;
  }
  return pools[device];
}

/// `bytes` from tessel's pool on the current device, ordered on `stream`;
/// nullptr (error cleared) when it cannot be had.  Free with cudaFreeAsync.
inline void* workspace_alloc(std::size_t bytes, cudaStream_t stream) {
  int device = 0;
  void* p = nullptr;
  cudaMemPool_t pool = nullptr;
  if (cudaGetDevice(&device) != cudaSuccess || (pool = workspace_pool(device)) == nullptr ||
      cudaMallocFromPoolAsync(&p, bytes, pool, stream) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return p;
}

}  // namespace tessel::gemm_launch
