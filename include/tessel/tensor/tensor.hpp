// tessel/tensor/tensor.hpp — tensors: a pointer (or an owning register array)
// with a layout, tagged with its memory space.
//
// Two kinds of layout appear in kernels:
//   * static layouts (shared memory tiles, register fragments, thread-value
//     partitions): `StaticLayout<L>`, folded at compile time;
//   * global matrices whose extents and strides are known only at run time:
//     `Strided<R>`, a flat rank-R layout evaluated at natural coordinates
//     (no divisions), and the tiles cut from them (`GlobalTile`).
// Partitions of a global tile are computed on a static *coordinate layout*
// (see `coord_layout`) so that all the algebra stays static and only the final
// "coordinate times run-time stride" is done at run time.
#pragma once

#include <type_traits>
#include <utility>

#include "tessel/core/algebra.hpp"
#include "tessel/core/static_layout.hpp"

namespace tessel {

enum class Space : std::uint8_t { global, shared, reg };

/// An owning array of N elements, for register fragments.  Aligned to 16
/// bytes when its size allows, so that a 128-bit atom can move a vector of
/// it as one register quadruple (unaligned, the compiler splits the access).
template <class T, int N>
struct alignas(sizeof(T) * N % 16 == 0 ? 16 : alignof(T)) Array {
  T v[N];
  TESSEL_HD constexpr T& operator[](index_t i) { return v[i]; }
  TESSEL_HD constexpr const T& operator[](index_t i) const { return v[i]; }
  TESSEL_HD constexpr T* data() { return v; }
  TESSEL_HD constexpr const T* data() const { return v; }
  static constexpr int size() { return N; }
};

// ================================================================ packed coordinates

/// A natural coordinate of a tile, packed into one integer: field k (the
/// coordinate of mode k) occupies bits [16k, 16k+16).  Adding two packed
/// coordinates adds field by field as long as no field overflows, which holds
/// for coordinates inside a tile of extents below 2^16.
inline constexpr int kCoordBits = 16;
inline constexpr index_t kCoordMask = (index_t{1} << kCoordBits) - 1;

TESSEL_HD constexpr index_t coord_field(index_t packed, int k) { return (packed >> (kCoordBits * k)) & kCoordMask; }

/// The coordinate layout of a flat tile shape: (S0,S1,...):(1, 2^16, 2^32, ...),
/// mapping a tile coordinate to its packed natural coordinate.  Composing it
/// with a thread-value layout gives each thread's coordinates, statically.
/// C++ example: coord_layout((16,64)) is (16,64):(1,65536).
TESSEL_HD constexpr Layout coord_layout(const IntTuple& flat_shape) {
  Layout l{flat_shape, flat_shape};
  for (int i = 0; i < l.stride.nleaf; ++i) l.stride.val[i] = index_t{1} << (kCoordBits * i);
  return l;
}

// ================================================================ Strided<R>

/// A flat rank-R layout with run-time extents and strides, e.g. an M x N
/// row-major matrix `(M,N):(ld,1)`.  Evaluated at natural coordinates only.
template <int R>
struct Strided {
  static_assert(R >= 1 && R <= 5, "tessel: Strided supports ranks 1 to 5");
  index_t shape[R];
  index_t stride[R];

  template <class... Cs>
  requires(sizeof...(Cs) == R) TESSEL_HD constexpr index_t operator()(Cs... cs) const {
    const index_t c[R] = {static_cast<index_t>(cs)...};
    index_t off = 0;
    for (int i = 0; i < R; ++i) off += c[i] * stride[i];
    return off;
  }
  /// The same layout as a tessel Layout value (for the algebra and printing).
  constexpr Layout value() const { return Layout{flat_tuple_of(shape, R), flat_tuple_of(stride, R)}; }
};

/// A global tensor: an element pointer and a run-time strided layout.
template <class T, int R>
struct GlobalTensor {
  T* ptr;
  Strided<R> layout;

  template <class... Cs>
  TESSEL_HD constexpr T& operator()(Cs... cs) const {
    return ptr[layout(cs...)];
  }
};

/// make_global_tensor(ptr, make_shape(M,N), make_stride(ld,1)).  Shape and
/// stride must be flat tuples of the same rank R.
template <int R, class T>
TESSEL_HD constexpr GlobalTensor<T, R> make_global_tensor(T* ptr, const IntTuple& shape, const IntTuple& stride) {
  GlobalTensor<T, R> g{ptr, {}};
  for (int i = 0; i < R; ++i) {
    g.layout.shape[i] = shape.is_int() ? shape.val[0] : shape.val[i];
    g.layout.stride[i] = stride.is_int() ? stride.val[0] : stride.val[i];
  }
  return g;
}

/// make_global_tensor(ptr, {M, N}, {ld, 1}): the form for kernels (no IntTuple
/// is built at run time).
template <class T, int R>
TESSEL_HD constexpr GlobalTensor<T, R> make_global_tensor(T* ptr, const index_t (&shape)[R],
                                                          const index_t (&stride)[R]) {
  GlobalTensor<T, R> g{ptr, {}};
  for (int i = 0; i < R; ++i) {
    g.layout.shape[i] = shape[i];
    g.layout.stride[i] = stride[i];
  }
  return g;
}

// ================================================================ GlobalTile

/// A tile of a global tensor: the tile's origin, the run-time strides, and how
/// much of the tile lies inside the tensor (`residue[k]` = extent of mode k
/// left from the origin, possibly larger than the tile).  The tile shape is
/// static: `TileShape::value` is a flat IntTuple.
template <class T, class TileShape, int R>
struct GlobalTile {
  static constexpr IntTuple kShape = TileShape::value;
  static_assert(rank(kShape) == R, "tessel: tile rank must equal the tensor rank");

  T* ptr;  // element (0,...,0) of the tile
  index_t stride[R];
  index_t residue[R];

  /// Offset of a packed tile coordinate.
  TESSEL_HD constexpr index_t offset(index_t packed) const {
    index_t off = 0;
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) off += coord_field(packed, i) * stride[i];
    return off;
  }
  /// Is a packed tile coordinate inside the tensor?
  TESSEL_HD constexpr bool inside(index_t packed) const {
    bool in = true;
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) in = in && coord_field(packed, i) < residue[i];
    return in;
  }
  /// Does the whole tile lie inside the tensor (no predication needed)?
  TESSEL_HD constexpr bool full() const {
    // Extents as scalar constants: device code cannot index kShape at run time.
    return [&]<int... I>(std::integer_sequence<int, I...>) { return ((residue[I] >= kExtent<I>)&&...); }
    (std::make_integer_sequence<int, R>{});
  }
  template <int I>
  static constexpr index_t kExtent = kShape.is_int() ? kShape.val[0] : kShape.val[I];
};

/// The tile at tile coordinate `tile_coord` (one entry per mode) of `g`:
/// local_tile(g, Tile, (i,j)) starts at element (i*T0, j*T1).
template <class TileShape, class T, int R, class... Cs>
requires(sizeof...(Cs) == R) TESSEL_HD
    constexpr GlobalTile<T, TileShape, R> local_tile(const GlobalTensor<T, R>& g, Cs... tile_coord) {
  constexpr IntTuple s = TileShape::value;
  const index_t c[R] = {static_cast<index_t>(tile_coord)...};
  GlobalTile<T, TileShape, R> t{g.ptr, {}, {}};
  for (int i = 0; i < R; ++i) {
    const index_t origin = c[i] * (s.is_int() ? s.val[0] : s.val[i]);
    t.ptr += origin * g.layout.stride[i];
    t.stride[i] = g.layout.stride[i];
    t.residue[i] = g.layout.shape[i] - origin;
  }
  return t;
}

// ================================================================ static tensors

/// A pointer with a static layout (shared memory tiles, register fragments).
/// `L` is StaticLayout<...> or StaticSwizzledLayout<...>.
template <class T, Space S, class L>
struct StaticTensor {
  T* ptr;
  using layout_type = L;
  static constexpr Space space = S;
  using value_type = T;

  template <class... Cs>
  TESSEL_HD constexpr T& operator()(Cs... cs) const {
    return ptr[L{}(cs...)];
  }
};

template <Layout L, class T>
TESSEL_HD constexpr StaticTensor<T, Space::shared, StaticLayout<L>> make_smem_tensor(T* p) {
  return {p};
}
template <SwizzledLayout L, class T>
TESSEL_HD constexpr StaticTensor<T, Space::shared, StaticSwizzledLayout<L>> make_smem_tensor(T* p) {
  return {p};
}

// ---------------------------------------------------------------- slicing, divides, recast

namespace detail {
/// The layout of the modes of L whose keep[k] is set (a single kept mode is
/// returned as itself).
constexpr Layout keep_modes(const Layout& L, const bool* keep, int r) {
  int n = 0, last = 0;
  for (int k = 0; k < r; ++k)
    if (keep[k]) ++n, last = k;
  if (n == 1) return mode(L, last);
  ModeBuilder b;
  for (int k = 0; k < r; ++k)
    if (keep[k]) b.add(mode(L, k));
  return b.finish();
}
template <class C>
inline constexpr bool is_underscore_v = std::is_same_v<std::remove_cvref_t<C>, Underscore>;

template <Layout L, int K, class C>
TESSEL_HD constexpr index_t mode_offset(const C& c) {
  if constexpr (is_underscore_v<C>) {
    return 0;
  } else {
    return StaticLayout<mode(L, K)>{}(static_cast<index_t>(c));
  }
}
}  // namespace detail

/// slice(t, _, j), slice(t, i, _), ...: the sub-tensor of a static tensor that
/// fixes the top-level modes given an integer and keeps those given `_`.  The
/// kept layout is static; the fixed coordinates only move the pointer.
/// C++ example: slice(t, _, 3) of a (128,64):(64,1) tensor is its column 3, 128:64.
template <class T, Space S, Layout L, class... Cs>
requires(sizeof...(Cs) == static_cast<std::size_t>(rank(L)) && sizeof...(Cs) >= 2 &&
         (detail::is_underscore_v<Cs> || ...)) TESSEL_HD
    constexpr auto slice(const StaticTensor<T, S, StaticLayout<L>>& t, Cs... cs) {
  constexpr int R = static_cast<int>(sizeof...(Cs));
  constexpr bool keep[] = {detail::is_underscore_v<Cs>...};
  constexpr Layout kept = detail::keep_modes(L, keep, R);
  index_t off = 0;
  [&]<int... K>(std::integer_sequence<int, K...>) { ((off += detail::mode_offset<L, K>(cs)), ...); }
  (std::make_integer_sequence<int, R>{});
  return StaticTensor<T, S, StaticLayout<kept>>{t.ptr + off};
}

/// A static tensor divided by a static tiler: ((tile), (rest)) (zipped_divide
/// of its layout); the tiler is a template argument so the result stays static.
template <Tiler Tl, class T, Space S, Layout L>
TESSEL_HD constexpr auto zipped_divide(const StaticTensor<T, S, StaticLayout<L>>& t) {
  return StaticTensor<T, S, StaticLayout<zipped_divide(L, Tl).value()>>{t.ptr};
}
template <Tiler Tl, class T, Space S, Layout L>
TESSEL_HD constexpr auto logical_divide(const StaticTensor<T, S, StaticLayout<L>>& t) {
  return StaticTensor<T, S, StaticLayout<logical_divide(L, Tl).value()>>{t.ptr};
}

/// Tile `(c0, c1, ...)` of a static tensor cut by tiler Tl (CuTe's local_tile:
/// zipped_divide, then fix the rest mode).
template <Tiler Tl, class T, Space S, Layout L, class... Cs>
TESSEL_HD constexpr auto local_tile(const StaticTensor<T, S, StaticLayout<L>>& t, Cs... tile_coord) {
  constexpr Layout z = zipped_divide(L, Tl).value();
  const index_t off = StaticLayout<mode(z, 1)>{}(static_cast<index_t>(tile_coord)...);
  return StaticTensor<T, S, StaticLayout<mode(z, 0)>>{t.ptr + off};
}

/// The elements of a static tensor that thread `thread` owns when the threads
/// are arranged by the bijection `Thr` (tile coordinate -> thread index):
/// the tensor is divided into tiles of Thr's shape and every thread keeps its
/// position in each tile (CuTe's local_partition / outer partition).
template <Layout Thr, class T, Space S, Layout L>
TESSEL_HD constexpr auto local_partition(const StaticTensor<T, S, StaticLayout<L>>& t, int thread) {
  constexpr Tiler tl = [] {
    Tiler x;
    for (int k = 0; k < rank(Thr); ++k) {
      x.mode[k].kind = TilerMode::kInt;
      x.mode[k].n = size(rank(Thr) == 1 ? Thr : mode(Thr, k));
    }
    x.n = rank(Thr);
    return x;
  }();
  constexpr Layout z = zipped_divide(L, tl).value();
  constexpr Layout where = right_inverse(Thr).value();  // thread index -> position in the tile
  static_assert(size(where) == size(Thr), "tessel: local_partition needs a thread layout that is a bijection");
  const index_t off = StaticLayout<mode(z, 0)>{}(StaticLayout<where>{}(static_cast<index_t>(thread)));
  return StaticTensor<T, S, StaticLayout<mode(z, 1)>>{t.ptr + off};
}

/// The layout of the same memory seen with elements `num/den` times as large:
/// recast_layout(L, 8, 1) turns 8 bf16 into one 128-bit word.  The stride-1
/// mode's extent, and every other stride, must divide exactly.
/// C++ example: recast_layout((8,64):(64,1), 1, 8) is (8,8):(8,1).
constexpr Result<Layout> recast_layout(const Layout& L, index_t num, index_t den) {
  Layout r = L;
  for (int i = 0; i < r.stride.nleaf; ++i) {
    index_t& s = r.shape.val[i];
    index_t& d = r.stride.val[i];
    if (d == 1) {
      if ((s * num) % den != 0)
        return make_error(Errc::shape_divisibility, "recast: the contiguous extent {0} is not a multiple of {1}", s,
                          den);
      s = s * num / den;
    } else if ((d * num) % den != 0) {
      return make_error(Errc::stride_divisibility, "recast: stride {0} is not a multiple of {1}", d, den);
    } else {
      d = d * num / den;
    }
  }
  return r;
}
/// recast<U>(t): the static tensor t seen as elements of U.
template <class U, class T, Space S, Layout L>
TESSEL_HD constexpr auto recast(const StaticTensor<T, S, StaticLayout<L>>& t) {
  constexpr Layout R = recast_layout(L, sizeof(T), sizeof(U)).value();
  return StaticTensor<U, S, StaticLayout<R>>{reinterpret_cast<U*>(t.ptr)};
}

/// Reinterpret `n` elements of T as elements of U (e.g. 8 x bf16 as one
/// 128-bit word): the count must divide exactly.
template <class U, class T>
TESSEL_HD constexpr U* recast_ptr(T* p) {
  static_assert(sizeof(U) % sizeof(T) == 0 || sizeof(T) % sizeof(U) == 0,
                "tessel: recast between element types whose sizes do not divide");
  return reinterpret_cast<U*>(p);
}

}  // namespace tessel
