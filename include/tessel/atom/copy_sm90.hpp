// tessel/atom/copy_sm90.hpp — TMA as a copy of whole tiles.
//
// A TMA "atom" is one thread moving one box of a tensor map between global
// and shared memory; the shared-memory image of a box with swizzle mode X is
// the box laid out row by row (the map's dimension 0 contiguous) with the
// element-unit swizzle of X applied (docs/hardware.md §9).  `TmaTile` puts
// that atom in the algebra: from a tile shape and the shared layout the
// kernel declares for the tile (swizzle included) it derives, at compile
// time, the box and the boxes that make up the tile, each with its origin in
// the tile and its offset in shared memory.  A kernel then asks for "tile
// (m, k) of A into this stage" (`load`) and never writes a box coordinate;
// the host builds the tensor map from the global tensor (`make_map`), which
// checks that the global tensor can be described (contiguous mode, 16-byte
// strides) and reports the rule broken instead of encoding a wrong map.
// `load_multicast` splits the boxes among the CTAs of a cluster, each CTA's
// part multicast into all of them.
#pragma once

#include "tessel/arch/common.hpp"
#include "tessel/arch/sm90.hpp"
#include "tessel/tensor/tensor.hpp"

#include "tessel/arch/sm90_tensor_map.hpp"

namespace tessel {

/// The TMA swizzle mode that writes the element-unit swizzle `sw` for
/// elements of `elem_bytes`: Sw<1,m,3> 32B, Sw<2,m,3> 64B, Sw<3,m,3> 128B
/// (m = 4 - log2(elem_bytes)), or none.  Returns false for a swizzle TMA
/// cannot produce.
constexpr bool tma_swizzle_of(const Swizzle& sw, int elem_bytes, CUtensorMapSwizzle& out) {
  if (sw.b == 0) {
    out = CU_TENSOR_MAP_SWIZZLE_NONE;
    return true;
  }
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

/// The boxes of a rank-2 tile in shared memory: which tile mode is
/// contiguous (`inner`), the box extents, and per box its origin in the tile
/// and its (pre-swizzle) offset in shared memory.
struct TmaBoxPlan {
  static constexpr int kMaxBoxes = 64;
  bool ok = false;
  const char* why = "";
  int inner = 0;     // the tile mode that is contiguous in shared memory (TMA dimension 0)
  index_t box[2]{};  // box extents per tile mode
  int boxes = 0;     // boxes per tile
  index_t origin[kMaxBoxes][2]{};
  index_t offset[kMaxBoxes]{};
};

/// Is the (e0, e1) box at tile origin (o0, o1) of layout L laid out as TMA
/// writes it: offset(o) + i + e_inner * j for the box's coordinate (i along
/// the inner mode, j along the other)?
constexpr bool tma_box_compact(const Layout& L, int inner, const index_t* e, index_t o0, index_t o1) {
  const Layout m0 = mode(L, 0), m1 = mode(L, 1);
  const index_t base = m0(o0) + m1(o1);
  for (index_t j = 0; j < e[1 - inner]; ++j)
    for (index_t i = 0; i < e[inner]; ++i) {
      const index_t c0 = inner == 0 ? o0 + i : o0 + j, c1 = inner == 0 ? o1 + j : o1 + i;
      if (m0(c0) + m1(c1) != base + i + e[inner] * j) return false;
    }
  return true;
}

/// The plan for tile `tile` (rank 2) in shared layout L with swizzle sw, for
/// elements of `elem_bytes`, with the box count a multiple of `parts`.  The
/// box is as large as the hardware and the layout allow: its inner extent at
/// most the swizzle span (or 256 elements unswizzled), each extent at most
/// 256, every box compact in shared memory and starting on a multiple of the
/// swizzle's repeat, so that TMA's image of the box is the layout's.
constexpr TmaBoxPlan make_tma_box_plan(const IntTuple& tile, const Layout& L, const Swizzle& sw, int elem_bytes,
                                       int parts) {
  TmaBoxPlan p;
  if (rank(tile) != 2 || rank(L) != 2) {
    p.why = "TMA tiles here are rank 2";
    return p;
  }
  const index_t t[2] = {tile.val[0], tile.val[1]};
  // The inner mode is the one holding a stride-1 leaf.
  p.inner = -1;
  for (int k = 0; k < 2 && p.inner < 0; ++k) {
    const Layout m = mode(L, k);
    for (int i = 0; i < m.stride.nleaf; ++i)
      if (m.stride.val[i] == 1 && m.shape.val[i] > 1) p.inner = k;
  }
  if (p.inner < 0) {
    p.why = "the shared layout has no contiguous mode";
    return p;
  }
  const index_t span = sw.b == 0 ? 256 : (index_t{16} << sw.b) / elem_bytes;    // 32/64/128 bytes
  const index_t period = sw.b == 0 ? 1 : (index_t{1} << (sw.m + sw.s + sw.b));  // the swizzle's repeat, in elements
  for (index_t ei = t[p.inner] < span ? t[p.inner] : span; ei >= 1; --ei) {
    if (t[p.inner] % ei != 0) continue;
    for (index_t eo = t[1 - p.inner] < 256 ? t[1 - p.inner] : 256; eo >= 1; --eo) {
      if (t[1 - p.inner] % eo != 0) continue;
      const index_t e[2] = {p.inner == 0 ? ei : eo, p.inner == 0 ? eo : ei};
      const index_t n0 = t[0] / e[0], n1 = t[1] / e[1];
      if (n0 * n1 > TmaBoxPlan::kMaxBoxes || (n0 * n1) % parts != 0) continue;
      bool good = true;
      int b = 0;
      // Boxes in the order the inner mode runs first.
      for (index_t j = 0; j < (p.inner == 0 ? n1 : n0) && good; ++j)
        for (index_t i = 0; i < (p.inner == 0 ? n0 : n1) && good; ++i, ++b) {
          const index_t o0 = (p.inner == 0 ? i : j) * e[0], o1 = (p.inner == 0 ? j : i) * e[1];
          good = tma_box_compact(L, p.inner, e, o0, o1);
          p.origin[b][0] = o0;
          p.origin[b][1] = o1;
          p.offset[b] = mode(L, 0)(o0) + mode(L, 1)(o1);
          good = good && p.offset[b] % period == 0;
        }
      if (!good) continue;
      p.box[0] = e[0];
      p.box[1] = e[1];
      p.boxes = b;
      p.ok = true;
      return p;
    }
  }
  p.why = "no box of at most 256 x 256 elements is laid out in shared memory as TMA writes it";
  return p;
}
}  // namespace detail

/// What a tensor map will be used for: a map used for stores must describe
/// rows whose length is a whole number of 16-byte granules, because a TMA
/// store clips dimension 0 at 16-byte granularity and would overwrite the
/// row's padding past the end (docs/hardware.md §10.2).
enum class TmaUse : std::uint8_t { load, store, load_and_store };

/// TMA copies of tiles of shape `Tile` (a flat rank-2 IntTuple) of a global
/// tensor of T to and from shared memory laid out by `Smem` (static,
/// swizzled or not), the boxes split in `Parts` equal shares for multicast.
/// C++ example: TmaTile<bf16, (128,64), Sw<3,3,3> o ((64,2),64):((1,4096),64)>
///              (an M-major A tile) has two (64 m x 64 k) boxes, at offsets 0 and 4096.
template <class T, IntTuple Tile, SwizzledLayout Smem, int Parts = 1>
struct TmaTile {
  static constexpr detail::TmaBoxPlan kPlan =
      detail::make_tma_box_plan(Tile, Smem.layout, Smem.swizzle, static_cast<int>(sizeof(T)), Parts);
  static_assert(kPlan.ok, "tessel: TmaTile: the shared layout cannot be written by TMA boxes (see make_tma_box_plan)");
  static constexpr int kInner = kPlan.inner;
  static constexpr int kBoxes = kPlan.boxes;
  static constexpr int kBytes = static_cast<int>(size(Tile)) * static_cast<int>(sizeof(T));  // per tile
  static_assert(size(Smem.layout) == size(Tile), "tessel: TmaTile: the shared layout must cover the tile");

  /// Encodes the tensor map of global tensor g for these tiles.  Errors name
  /// the rule: the shared layout's contiguous mode must be g's stride-1 mode;
  /// for stores, its extent must fill whole 16-byte granules; the rest is
  /// checked by the encoder (16-byte aligned base and strides, extents,
  /// swizzle span).
  static arch::sm90::TensorMapStatus make_map(CUtensorMap& map,
                                              const Tensor<ViewEngine<const T, Space::global>, Strided<2>>& g,
                                              TmaUse use = TmaUse::load_and_store) {
    arch::sm90::TensorMapSpec s;
    if (arch::sm90::TensorMapStatus e = spec_of(g, use, s); !e.ok()) return e;
    return arch::sm90::encode_tiled(map, s);
  }
  /// The map of `batch` tensors like g, tensor b at g's origin + b *
  /// batch_stride elements: a rank-3 map whose third dimension is the batch
  /// (load_batch's coordinate; the box is one tensor deep).  batch = 1 makes
  /// the same map with a batch of one, whatever batch_stride.  The encoder
  /// checks batch_stride as every stride: 16-byte multiple, below 2^40 bytes.
  static arch::sm90::TensorMapStatus make_batched_map(CUtensorMap& map,
                                                      const Tensor<ViewEngine<const T, Space::global>, Strided<2>>& g,
                                                      index_t batch, index_t batch_stride,
                                                      TmaUse use = TmaUse::load_and_store) {
    arch::sm90::TensorMapSpec s;
    if (arch::sm90::TensorMapStatus e = spec_of(g, use, s); !e.ok()) return e;
    s.rank = 3;
    s.global_dim[2] = static_cast<std::uint64_t>(batch);
    // A batch of one never steps: any valid stride will do, the rows' own.
    s.global_stride_bytes[2] =
        batch > 1 ? static_cast<std::uint64_t>(batch_stride) * sizeof(T) : s.global_stride_bytes[1];
    s.box_dim[2] = 1;
    return arch::sm90::encode_tiled(map, s);
  }
  static arch::sm90::TensorMapStatus make_map(CUtensorMap& map,
                                              const Tensor<ViewEngine<T, Space::global>, Strided<2>>& g,
                                              TmaUse use = TmaUse::load_and_store) {
    return make_map(map, Tensor<ViewEngine<const T, Space::global>, Strided<2>>{{g.engine.ptr}, g.layout}, use);
  }
  /// The map of n1 x n2 tensors like g, tensor (b1, b2) at g's origin + b1 *
  /// s1 + b2 * s2 elements: rank 4 (attention's heads and batch), loaded by
  /// load_at.  An extent of one never steps: any valid stride serves (the
  /// previous dimension's is taken).
  static arch::sm90::TensorMapStatus make_batched_map2(CUtensorMap& map,
                                                       const Tensor<ViewEngine<const T, Space::global>, Strided<2>>& g,
                                                       index_t n1, index_t s1, index_t n2, index_t s2,
                                                       TmaUse use = TmaUse::load) {
    arch::sm90::TensorMapSpec s;
    if (arch::sm90::TensorMapStatus e = spec_of(g, use, s); !e.ok()) return e;
    s.rank = 4;
    s.global_dim[2] = static_cast<std::uint64_t>(n1);
    s.global_dim[3] = static_cast<std::uint64_t>(n2);
    s.global_stride_bytes[2] = n1 > 1 ? static_cast<std::uint64_t>(s1) * sizeof(T) : s.global_stride_bytes[1];
    s.global_stride_bytes[3] = n2 > 1 ? static_cast<std::uint64_t>(s2) * sizeof(T) : s.global_stride_bytes[2];
    s.box_dim[2] = s.box_dim[3] = 1;
    return arch::sm90::encode_tiled(map, s);
  }

  /// Loads tile (c0, c1) (tile coordinates) into `smem` (the tile's shared
  /// buffer), completing on mbarrier `bar`; one thread calls it, after the
  /// barrier was armed with kBytes.  Parts of the tile outside the tensor
  /// arrive as zeros.
  __device__ static void load(const CUtensorMap* map, T* smem, std::uint32_t bar, index_t c0, index_t c1) {
    for_each_box(c0, c1, [&](index_t off, int x, int y, int) {
      arch::sm90::tma_load(arch::smem_addr(smem + off), map, bar, x, y);
    });
  }
  /// Tile (c0, c1) of tensor `b` of a batched map (make_batched_map), as load.
  __device__ static void load_batch(const CUtensorMap* map, T* smem, std::uint32_t bar, index_t c0, index_t c1, int b) {
    for_each_box(c0, c1, [&](index_t off, int x, int y, int) {
      arch::sm90::tma_load(arch::smem_addr(smem + off), map, bar, x, y, b);
    });
  }
  /// The tile whose first element is at element (not tile) coordinates (e0,
  /// e1) of tensor (b1, b2) of a make_batched_map2 map, as load: a tile
  /// that starts at any row (packed sequences).
  __device__ static void load_at(const CUtensorMap* map, T* smem, std::uint32_t bar, index_t e0, index_t e1, int b1,
                                 int b2) {
    for_each_box_at(e0, e1, [&](index_t off, int x, int y, int) {
      arch::sm90::tma_load(arch::smem_addr(smem + off), map, bar, x, y, b1, b2);
    });
  }
  /// This CTA's share (`part` of Parts) of tile (c0, c1), multicast into the
  /// same buffer and barrier offsets of every CTA in `mask`.  Each receiving
  /// CTA's barrier must be armed with the whole tile's kBytes.
  __device__ static void load_multicast(const CUtensorMap* map, T* smem, std::uint32_t bar, std::uint16_t mask,
                                        int part, index_t c0, index_t c1) {
    for_each_box(c0, c1, [&](index_t off, int x, int y, int b) {
      if (b % Parts == part) arch::sm90::tma_load_multicast(arch::smem_addr(smem + off), map, bar, mask, x, y);
    });
  }
  /// Stores `smem` to tile (c0, c1), clipped at the tensor's edges; one
  /// thread calls it, after a proxy fence if ordinary stores wrote smem.
  __device__ static void store(const CUtensorMap* map, const T* smem, index_t c0, index_t c1) {
    for_each_box(
        c0, c1, [&](index_t off, int x, int y, int) { arch::sm90::tma_store(map, arch::smem_addr(smem + off), x, y); });
  }
  /// Stores share `part` (of Parts) of `smem` to tile (c0, c1), as store():
  /// the boxes b with b % Parts == part.  Several threads may each store a
  /// share once the share's writes are fenced (k13's warpgroups, one box each).
  __device__ static void store_part(const CUtensorMap* map, const T* smem, int part, index_t c0, index_t c1) {
    for_each_box(c0, c1, [&](index_t off, int x, int y, int b) {
      if (b % Parts == part) arch::sm90::tma_store(map, arch::smem_addr(smem + off), x, y);
    });
  }

 private:
  /// The rank-2 map's description of g for these tiles (make_map's rules).
  static arch::sm90::TensorMapStatus spec_of(const Tensor<ViewEngine<const T, Space::global>, Strided<2>>& g,
                                             TmaUse use, arch::sm90::TensorMapSpec& s) {
    if (g.layout.stride[kInner] != 1)
      return arch::sm90::detail::tensor_map_error(
          arch::sm90::TensorMapErrc::global_stride,
          kInner == 0 ? "stride: the tile's mode 0 is contiguous in shared memory, so TMA needs it contiguous (stride "
                        "1) in the global tensor"
                      : "stride: the tile's mode 1 is contiguous in shared memory, so TMA needs it contiguous (stride "
                        "1) in the global tensor");
    if (use != TmaUse::load && g.layout.shape[kInner] * static_cast<index_t>(sizeof(T)) % 16 != 0)
      return arch::sm90::detail::tensor_map_error(
          arch::sm90::TensorMapErrc::global_dim,
          "extent: a TMA store writes whole 16-byte granules of a row, so the contiguous extent times the element "
          "size must be a multiple of 16 bytes (else the row's padding past the end would be overwritten)");
    s = arch::sm90::TensorMapSpec{};
    s.dtype = detail::tma_dtype<T>();
    s.rank = 2;
    s.global_address = g.engine.ptr;
    const int outer = 1 - kInner;
    s.global_dim[0] = static_cast<std::uint64_t>(g.layout.shape[kInner]);
    s.global_dim[1] = static_cast<std::uint64_t>(g.layout.shape[outer]);
    s.global_stride_bytes[1] = static_cast<std::uint64_t>(g.layout.stride[outer]) * sizeof(T);
    s.box_dim[0] = static_cast<std::uint32_t>(kPlan.box[kInner]);
    s.box_dim[1] = static_cast<std::uint32_t>(kPlan.box[outer]);
    if (!tma_swizzle_of(Smem.swizzle, static_cast<int>(sizeof(T)), s.swizzle))
      return arch::sm90::detail::tensor_map_error(arch::sm90::TensorMapErrc::enum_value,
                                                  "swizzle: the shared layout's swizzle is not one TMA writes "
                                                  "(Sw<1..3, 4-log2(element bytes), 3>)");
    // The L2 fetches 256 bytes a request where the rows are whole 128-byte lines, but 128 where a row starts
    // inside a line: a box row then touches two lines already, and 256 for each reads more than the next k-tile
    // wants (docs/heuristics.md, "Rows that straddle lines").  The driver takes no promotion below the box's bytes.
    const bool whole_lines =
        s.global_stride_bytes[1] % 128 == 0 && reinterpret_cast<std::uintptr_t>(g.engine.ptr) % 128 == 0;
    const bool box_fits_128 = s.box_dim[0] * sizeof(T) <= 128;
    s.l2_promotion =
        whole_lines || !box_fits_128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    return {};
  }

  /// f(shared offset, map coordinates (dimension 0 = the inner mode), box
  /// index) for every box of tile (c0, c1); offsets and origins are
  /// compile-time constants.
  template <class F>
  TESSEL_HD static void for_each_box(index_t c0, index_t c1, F&& f) {
    for_each_box_at(c0 * Tile.val[0], c1 * Tile.val[1], static_cast<F&&>(f));
  }
  /// The same for the tile whose first element is at (e0, e1).
  template <class F>
  TESSEL_HD static void for_each_box_at(index_t e0, index_t e1, F&& f) {
    [&]<int... B>(std::integer_sequence<int, B...>) {
      (
          [&] {
            constexpr index_t off = kPlan.offset[B];
            constexpr index_t o0 = kPlan.origin[B][0], o1 = kPlan.origin[B][1];
            const index_t g0 = e0 + o0, g1 = e1 + o1;
            const int x = static_cast<int>(kInner == 0 ? g0 : g1), y = static_cast<int>(kInner == 0 ? g1 : g0);
            f(off, x, y, B);
          }(),
          ...);
    }
    (std::make_integer_sequence<int, kBoxes>{});
  }
};

}  // namespace tessel
