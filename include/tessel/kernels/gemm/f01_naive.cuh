// f01 — the naive fp32 GEMM: one thread per element of D, on fp32 A and B.
//
// The kernel is k01's (k01::gemm_naive, instantiated with T = float): thread
// (x, y) of a 16x16 block computes D(i, j), j = 16*blockIdx.x + x along N,
// i = 16*blockIdx.y + y along M, by a loop over K that reads A(i,l) and
// B(l,j) straight from global memory through tessel tensors (all four
// layouts are strides), fp32 FFMA, then D = alpha*acc + beta*C.  Only the
// element type is new: the idea (no reuse through shared memory) is the
// same, so the code is shared rather than copied.
//
// What bounds it on an H100.  Every FFMA needs two loads (LDG): a warp
// issues 2 LDG per FFMA, and the load/store unit accepts far fewer
// instructions per clock than the FMA pipes (4 warp-FFMAs per SM and clock).
// The L1 serves most of it (a warp's 2 rows of A are broadcast, B:n is 16
// consecutive floats, 64 bytes), but the issue rate of the LSU, not the
// bytes, is the limit.  With B:k a warp's 16 columns of B are ldb apart: 16
// sectors per load (docs/ladder-fp32.md, f01).
#pragma once

#include "tessel/kernels/gemm/k01_naive.cuh"

namespace tessel::gemm_kernels::f01 {

using k01::kBlockX;
using k01::kBlockY;

/// The fp32 kernel: k01's, with float A and B (C and D are fp32 too: the
/// launcher's checks make cd_type f32).
template <MajorA MA, MajorB MB>
inline constexpr auto kernel = &k01::gemm_naive<float, MA, MB>;

}  // namespace tessel::gemm_kernels::f01
