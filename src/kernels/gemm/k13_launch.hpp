// Launcher of ladder step k13 (include/tessel/kernels/gemm/k13_wgmma_in_flight.cuh),
// in five translation units so that nvcc compiles the tile widths in
// parallel: k13.cu checks the arguments, resolves the tuning (the plan's,
// tessel/gemm_plan.hpp, where the caller left it 0) and makes the padded
// copies of operands TMA cannot read; k13_n{64,128,192,256}.cu launch the kernels
// of one tile width on operands TMA can read.
#pragma once

#include <cuda_runtime.h>

#include "tessel/host/gemm.hpp"

namespace tessel::gemm_launch::k13 {

/// k13 with tile 128 x BN and g.tuning.splits (>= 1) splits of K, on A and B
/// whose rows TMA can read.
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

}  // namespace tessel::gemm_launch::k13
