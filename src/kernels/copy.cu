// Launchers of the tile copy kernels (include/tessel/kernels/copy/), bf16.
#include <cstdint>
#include <string>

#include "tessel/host/copy.hpp"
#include "tessel/kernels/copy/k1_scalar.cuh"
#include "tessel/kernels/copy/k2_vector.cuh"
#include "tessel/kernels/copy/k3_cp_async.cuh"
#include "tessel/kernels/copy/k4_swizzled.cuh"
#include "tessel/kernels/copy/k5_tma.cuh"
#include "tessel/kernels/copy/k6_transpose.cuh"

namespace tessel {

const char* name(CopyKernel k) {
  switch (k) {
    case CopyKernel::scalar:
      return "scalar";
    case CopyKernel::vector:
      return "vector";
    case CopyKernel::cp_async:
      return "cp_async";
    case CopyKernel::swizzled:
      return "swizzled";
    case CopyKernel::tma:
      return "tma";
    case CopyKernel::transpose:
      return "transpose";
  }
  return "unknown";
}

bool parse_copy_kernel(std::string_view s, CopyKernel& out) {
  for (CopyKernel k : kAllCopyKernels)
    if (s == name(k)) {
      out = k;
      return true;
    }
  return false;
}

namespace {

using bf16 = __nv_bfloat16;

Status check(CopyKernel kernel, const bf16* src, const bf16* dst, index_t m, index_t n, index_t ld_src,
             index_t ld_dst) {
  const bool transpose = kernel == CopyKernel::transpose;
  if (src == nullptr || dst == nullptr)
    return Status::failure(Status::invalid_argument, "src and dst must not be null");
  if (m < 1 || n < 1)
    return Status::failure(Status::invalid_argument,
                           "extents must be positive (got " + std::to_string(m) + " x " + std::to_string(n) + ")");
  if (ld_src < n) return Status::failure(Status::invalid_argument, "ld_src must be at least n (a row of src)");
  if (ld_dst < (transpose ? m : n))
    return Status::failure(Status::invalid_argument, transpose ? "ld_dst must be at least m (a row of the transpose)"
                                                               : "ld_dst must be at least n");
  const index_t tiles_m = ceil_div(m, index_t{copy_kernels::kTileM});
  const index_t tiles_n = ceil_div(n, index_t{copy_kernels::kTileN});
  if (tiles_m > 65535 || tiles_n > 65535)
    return Status::failure(Status::unsupported,
                           "more than 65535 tile rows or tile columns (m <= 8388480 and n <= 4194240)");
  if (tiles_m * tiles_n > 0x7FFFFFFF) return Status::failure(Status::unsupported, "more than 2^31-1 tiles");
  if (kernel != CopyKernel::scalar) {
    // 128-bit vectors: every row start and both base pointers on 16 bytes.
    const auto misaligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 != 0; };
    if (misaligned(src) || misaligned(dst))
      return Status::failure(Status::unsupported,
                             "unsupported alignment: 128-bit copies need src and dst aligned to 16 bytes");
    if (ld_src % 8 != 0 || ld_dst % 8 != 0)
      return Status::failure(Status::unsupported,
                             "unsupported alignment: 128-bit copies need row strides that are multiples of 8 elements");
    if (n % 8 != 0 || (transpose && m % 8 != 0))
      return Status::failure(Status::unsupported,
                             "unsupported alignment: 128-bit copies need rows of a multiple of 8 elements (the scalar "
                             "kernel copies any shape)");
  }
  return Status::success();
}

}  // namespace

Status tile_copy(CopyKernel kernel, const bf16* src, bf16* dst, index_t m, index_t n, index_t ld_src, index_t ld_dst,
                 cudaStream_t stream) {
  using namespace copy_kernels;
  if (Status s = check(kernel, src, dst, m, n, ld_src, ld_dst); !s) return s;
  const Problem<bf16> p{src, dst, m, n, ld_src, ld_dst};
  const index_t tiles_m = ceil_div(m, index_t{kTileM}), tiles_n = ceil_div(n, index_t{kTileN});
  const dim3 grid(static_cast<unsigned>(tiles_n), static_cast<unsigned>(tiles_m));  // row_band_tile()
  switch (kernel) {
    case CopyKernel::scalar:
      tile_copy_scalar<bf16><<<grid, 64, 0, stream>>>(p);
      break;
    case CopyKernel::vector:
      tile_copy_vector<bf16><<<grid, 128, 0, stream>>>(p);
      break;
    case CopyKernel::cp_async:
      tile_copy_cp_async<bf16><<<grid, 128, 0, stream>>>(p);
      break;
    case CopyKernel::swizzled:
      tile_copy_swizzled<bf16><<<grid, 128, 0, stream>>>(p);
      break;
    case CopyKernel::transpose: {
      // blockIdx.x runs down the source's tile rows (see tile_transpose).
      const dim3 grid_mn(static_cast<unsigned>(tiles_m), static_cast<unsigned>(tiles_n));
      tile_transpose<bf16><<<grid_mn, 128, 0, stream>>>(p);
      break;
    }
    case CopyKernel::tma: {
      // Tensor maps are encoded on the host; the last pair is kept, so that
      // repeated launches on the same matrices (a benchmark) do not pay for it.
      struct Maps {
        const void* src = nullptr;
        void* dst = nullptr;
        index_t m = 0, n = 0, ld_src = 0, ld_dst = 0;
        CUtensorMap src_map;  // CUtensorMap carries its own 64-byte alignment
        CUtensorMap dst_map;
      };
      static Maps cache;
      if (cache.src != src || cache.dst != dst || cache.m != m || cache.n != n || cache.ld_src != ld_src ||
          cache.ld_dst != ld_dst) {
        cache.src = nullptr;
        const auto gS = make_global_tensor(src, {m, n}, {ld_src, index_t{1}});
        const auto gD = make_global_tensor(static_cast<const bf16*>(dst), {m, n}, {ld_dst, index_t{1}});
        arch::sm90::TensorMapStatus st = TmaCopyTile<bf16>::make_map(cache.src_map, gS, TmaUse::load);
        if (st.ok()) st = TmaCopyTile<bf16>::make_map(cache.dst_map, gD, TmaUse::store);
        if (!st.ok()) return Status::failure(Status::unsupported, "TMA tensor map: " + st.message);
        cache = Maps{src, dst, m, n, ld_src, ld_dst, cache.src_map, cache.dst_map};
      }
      tile_copy_tma<bf16><<<grid, 32, 0, stream>>>(cache.src_map, cache.dst_map);
      break;
    }
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    return Status::failure(Status::cuda_error, std::string("launch failed: ") + cudaGetErrorString(e));
  return Status::success();
}

}  // namespace tessel
