// Launcher of ladder step k15 (include/tessel/kernels/gemm/k15_pingpong.cuh):
// k15.cu checks the arguments, resolves the raster group (the plan's), makes
// the padded copies of operands TMA cannot read and launches the plain
// kernels; k15_epi.cu launches the fused-epilogue ones (a translation unit of
// their own, so that nvcc compiles the two in parallel).
#pragma once

#include <cuda_runtime.h>

#include "tessel/host/gemm.hpp"

namespace tessel::gemm_launch::k15 {

/// k15 on A and B whose rows TMA can read, beta = 0 (check_k15); Fused: the
/// instance that computes g.epilogue (no aux) in the kernel's epilogue.
template <bool Fused>
Status launch_tiles(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_tiles<false>(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_tiles<true>(const GemmArgs& g, cudaStream_t stream);

}  // namespace tessel::gemm_launch::k15

namespace tessel::gemm_launch::k15 {

/// Every batch of checked `g` (batch > 1, beta = 0, no epilogue, A and B
/// TMA-readable as k13's batched kernel wants them) in one launch of k15's
/// batched kernel (k15_grouped.cuh; k15_batched.cu).
Status launch_batched_tiles(const GemmArgs& g, cudaStream_t stream);

}  // namespace tessel::gemm_launch::k15
