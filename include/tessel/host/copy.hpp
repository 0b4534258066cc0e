// tessel/host/copy.hpp — the tile copy kernels (global -> shared -> global,
// 128 x 64 bf16 tiles) behind one launcher, for tests and `tessel bench copy`.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <string_view>

#include "tessel/core/config.hpp"
#include "tessel/host/status.hpp"

namespace tessel {

enum class CopyKernel {
  scalar,     // (a) 64 threads, one element each
  vector,     // (b) 128-bit vectors
  cp_async,   // (c) cp.async loads
  swizzled,   // (d) cp.async into a 128B-swizzled tile
  tma,        // (e) TMA load + TMA store
  transpose,  // (f) transpose through a swizzled tile (dst is N x M)
};

inline constexpr CopyKernel kAllCopyKernels[] = {CopyKernel::scalar,   CopyKernel::vector, CopyKernel::cp_async,
                                                 CopyKernel::swizzled, CopyKernel::tma,    CopyKernel::transpose};

const char* name(CopyKernel k);
/// The kernel named `s` ("scalar", "vector", ...); false if none.
bool parse_copy_kernel(std::string_view s, CopyKernel& out);

/// Copies the row-major M x N bf16 matrix `src` (row stride ld_src elements)
/// to `dst` (row stride ld_dst), or for `transpose` writes its N x M
/// transpose to `dst` (row stride ld_dst >= M).  Asynchronous on `stream`.
/// Rejects, before launching anything: null pointers, empty or negative
/// extents, row strides smaller than a row, and for the vector kernels rows or
/// pointers not aligned to 16 bytes (status `unsupported`, naming the rule).
Status tile_copy(CopyKernel kernel, const __nv_bfloat16* src, __nv_bfloat16* dst, index_t m, index_t n, index_t ld_src,
                 index_t ld_dst, cudaStream_t stream = nullptr);

}  // namespace tessel
