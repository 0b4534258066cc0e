// What the launchers of the tensor-core steps (k04..k11) add to dispatch.hpp:
// the grid limit of linear (rastered) grids and the shared-memory opt-in.
#pragma once

#include <string>

#include "src/kernels/gemm/dispatch.hpp"
#include "src/kernels/gemm/launch.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_launch {

inline Status check_tiles_linear(const GemmArgs& a, int bm, int bn, const char* step) {
  const index_t tm = ceil_div(a.m, index_t{bm}), tn = ceil_div(a.n, index_t{bn});
  if (tm * tn > 0x7FFFFFFF) return Status::failure(Status::unsupported, std::string(step) + ": more than 2^31-1 tiles");
  return Status::success();
}

/// Opts `kernel` in to `bytes` of dynamic shared memory (above 48 KB).
template <class K>
Status allow_smem(K* kernel, int bytes, const char* step) {
  const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (e != cudaSuccess)
    return Status::failure(Status::cuda_error, std::string(step) + ": cannot opt in to " + std::to_string(bytes) +
                                                   " bytes of shared memory: " + cudaGetErrorString(e));
  return Status::success();
}

}  // namespace tessel::gemm_launch
