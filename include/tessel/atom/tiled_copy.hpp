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

/// Per-thread view of a global tile: thread base (packed coordinate) plus
/// the static value layout P(0, v).  Value v is element `ptr[offset(base + P(0,v))]`.
template <class T, Layout P, int R>
struct GlobalThrView {
  using Values = StaticLayout<P>;  // a type, not a static object: device code cannot odr-use those
  static constexpr int kValues = static_cast<int>(size(mode(P, 1)));
  static constexpr Space space = Space::global;
  using value_type = T;

  T* ptr;
  index_t stride[R];
  index_t residue[R];
  index_t base;  // packed coordinate of the thread's value 0

  TESSEL_HD constexpr index_t packed(int v) const { return base + Values{}(0, v); }
  // base and P(0,v) are both coordinates inside the tile and their fields sum
  // to the element's coordinate, so no field carries: the offset splits into
  // the thread's part (computed once) plus a compile-time coordinate times
  // the strides, and the bounds test compares against compile-time constants.
  TESSEL_HD constexpr T* addr(int v) const {
    const index_t c = Values{}(0, v);
    index_t off = 0;
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) off += coord_field(base, i) * stride[i];
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) off += coord_field(c, i) * stride[i];
    return ptr + off;
  }
  TESSEL_HD constexpr bool inside(int v) const {
    const index_t c = Values{}(0, v);
    bool in = true;
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) in = in && coord_field(c, i) < residue[i] - coord_field(base, i);
    return in;
  }
};

namespace detail {
/// Does Sw(P(t,0) + c) == (Sw(P(t,0)) ^ Sw(lo c)) + hi c hold for every
/// thread t and value offset c = P(0,v), lo c being c's bits below the
/// swizzle's top bit?  Checked by enumeration at compile time; when it holds
/// a swizzled partition costs one XOR per access instead of a full swizzle.
constexpr bool swizzle_splits(const Layout& P, const Swizzle& sw) {
  if (sw.b == 0 || sw.s <= 0) return false;
  const index_t lo_mask = (index_t{1} << (sw.m + sw.s + sw.b)) - 1;
  const index_t threads = size(mode(P, 0)), values = size(mode(P, 1));
  const Layout T = mode(P, 0), V = mode(P, 1);
  for (index_t v = 0; v < values; ++v) {
    const index_t c = V(v);
    for (index_t t = 0; t < threads; ++t) {
      const index_t b = T(t);
      if (sw(b + c) != ((sw(b) ^ sw(c & lo_mask)) + (c & ~lo_mask))) return false;
    }
  }
  return true;
}
}  // namespace detail

/// Per-thread view of a static (shared-memory) tensor, optionally swizzled:
/// value v is element `ptr[sw(base + P(0, v))]`.
template <class T, Space S, Layout P, Swizzle Sw>
struct StaticThrView {
  using Values = StaticLayout<P>;
  static constexpr int kValues = static_cast<int>(size(mode(P, 1)));
  static constexpr Space space = S;
  using value_type = T;

  T* ptr;
  index_t base;

  TESSEL_HD constexpr T* addr(int v) const {
    if constexpr (Sw.b == 0) {
      return ptr + base + Values{}(0, v);
    } else if constexpr (kSwizzleSplits) {
      // Sw(base + c) = (Sw(base) ^ Sw(lo c)) + hi c: one register for the
      // thread's swizzled base, one XOR per distinct low part, immediates.
      constexpr index_t lo_mask = (index_t{1} << (Sw.m + Sw.s + Sw.b)) - 1;
      const index_t c = Values{}(0, v);
      return ptr + ((Sw(base) ^ Sw(c & lo_mask)) + (c & ~lo_mask));
    } else {
      return ptr + Sw(base + Values{}(0, v));
    }
  }
  TESSEL_HD constexpr bool inside(int) const { return true; }

 private:
  static constexpr bool kSwizzleSplits = detail::swizzle_splits(P, Sw);
};

/// A register fragment: value v is element v.
template <class T, int N>
struct FragmentView {
  static constexpr int kValues = N;
  static constexpr Space space = Space::reg;
  using value_type = T;
  Array<T, N> regs;

  TESSEL_HD constexpr T* addr(int v) { return regs.data() + v; }
  TESSEL_HD constexpr const T* addr(int v) const { return regs.data() + v; }
  TESSEL_HD constexpr bool inside(int) const { return true; }
};

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
/// multiples of vec, for every thread?
constexpr bool vector_starts_aligned(const Layout& P, int vec) {
  const index_t threads = size(mode(P, 0));
  for (index_t i = 0; i < size(P); ++i)
    if ((i / threads) % vec == 0 && P(i) % vec != 0) return false;
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

    /// Source/destination partition of a global tile.
    template <class T, class Shape, int R>
    TESSEL_HD constexpr auto partition(const GlobalTile<T, Shape, R>& g) const {
      constexpr Layout P = kPartition<coord_layout(Shape::value)>;
      constexpr int field = detail::vector_field(P, kVec);
      static_assert(field >= -1, "tessel: the atom's vector does not run along one mode of the global tile");
      static_assert(kVec == 1 || detail::values_contiguous(P, kVec, field < 0 ? 1 : index_t{1} << (kCoordBits * field)),
                    "tessel: a thread's vector of values is not contiguous in the global tile");
      GlobalThrView<T, P, R> v{g.ptr, {}, {}, StaticLayout<P>{}(thread, 0)};
      for (int i = 0; i < R; ++i) {
        v.stride[i] = g.stride[i];
        v.residue[i] = g.residue[i];
      }
      return v;
    }
    /// Source/destination partition of a static (shared-memory) tensor.
    template <class T, Space S, Layout L>
    TESSEL_HD constexpr auto partition(const StaticTensor<T, S, StaticLayout<L>>& s) const {
      constexpr Layout P = kPartition<L>;
      static_assert(detail::values_contiguous(P, kVec, 1),
                    "tessel: a thread's vector of values is not contiguous in the shared-memory layout");
      static_assert(detail::vector_starts_aligned(P, kVec),
                    "tessel: a thread's vector does not start on a multiple of the vector width");
      return StaticThrView<T, S, P, Swizzle{}>{s.ptr, StaticLayout<P>{}(thread, 0)};
    }
    template <class T, Space S, SwizzledLayout L>
    TESSEL_HD constexpr auto partition(const StaticTensor<T, S, StaticSwizzledLayout<L>>& s) const {
      constexpr Layout P = kPartition<L.layout>;
      static_assert(detail::values_contiguous(P, kVec, 1),
                    "tessel: a thread's vector of values is not contiguous in the shared-memory layout");
      static_assert(detail::vector_starts_aligned(P, kVec),
                    "tessel: a thread's vector does not start on a multiple of the vector width");
      // A swizzle keeps a vector contiguous when it leaves the low log2(vec) bits alone.
      static_assert(L.swizzle.b == 0 || (index_t{1} << L.swizzle.m) % kVec == 0,
                    "tessel: the swizzle moves units smaller than the atom's vector");
      return StaticThrView<T, S, P, L.swizzle>{s.ptr, StaticLayout<P>{}(thread, 0)};
    }
    template <class Tn>
    TESSEL_HD constexpr auto partition_S(const Tn& t) const {
      return partition(t);
    }
    template <class Tn>
    TESSEL_HD constexpr auto partition_D(const Tn& t) const {
      return partition(t);
    }
  };

  TESSEL_HD constexpr ThrCopy get_slice(int thread) const { return ThrCopy{thread}; }
};

/// make_tiled_copy(atom, thr, val) as a type: the TiledCopy of `Atom` with
/// threads arranged by Thr and values by Val (make_copy_plan).
/// C++ example: MakeTiledCopy<UniversalCopy<bf16,128>, (16,8):(8,1), (1,8):(0,1)>
///              is kernel (b)'s TiledCopy.
template <class Atom, Layout Thr, Layout Val>
using MakeTiledCopy = TiledCopy<Atom, make_copy_plan(Thr, Val).tv, make_copy_plan(Thr, Val).tile>;

/// A register fragment shaped like a thread's partition of a tile.
template <class View>
TESSEL_HD constexpr auto make_fragment_like(const View&) {
  return FragmentView<std::remove_const_t<typename View::value_type>, View::kValues>{};
}

/// A fragment seen by another TiledCopy.  tessel's fragments are in the value
/// order of the partition that made them, and TiledCopyA/B/C share the
/// TiledMMA's order, so retiling is the identity; this checks that the value
/// counts agree (CuTe's retile also re-groups values into the copy atom's
/// vectors, which tessel's copy loops do themselves).
template <class TC, class T, int N>
TESSEL_HD constexpr FragmentView<T, N>& retile(const TC&, FragmentView<T, N>& f) {
  static_assert(N % TC::kVec == 0, "tessel: the fragment is not a whole number of the copy atom's vectors");
  return f;
}

}  // namespace tessel
