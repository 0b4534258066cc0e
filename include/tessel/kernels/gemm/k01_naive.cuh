// k01 — the naive GEMM: one thread per element of D.
//
// Thread (x, y) of a 16x16 block computes D(i, j) for j = 16*blockIdx.x + x
// (along N) and i = 16*blockIdx.y + y (along M): a loop over K reading A(i,l)
// and B(l,j) straight from global memory through tessel tensors (A as (M,K),
// B as (N,K) whatever their memory order), fp32 accumulation, then the
// epilogue D = alpha*acc + beta*C.  Nothing is reused through shared memory;
// L1 catches what the 16 threads of a row or column share.
//
// Memory traffic per warp (two rows y, y+1 of 16 threads x): each k step
// loads A at 2 addresses (i, i+1) and B at 16 consecutive j: one or two
// 32-byte sectors when B is N-major (B:n), 16 sectors when B is K-major
// (B:k, the 16 columns j are ldb apart).  Two loads and one FFMA per
// multiply-add: the load/store unit, not the FMA pipe, bounds this kernel
// (docs/ladder.md has the measurements).
#pragma once

#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_kernels::k01 {

inline constexpr int kBlockX = 16;  // threads along N
inline constexpr int kBlockY = 16;  // threads along M

template <class T, MajorA MA, MajorB MB>
__global__ void __launch_bounds__(kBlockX* kBlockY) gemm_naive(Params<T> p) {
  const index_t j = static_cast<index_t>(blockIdx.x) * kBlockX + threadIdx.x;
  const index_t i = static_cast<index_t>(blockIdx.y) * kBlockY + threadIdx.y;
  if (i >= p.m || j >= p.n) return;
  const auto A = tensor_a<MA>(p);  // (M,K)
  const auto B = tensor_b<MB>(p);  // (N,K)
  float acc = 0.0f;
#pragma unroll 4
  for (index_t l = 0; l < p.k; ++l) acc += detail::to_float(A(i, l)) * detail::to_float(B(j, l));
  epilogue_element(p, i, j, acc);
}

}  // namespace tessel::gemm_kernels::k01
