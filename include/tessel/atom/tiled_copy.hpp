// tessel/atom/tiled_copy.hpp — a copy atom replicated over threads and values.
//
// A TiledCopy is an atom plus a thread-value (TV) layout: TV(t, v) is the
// column-major index, inside the copy tile, of the element that thread t moves
// as its value v (the convention of docs/hardware.md §1.2).  All of it is
// static; partitioning a tensor composes the tensor's layout with TV at
// compile time, leaving one run-time term per thread (the thread's base).
#pragma once

#include "tessel/atom/copy_atom.hpp"
#include "tessel/tensor/tensor.hpp"

namespace tessel {

/// The TV layout and copy tile of `make_tiled_copy(thr, val)`.
struct CopyPlan {
  Layout tv;      // (T, V) -> column-major index in the copy tile
  IntTuple tile;  // flat copy-tile shape
};

/// Threads arranged by `thr` (tile coordinate -> thread index), each moving the
/// block of values `val` (tile coordinate -> value index); the copy tile is
/// their raked product.  TV = right_inverse(raked_product(thr, val)) read with
/// shape (size(thr), size(val)).
/// C++ example: make_copy_plan((16,8):(8,1), (1,8):(0,1)) has tile (16,64) and
///              tv ((8,16),8):((128,1),16): 128 threads, 8 consecutive columns each.
constexpr CopyPlan make_copy_plan(const Layout& thr, const Layout& val) {
  const Layout mn = raked_product(thr, val).value();
  index_t extents[kMaxLeaves]{};
  const int r = rank(mn);
  for (int k = 0; k < r; ++k) extents[k] = size(r == 1 ? mn : mode(mn, k));
  const Layout inv = right_inverse(mn).value();
  const Layout tv = composition(inv, make_layout(make_shape(size(thr), size(val)))).value();
  return CopyPlan{tv, flat_tuple_of(extents, r)};
}

namespace detail {
/// (T, (V, REST)): the partition of a tile (layout X over the whole tile) by a
/// copy tile and its TV layout: X is divided into copy tiles, each copy tile
/// composed with TV; REST enumerates the copy tiles.
constexpr Layout partition_layout(const Layout& X, const IntTuple& copy_tile, const Layout& tv) {
  Tiler t;
  for (int k = 0; k < rank(copy_tile); ++k) {
    t.mode[t.n].kind = TilerMode::kInt;
    t.mode[t.n].n = copy_tile.is_int() ? copy_tile.val[0] : copy_tile.val[k];
    ++t.n;
  }
  const Layout z = zipped_divide(X, t).value();
  const Layout inner = composition(mode(z, 0), tv).value();
  return make_layout(mode(inner, 0), make_layout(mode(inner, 1), mode(z, 1)));
}
}  // namespace detail

namespace detail {
/// Thread `thread`'s share of tensor `t` partitioned by copy tile `Tile` and
/// thread-value layout `TV` (partition_layout): a tensor of shape
/// (V, REST...) over the same engine.  Over a static layout the values are
/// offsets (swizzled, if the layout is); over a tile of a run-time tensor they
/// are packed tile coordinates (coord_layout), so that the algebra stays
/// static and only "coordinate times stride" is left for run time.
/// Thread `thread`'s offset P(thread, 0) in the partition's offset type I.
/// For 32-bit offsets the index is divided as unsigned: a thread index is
/// never negative, and unsigned division by the thread mode's extents is
/// shifts and masks, without int division's sign fix-ups (the value is the
/// same modulo 2^32, and the caller checks that P's offsets fit in int).
/// C++ example: P = ((8,4),4):((4,64),1) gives thread 9 the offset 4 + 64 = 68.
template <Layout P, class I>
TESSEL_HDI constexpr I thread_base(int thread) {
  if constexpr (sizeof(I) == 4)
    return static_cast<I>(StaticLayout<P>{}(static_cast<unsigned>(thread), 0u));
  else
    return static_cast<I>(StaticLayout<P>{}(thread, 0));
}
template <IntTuple Tile, Layout TV, class E, Layout L>
TESSEL_HDI constexpr auto partition_thread(const Tensor<E, StaticLayout<L>>& t, int thread) {
  constexpr Layout P = partition_layout(L, Tile, TV);
  using I = engine_offset_t<E>;
  static_assert(sizeof(I) == sizeof(index_t) || fits_in_int32(P), "tessel: a 32-bit partition of a tile past 2^31");
  return Tensor<E, ThrOffsets<thread_values(P), Swizzle{}, false, I>>{t.engine, {thread_base<P, I>(thread)}};
}
template <IntTuple Tile, Layout TV, class E, SwizzledLayout L>
TESSEL_HDI constexpr auto partition_thread(const Tensor<E, StaticSwizzledLayout<L>>& t, int thread) {
  constexpr Layout P = partition_layout(L.layout, Tile, TV);
  constexpr bool splits = swizzle_splits(P, L.swizzle);
  using I = engine_offset_t<E>;
  static_assert(sizeof(I) == sizeof(index_t) || fits_in_int32(P), "tessel: a 32-bit partition of a tile past 2^31");
  return Tensor<E, ThrOffsets<thread_values(P), L.swizzle, splits, I>>{t.engine, {thread_base<P, I>(thread)}};
}
template <IntTuple Tile, Layout TV, class E, IntTuple Shape, int R, OffsetType I, int U>
TESSEL_HDI constexpr auto partition_thread(const Tensor<E, TileLayout<Shape, R, I, U>>& t, int thread) {
  constexpr Layout P = partition_layout(coord_layout(Shape), Tile, TV);
  Tensor<E, ThrCoords<thread_values(P), R, I, U>> v{t.engine, {}};
  v.layout.set_thread(StaticLayout<P>{}(thread, 0), t.layout.stride, t.layout.residue);
  return v;
}
/// The static layout a partition is computed on: the tensor's own layout,
/// without its swizzle, or a tile's coordinate layout.
template <class L>
constexpr Layout partition_domain() {
  if constexpr (requires { L::kShape; })
    return coord_layout(L::kShape);
  else if constexpr (requires { L::value.swizzle; })
    return L::value.layout;
  else
    return L::value;
}
}  // namespace detail

namespace detail {
/// Are values [i*vec, i*vec+vec) contiguous (in offset, or along one packed
/// field for coordinate layouts) for every thread?  Checked at compile time.
constexpr bool values_contiguous(const Layout& P, int vec, index_t unit) {
  const Layout vals = mode(P, 1);
  const index_t n = size(vals);
  if (n % vec != 0) return false;
  for (index_t i = 0; i < n; i += vec)
    for (int j = 0; j < vec; ++j)
      if (vals(i + j) != vals(i) + j * unit) return false;
  return true;
}
/// Do all vector starts (values v with v % vec == 0) land on offsets that are
/// multiples of vec, for every thread?  P(t, v) = P(t, 0) + P(0, v) (a layout
/// is linear over its top-level modes), and t = 0 or v = 0 gives each term
/// alone, so this is every thread's offset and every start's offset aligned:
/// threads + values evaluations instead of their product.
constexpr bool vector_starts_aligned(const Layout& P, int vec) {
  const Layout T = mode(P, 0), V = mode(P, 1);
  for (index_t t = 0; t < size(T); ++t)
    if (T(t) % vec != 0) return false;
  for (index_t v = 0; v < size(V); v += vec)
    if (V(v) % vec != 0) return false;
  return true;
}
/// The packed field along which a global vector runs (its values step by
/// 2^(16 f)); -1 when vec == 1.
constexpr int vector_field(const Layout& P, int vec) {
  if (vec == 1) return -1;
  const Layout vals = mode(P, 1);
  const index_t step = vals(1) - vals(0);
  for (int f = 0; f < 4; ++f)
    if (step == (index_t{1} << (kCoordBits * f))) return f;
  return -2;
}
}  // namespace detail

template <class Atom, Layout TV, IntTuple Tile>
struct TiledCopy {
  using atom = Atom;
  using value_type = typename Atom::value_type;
  static constexpr Layout kTV = TV;
  static constexpr IntTuple kTile = Tile;
  static constexpr int kThreads = static_cast<int>(size(mode(TV, 0)));
  static constexpr int kVec = Atom::kElems;
  static_assert(size(mode(TV, 1)) % Atom::kElems == 0,
                "tessel: each thread's values must be a whole number of atom vectors");

  /// The static partition (T,(V,REST)) of a tile with layout X.
  template <Layout X>
  static constexpr Layout kPartition = detail::partition_layout(X, Tile, TV);

  struct ThrCopy {
    int thread;

    /// This thread's share of tensor t (a static tensor or a tile of a
    /// global one), (V, REST...): the atom's vectors must be contiguous
    /// along one mode and start on multiples of their width.
    template <class E, class L>
    TESSEL_HDI constexpr auto partition(const Tensor<E, L>& t) const {
      constexpr Layout P = kPartition<detail::partition_domain<L>()>;
      if constexpr (requires { L::kShape; }) {
        constexpr int field = detail::vector_field(P, kVec);
        static_assert(field >= -1, "tessel: the atom's vector does not run along one mode of the global tile");
        static_assert(field < 0 || L::kUnitMode < 0 || field == L::kUnitMode,
                      "tessel: the atom's vector runs along a mode other than the tensor's unit-stride mode");
        static_assert(
            kVec == 1 || detail::values_contiguous(P, kVec, field < 0 ? 1 : index_t{1} << (kCoordBits * field)),
            "tessel: a thread's vector of values is not contiguous in the global tile");
      } else {
        static_assert(detail::values_contiguous(P, kVec, 1),
                      "tessel: a thread's vector of values is not contiguous in the shared-memory layout");
        static_assert(detail::vector_starts_aligned(P, kVec),
                      "tessel: a thread's vector does not start on a multiple of the vector width");
        if constexpr (requires { L::value.swizzle; }) {
          // A swizzle keeps a vector contiguous when it leaves the low log2(vec) bits alone.
          static_assert(L::value.swizzle.b == 0 || (index_t{1} << L::value.swizzle.m) % kVec == 0,
                        "tessel: the swizzle moves units smaller than the atom's vector");
        }
      }
      return detail::partition_thread<Tile, TV>(t, thread);
    }
    template <class Tn>
    TESSEL_HDI constexpr auto partition_S(const Tn& t) const {
      return partition(t);
    }
    template <class Tn>
    TESSEL_HDI constexpr auto partition_D(const Tn& t) const {
      return partition(t);
    }
  };

  TESSEL_HDI constexpr ThrCopy get_slice(int thread) const { return ThrCopy{thread}; }
};

/// make_tiled_copy(atom, thr, val) as a type: the TiledCopy of `Atom` with
/// threads arranged by Thr and values by Val (make_copy_plan).
/// C++ example: MakeTiledCopy<UniversalCopy<bf16,128>, (16,8):(8,1), (1,8):(0,1)>
///              is kernel (b)'s TiledCopy.
template <class Atom, Layout Thr, Layout Val>
using MakeTiledCopy = TiledCopy<Atom, make_copy_plan(Thr, Val).tv, make_copy_plan(Thr, Val).tile>;

/// A register fragment shaped like a thread's share of a tensor (or like
/// another static tensor): same shape, compact, owned registers.
template <class E, class L>
TESSEL_HDI constexpr auto make_fragment_like(const Tensor<E, L>&) {
  using T = std::remove_const_t<typename E::value_type>;
  constexpr Layout vals = [] {
    if constexpr (requires { L::kVals; })
      return L::kVals;
    else if constexpr (requires { L::value.swizzle; })
      return L::value.layout;
    else
      return L::value;
  }();
  return Fragment<T, vals>{};
}

/// A fragment seen by another TiledCopy.  tessel's fragments are in the value
/// order of the partition that made them, and TiledCopyA/B/C share the
/// TiledMMA's order, so retiling is the identity; this checks that the value
/// counts agree (CuTe's retile also re-groups values into the copy atom's
/// vectors, which tessel's copy loops do themselves).
template <class TC, class E, class L>
TESSEL_HDI constexpr Tensor<E, L>& retile(const TC&, Tensor<E, L>& f) {
  static_assert(Tensor<E, L>::kValues % TC::kVec == 0,
                "tessel: the fragment is not a whole number of the copy atom's vectors");
  return f;
}

}  // namespace tessel
