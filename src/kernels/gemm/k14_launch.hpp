// Launcher of ladder step k14 (include/tessel/kernels/gemm/k14_cluster_multicast.cuh),
// in the pattern of k13's: k14.cu checks the arguments, resolves the tile
// width (the caller's, else the plan's) and makes the padded copies of
// operands TMA cannot read; k14_n{64,128,192,256}.cu launch the kernels of
// one tile width.
#pragma once

#include <cuda_runtime.h>

#include "tessel/host/gemm.hpp"

namespace tessel::gemm_launch::k14 {

/// k14 with tile 128 x BN on A and B whose rows TMA can read.
template <int BN>
Status launch_tiles(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_tiles<64>(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_tiles<128>(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_tiles<192>(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_tiles<256>(const GemmArgs& g, cudaStream_t stream);
/// k14 with the one-warpgroup tile 64 x 128 (GemmTuning::tile_m = 64): clusters of M-neighbours sharing B.
Status launch_tiles_m64_n128(const GemmArgs& g, cudaStream_t stream);

}  // namespace tessel::gemm_launch::k14
