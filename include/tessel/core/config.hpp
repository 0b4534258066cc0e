// tessel/core/config.hpp — portability macros shared by every tessel header.
//
// Every algebra function is `TESSEL_HD constexpr`: the same body runs in a
// constant expression (static layouts folded by the compiler), on the host (the
// calculator, tests) and in CUDA device code (layouts known only at run time).
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define TESSEL_HD __host__ __device__
#define TESSEL_DEVICE __device__
#else
#define TESSEL_HD
#define TESSEL_DEVICE
#endif

/// The access path of tensors (engines, layouts' evaluation, partitions,
/// slices, copy and gemm loops) is always inlined, as CuTe does: a kernel's
/// code must not depend on which other kernels share its translation unit
/// (measured: without it, tile_copy_scalar grew from 4118 to 6000
/// instructions when compiled beside the other copy kernels, because the
/// inliner saw shared helpers with several callers).
#if defined(__CUDACC__) || defined(__HIPCC__)
#define TESSEL_HDI __host__ __device__ __forceinline__
#define TESSEL_DEVICE_INLINE __device__ __forceinline__
#else
#define TESSEL_HDI inline
#define TESSEL_DEVICE_INLINE inline
#endif

#if defined(__CUDA_ARCH__)
#define TESSEL_IN_DEVICE_CODE 1
#else
#define TESSEL_IN_DEVICE_CODE 0
#endif

/// Full unrolling of loops with compile-time trip counts (the loops over a
/// thread's values): device code relies on it to keep fragments in registers.
#if defined(__CUDA_ARCH__)
#define TESSEL_UNROLL _Pragma("unroll")
#else
#define TESSEL_UNROLL
#endif

namespace tessel {

/// Every leaf of a shape, stride or coordinate is held as a 64-bit signed
/// integer: a global tensor of 2^31 or more elements is an everyday case.
using index_t = std::int64_t;

/// Capacity of the value representation (see docs/design.md): leaves of one
/// integer tuple and tokens of its nesting structure.  Real layouts use far
/// fewer (the largest golden case has 11 leaves); exceeding a capacity is
/// reported as the error `capacity`, never truncated.
inline constexpr int kMaxLeaves = 32;
inline constexpr int kMaxTokens = 96;
/// Most modes a tiler `<T0,...>` may have.
inline constexpr int kMaxTilerModes = 8;

}  // namespace tessel
