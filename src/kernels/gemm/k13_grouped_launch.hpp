// Launchers of k13's batched and grouped kernel (include/tessel/kernels/gemm/
// k13_grouped.cuh): k13_grouped.cu decides whether the kernel serves a call
// and picks the width's translation unit, k13_grouped_n{128,256}.cu build the
// descriptors and launch (k13_grouped_tiles.hpp).
#pragma once

#include <cuda_runtime.h>

#include "tessel/host/gemm.hpp"

namespace tessel::gemm_launch::k13 {

/// `count` checked problems (one with batch >= 1, or a group of batch-1
/// problems sharing types and layout, whose A and B rows TMA can read) in
/// one launch with tile 128 x BN.  One problem: its descriptor is the
/// kernel's parameter; more: the descriptors go to device memory on `stream`.
template <int BN>
Status launch_grouped_tiles(const GemmArgs* problems, int count, cudaStream_t stream);
template <>
Status launch_grouped_tiles<128>(const GemmArgs* problems, int count, cudaStream_t stream);
template <>
Status launch_grouped_tiles<256>(const GemmArgs* problems, int count, cudaStream_t stream);

}  // namespace tessel::gemm_launch::k13
