// tessel/atom/copy_sm90.hpp — TMA as a copy of whole tiles: a tensor map built
// on the host from a tessel global tensor, a tile shape and the shared-memory
// layout's swizzle; on the device, load/store of tile (i, j, ...) of it.
//
// A TMA "atom" is one thread moving one box: the box is the tile, and the
// shared-memory image of a box with swizzle mode X is exactly the tile laid
// out as tile_to_shape(GMMA atom of mode X, tile) (docs/hardware.md §9), which
// is how the kernels declare the matching shared layout.
#pragma once

#include "tessel/arch/sm90.hpp"
#include "tessel/tensor/tensor.hpp"

#include "tessel/arch/sm90_tensor_map.hpp"

namespace tessel {

/// The TMA swizzle mode that writes the element-unit swizzle `sw` for
/// 2-byte elements: Sw<1,3,3> 32B, Sw<2,3,3> 64B, Sw<3,3,3> 128B, none.
/// Returns false for a swizzle TMA cannot produce.
constexpr bool tma_swizzle_of(const Swizzle& sw, int elem_bytes, CUtensorMapSwizzle& out) {
  if (sw.b == 0) {
    out = CU_TENSOR_MAP_SWIZZLE_NONE;
    return true;
  }
  // Element-unit form Sw<B, 4 - log2(elem), 3> (docs/hardware.md §9).
  const int m = elem_bytes == 1 ? 4 : elem_bytes == 2 ? 3 : elem_bytes == 4 ? 2 : elem_bytes == 8 ? 1 : -1;
  if (sw.m != m || sw.s != 3) return false;
  if (sw.b == 1) out = CU_TENSOR_MAP_SWIZZLE_32B;
  if (sw.b == 2) out = CU_TENSOR_MAP_SWIZZLE_64B;
  if (sw.b == 3) out = CU_TENSOR_MAP_SWIZZLE_128B;
  return sw.b >= 1 && sw.b <= 3;
}

namespace detail {
template <class T>
constexpr CUtensorMapDataType tma_dtype() {
  if constexpr (sizeof(T) == 1) return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  if constexpr (sizeof(T) == 2) return CU_TENSOR_MAP_DATA_TYPE_UINT16;  // bits move unchanged; no OOB NaN fill used
  if constexpr (sizeof(T) == 4) return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  return CU_TENSOR_MAP_DATA_TYPE_UINT64;
}
}  // namespace detail

/// The tensor map for tiles of shape `Tile` (row-major: the last mode is the
/// contiguous one, as in GlobalTensor with stride 1 last) of `g`, written to
/// shared memory with swizzle `sw`.  Reports the rule broken (alignment,
/// strides, box, swizzle span) instead of encoding a wrong map.
template <class Tile, class T, int R>
arch::sm90::TensorMapStatus make_tma_map(CUtensorMap& map, const GlobalTensor<T, R>& g, const Swizzle& sw) {
  constexpr IntTuple tile = Tile::value;
  static_assert(rank(tile) == R, "tessel: the tile must have the tensor's rank");
  if (g.layout.stride[R - 1] != 1)
    return arch::sm90::detail::tensor_map_error(
        arch::sm90::TensorMapErrc::global_stride,
        "stride: TMA needs the last mode of the tensor to be contiguous (stride 1)");
  arch::sm90::TensorMapSpec s;
  s.dtype = detail::tma_dtype<std::remove_const_t<T>>();
  s.rank = R;
  s.global_address = g.ptr;
  for (int d = 0; d < R; ++d) {  // TMA dimension d is tessel mode R-1-d
    const int k = R - 1 - d;
    s.global_dim[static_cast<std::size_t>(d)] = static_cast<std::uint64_t>(g.layout.shape[k]);
    s.global_stride_bytes[static_cast<std::size_t>(d)] = static_cast<std::uint64_t>(g.layout.stride[k]) * sizeof(T);
    s.box_dim[static_cast<std::size_t>(d)] = static_cast<std::uint32_t>(tile.is_int() ? tile.val[0] : tile.val[k]);
  }
  if (!tma_swizzle_of(sw, static_cast<int>(sizeof(T)), s.swizzle))
    return arch::sm90::detail::tensor_map_error(arch::sm90::TensorMapErrc::enum_value,
                                                "swizzle: the shared layout's swizzle is not one TMA writes "
                                                "(Sw<1..3, 4-log2(element bytes), 3>)");
  s.l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  return arch::sm90::encode_tiled(map, s);
}

/// Loads tile (c0, c1) (tile coordinates, mode 0 first) of the map's tensor
/// into `smem`, completing on `bar` (one thread issues; the caller arranges
/// arrive.expect_tx of the tile's bytes).
template <class Tile>
__device__ void tma_load_tile(const CUtensorMap* map, void* smem, std::uint32_t bar, index_t c0, index_t c1) {
  constexpr IntTuple t = Tile::value;
  arch::sm90::tma_load(arch::smem_addr(smem), map, bar, static_cast<int>(c1 * t.val[1]),
                       static_cast<int>(c0 * t.val[0]));
}
/// Stores `smem` to tile (c0, c1) of the map's tensor (clipped at the edges).
template <class Tile>
__device__ void tma_store_tile(const CUtensorMap* map, const void* smem, index_t c0, index_t c1) {
  constexpr IntTuple t = Tile::value;
  arch::sm90::tma_store(map, arch::smem_addr(smem), static_cast<int>(c1 * t.val[1]), static_cast<int>(c0 * t.val[0]));
}

}  // namespace tessel
