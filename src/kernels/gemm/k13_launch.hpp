// Launcher of ladder step k13 (include/tessel/kernels/gemm/k13_wgmma_in_flight.cuh),
// in seven translation units so that nvcc compiles the tile widths in
// parallel: k13.cu checks the arguments, resolves the tuning (the plan's,
// tessel/gemm_plan.hpp, where the caller left it 0), makes the padded copies
// of operands TMA cannot read and swaps A and B where the tuning says so;
// k13_n{16,32,64,128,192,256}.cu launch the kernels of one tile width on
// operands TMA can read, k13_epi_n{64,128,256}.cu the fused-epilogue ones.
#pragma once

#include <cuda_runtime.h>

#include "tessel/host/gemm.hpp"

namespace tessel::gemm_launch::k13 {

/// k13 with tile 128 x BN and g.tuning.splits (>= 1) splits of K, on A and B
/// whose rows TMA can read.  `transposed`: g is the swapped problem (k13.cu's
/// swapped()), whose D and C the kernel writes and reads transposed; only
/// BN <= 64 takes it, and BN < 64 takes nothing else.
template <int BN>
Status launch_tiles(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<16>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<32>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<64>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<128>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<192>(const GemmArgs& g, cudaStream_t stream, bool transposed);
template <>
Status launch_tiles<256>(const GemmArgs& g, cudaStream_t stream, bool transposed);

/// k13's fused-epilogue instance with tile 128 x BN (BN = 64, 128, 256;
/// k13_epi_n{64,128,256}.cu): D = act(alpha * A B + beta * C + bias) and
/// aux, g.epilogue, computed in the kernel's epilogue; unswapped problems,
/// g.tuning.splits (>= 1) splits of K, A and B whose rows TMA can read.
template <int BN>
Status launch_fused_tiles(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_fused_tiles<64>(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_fused_tiles<128>(const GemmArgs& g, cudaStream_t stream);
template <>
Status launch_fused_tiles<256>(const GemmArgs& g, cudaStream_t stream);

}  // namespace tessel::gemm_launch::k13
