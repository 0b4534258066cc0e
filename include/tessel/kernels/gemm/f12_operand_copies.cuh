// f12 — f11 on copies of the operands it cannot read as A:m, B:n.
//
// Why (measured, docs/ladder-fp32.md, f12): f11 runs 1.02 of cuBLAS's fp32 GEMM at
// 4096^3 and 8192^3 with A M-major and B N-major, but 0.92-0.94 with A
// K-major.  A K-major tile reaches the thread tile's outer product through
// a transposing read of shared memory, and its instance needs 255 registers
// against A:m's 204-254 (f10, f11).  With B K-major f10 and f11 do not run
// their TMA kernel at all (f08's kernel: 0.88-0.92).  Copying such an
// operand to the layout f11 reads best costs one read and one write of it:
// at 4096^3 A is 64 MB, about 50 us of copy against a 2.6 ms product (2 %),
// and the share falls as 1/N (1/M for B).  So f12 copies A K-major (M x K)
// into a packed K x M buffer (A:m), B K-major (N x K) into K x N (B:n), and
// an operand of the right layout whose rows TMA cannot read (a base not
// 16-byte aligned, a leading dimension not a multiple of 4) into a packed
// one; then it runs f11 on the copies.
//
// The transpose: one CTA of 32 x 8 threads per 32 x 32 tile; the tile goes
// through shared memory so that both the read (along the source's rows)
// and the write (along the destination's rows) are 128-byte warp accesses.
#pragma once

#include "tessel/core/config.hpp"

namespace tessel::gemm_kernels::f12 {

inline constexpr int kTile = 32;      // a CTA transposes a kTile x kTile tile
inline constexpr int kThreads = 256;  // 32 x 8: each thread moves kTile / 8 = 4 values each way

/// dst (cols x rows, leading dimension ld_dst) = src (rows x cols, leading
/// dimension ld_src)^T, both row-major fp32: dst[c * ld_dst + r] =
/// src[r * ld_src + c].  A one-dimensional grid of ceil(rows / 32) x
/// ceil(cols / 32) CTAs, tile t at tile row t % tiles_r, tile column
/// t / tiles_r: consecutive CTAs write consecutive pieces of the same rows of
/// dst.  dst's columns past `rows` are not written.
__global__ void __launch_bounds__(kThreads) transpose(const float* __restrict__ src, float* __restrict__ dst,
                                                      index_t rows, index_t cols, index_t ld_src, index_t ld_dst) {
  __shared__ float tile[kTile][kTile + 1];  // +1: a column of the tile spans all 32 banks
  const index_t tiles_r = (rows + kTile - 1) / kTile;
  const index_t t = blockIdx.x;
  const index_t r0 = (t % tiles_r) * kTile, c0 = (t / tiles_r) * kTile;
  const int x = static_cast<int>(threadIdx.x) % 32, y = static_cast<int>(threadIdx.x) / 32;
  TESSEL_UNROLL
  for (int i = y; i < kTile; i += kThreads / 32) {
    const index_t r = r0 + i, c = c0 + x;
    if (r < rows && c < cols) tile[i][x] = src[r * ld_src + c];
  }
  __syncthreads();
  TESSEL_UNROLL
  for (int i = y; i < kTile; i += kThreads / 32) {
    const index_t c = c0 + i, r = r0 + x;
    if (c < cols && r < rows) dst[c * ld_dst + r] = tile[x][i];
  }
}

}  // namespace tessel::gemm_kernels::f12
