// What the launchers of the tensor-core steps (k04..k09) share: the type
// dispatch (input type x layout -> one kernel instantiation), the grid
// limits, and the shared-memory opt-in.
#pragma once

#include <string>

#include "src/kernels/gemm/launch.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_launch {

/// Calls f.template operator()<T, MA, MB>() for the problem's input type and layout.
template <class F>
Status with_mma_types(const GemmArgs& a, F&& f) {
  auto by_layout = [&]<class T>() -> Status {
    const bool ak = a.layout.a == MajorA::k, bn = a.layout.b == MajorB::n;
    if (ak && bn) return f.template operator()<T, MajorA::k, MajorB::n>();
    if (ak) return f.template operator()<T, MajorA::k, MajorB::k>();
    if (bn) return f.template operator()<T, MajorA::m, MajorB::n>();
    return f.template operator()<T, MajorA::m, MajorB::k>();
  };
  if (a.ab_type == DType::bf16) return by_layout.template operator()<__nv_bfloat16>();
  return by_layout.template operator()<__half>();
}

/// The grid rule of tiled steps: tile rows go in gridDim.y (at most 65535)
/// unless the step linearizes its grid.
inline Status check_tiles(const GemmArgs& a, int bm, int bn, const char* step) {
  const index_t tm = (a.m + bm - 1) / bm, tn = (a.n + bn - 1) / bn;
  if (tm > 65535)
    return Status::failure(Status::unsupported, std::string(step) + ": more than 65535 tile rows (M > " +
                                                    std::to_string(65535LL * bm) + ")");
  if (tn > 0x7FFFFFFF) return Status::failure(Status::unsupported, std::string(step) + ": too many tile columns");
  return Status::success();
}
inline Status check_tiles_linear(const GemmArgs& a, int bm, int bn, const char* step) {
  const index_t tm = (a.m + bm - 1) / bm, tn = (a.n + bn - 1) / bn;
  if (tm * tn > 0x7FFFFFFF)
    return Status::failure(Status::unsupported, std::string(step) + ": more than 2^31-1 tiles");
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
