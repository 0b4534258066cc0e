// What the launchers of the tensor-core steps (k04..k11) add to dispatch.hpp:
// the grid limit of linear (rastered) grids, the shared-memory opt-in and the
// programmatic (PDL) launch.
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

/// Launches `kernel` by `cfg` (its `args` as cudaLaunchKernelExC takes them),
/// where `programmatic` as the programmatic dependent of the kernel ahead of
/// it on the stream (PDL: it may start before that one ends, so it must wait,
/// arch::sm90::griddep_wait, before reading what that one wrote): the
/// attribute goes after cfg's own, in `attrs`, which holds cfg.attrs' and one
/// more.  A refused programmatic launch is made again plainly, as correct (the
/// wait then returns at once).  The launch's error, cleared where retried.
inline cudaError_t launch_dependent(cudaLaunchConfig_t cfg, cudaLaunchAttribute* attrs, const void* kernel, void** args,
                                    bool programmatic) {
  for (unsigned i = 0; i < cfg.numAttrs; ++i) attrs[i] = cfg.attrs[i];
  cfg.attrs = attrs;
  if (programmatic) {
    attrs[cfg.numAttrs] = cudaLaunchAttribute{};
    attrs[cfg.numAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[cfg.numAttrs++].val.programmaticStreamSerializationAllowed = 1;
    if (cudaLaunchKernelExC(&cfg, kernel, args) == cudaSuccess) return cudaSuccess;
    (void)cudaGetLastError();
    --cfg.numAttrs;
  }
  return cudaLaunchKernelExC(&cfg, kernel, args);
}

}  // namespace tessel::gemm_launch
