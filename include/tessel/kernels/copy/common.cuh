// tessel/kernels/copy/common.cuh — what the tile copy kernels share: the
// 128 x 64 tile, the problem description, the shared-memory layouts.
//
// Every kernel copies a row-major M x N matrix (row stride ld) from `src` to
// `dst` through shared memory, one 128 x 64 tile per CTA, with predicated
// tails.  The transpose writes the N x M transpose instead.
#pragma once

#include "tessel/algorithm/copy.hpp"

namespace tessel::copy_kernels {

inline constexpr int kTileM = 128;
inline constexpr int kTileN = 64;

struct Tile {
  static constexpr IntTuple value = make_shape(kTileM, kTileN);
};
/// The transposed tile, (N, M) = (64, 128), for the transpose's destination.
struct TileT {
  static constexpr IntTuple value = make_shape(kTileN, kTileM);
};

/// A row-major M x N matrix copy: src(i,j) = src[i*ld_src + j].
template <class T>
struct Problem {
  const T* src;
  T* dst;
  index_t m, n;
  index_t ld_src, ld_dst;
};

/// Which tile a CTA copies.  Consecutive CTAs take horizontally adjacent
/// tiles (blockIdx.x runs along n), so the CTAs resident at one time read and
/// write whole row bands of the matrix: long contiguous runs for DRAM, instead
/// of 128-byte pieces of rows 16 KB apart.
struct TileCoord {
  index_t m, n;
};
__device__ inline TileCoord row_band_tile() { return {blockIdx.y, blockIdx.x}; }

/// Plain row-major shared tile: (128,64):(64,1).
inline constexpr Layout kSmemRowMajor = make_layout(make_shape(kTileM, kTileN), LayoutRight{});

/// The 128-byte swizzle of bf16 rows (Sw<3,3,3>: the 16-byte chunk index XOR
/// the row index mod 8) over the whole tile: rows of 64 bf16 = 128 bytes.
inline constexpr SwizzledLayout kSmemSwizzled = compose(
    Swizzle{3, 3, 3}, tile_to_shape(make_layout(make_shape(8, 64), LayoutRight{}), make_shape(kTileM, kTileN)).value());

/// 128 threads in 16 rows of 8, each moving 8 consecutive elements of a row
/// (one 128-bit vector of bf16): a 16 x 64 copy tile, 8 copy tiles per tile.
inline constexpr CopyPlan kVectorPlan =
    make_copy_plan(make_layout(make_shape(16, 8), LayoutRight{}), make_layout(make_shape(1, 8)));

}  // namespace tessel::copy_kernels
