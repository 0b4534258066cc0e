// tessel/tensor/tensor.hpp — one Tensor: an engine (where the elements live)
// and a layout (which element a coordinate names).
//
//   Tensor<Engine, Layout>
//     Engine: ViewEngine<T, Space> (a pointer into global, shared or register
//             memory) or ArrayEngine<T, N> (N registers the tensor owns: a
//             fragment);
//     Layout: fully static (StaticLayout<L>, StaticSwizzledLayout<L>),
//             static shape with run-time strides (TileLayout<Shape, R>: a tile
//             of a global tensor, with how much of it lies inside), or
//             run-time (Strided<R>: a whole global matrix).  A thread's share
//             of a partition is a static value layout of shape (V, REST...)
//             plus the thread's run-time base (ThrOffsets over static memory,
//             ThrCoords over a tile).  The run-time ones compute offsets in
//             index_t, or in int where narrow_offsets found that they fit.
//
// The algebra underneath is the value-based one of core/ (docs/design.md):
// every layout here is a Layout value lifted into a type, so partitions and
// slices are computed at compile time and only "coordinate times run-time
// stride" is left for run time.  Partitions of a global tile are computed on
// a static *coordinate layout* (see `coord_layout`): the thread's values are
// packed tile coordinates, which give both the address (times the strides)
// and the bounds test (against the residue).
//
// What a kernel writes:
//   auto gA  = make_global_tensor(p.a, {M, K}, {lda, 1});      // (M,K) run-time
//   auto gX  = local_tile<TileShape<128, 64>>(gA, i, kt);      // (128,64) tile
//   auto sX  = make_smem_tensor<kSwizzled>(smem);              // (128,64) static
//   auto tXsX = tiled_copy.get_slice(t).partition_D(sX);       // (V, RM, RK)
//   auto tXrX = make_fragment_like(tXsX);                      // (V, RM, RK) registers
//   copy(tiled_copy, tXsX(_, _, k), tXrX(_, _, k));            // one k-slice
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
  TESSEL_HDI constexpr T& operator[](index_t i) { return v[i]; }
  TESSEL_HDI constexpr const T& operator[](index_t i) const { return v[i]; }
  TESSEL_HDI constexpr T* data() { return v; }
  TESSEL_HDI constexpr const T* data() const { return v; }
  static constexpr int size() { return N; }
};

// ================================================================ packed coordinates

/// A natural coordinate of a tile, packed into one integer: field k (the
/// coordinate of mode k) occupies bits [16k, 16k+16).  Adding two packed
/// coordinates adds field by field as long as no field overflows, which holds
/// for coordinates inside a tile of extents below 2^16.
inline constexpr int kCoordBits = 16;
inline constexpr index_t kCoordMask = (index_t{1} << kCoordBits) - 1;

TESSEL_HDI constexpr index_t coord_field(index_t packed, int k) { return (packed >> (kCoordBits * k)) & kCoordMask; }

/// The coordinate layout of a flat tile shape: (S0,S1,...):(1, 2^16, 2^32, ...),
/// mapping a tile coordinate to its packed natural coordinate.  Composing it
/// with a thread-value layout gives each thread's coordinates, statically.
/// C++ example: coord_layout((16,64)) is (16,64):(1,65536).
TESSEL_HDI constexpr Layout coord_layout(const IntTuple& flat_shape) {
  Layout l{flat_shape, flat_shape};
  for (int i = 0; i < l.stride.nleaf; ++i) l.stride.val[i] = index_t{1} << (kCoordBits * i);
  return l;
}

// ================================================================ engines

/// A pointer into memory space S; the tensor does not own the elements.
template <class T, Space S>
struct ViewEngine {
  using value_type = T;
  static constexpr Space space = S;
  T* ptr;
  TESSEL_HDI constexpr T* data() const { return ptr; }
};

/// N registers owned by the tensor: a fragment.
template <class T, int N>
struct ArrayEngine {
  using value_type = T;
  static constexpr Space space = Space::reg;
  Array<T, N> regs;
  TESSEL_HDI constexpr T* data() { return regs.data(); }
  TESSEL_HDI constexpr const T* data() const { return regs.data(); }
};

/// The 32-bit shared-memory address of an element of T (the shared window's
/// address, which ld.shared, st.shared and TMA take): p + n is n elements
/// further, computed in 32 bits, and p[n] is that address too (generic code
/// cannot dereference it; architecture code loads from `addr`).
/// C++ example: SmemAddr<float>{1024} + 3 is SmemAddr<float>{1036}.
template <class T>
struct SmemAddr {
  std::uint32_t addr;
  template <class I>
  TESSEL_HDI constexpr SmemAddr operator+(I n) const {
    return {addr + static_cast<std::uint32_t>(n) * static_cast<std::uint32_t>(sizeof(T))};
  }
  template <class I>
  TESSEL_HDI constexpr SmemAddr operator[](I n) const {
    return *this + n;
  }
};

/// Shared memory named by a 32-bit address: a tensor over it computes its
/// offsets in int and its addresses in 32 bits (t.addr(v) is a SmemAddr), so
/// a partition of it keeps one 32-bit register per base where a pointer
/// engine's 64-bit offsets cost two.  Made by make_smem_tensor<L>(SmemAddr).
template <class T>
struct SmemAddrEngine {
  using value_type = T;
  using offset_type = int;
  static constexpr Space space = Space::shared;
  SmemAddr<T> ptr;
  TESSEL_HDI constexpr SmemAddr<T> data() const { return ptr; }
};

namespace detail {
/// The offset type of partitions of a static tensor over engine E: the
/// engine's own (int for 32-bit shared addresses), else index_t.
template <class E>
constexpr auto engine_offset() {
  if constexpr (requires { typename E::offset_type; })
    return typename E::offset_type{};
  else
    return index_t{};
}
template <class E>
using engine_offset_t = decltype(engine_offset<E>());
}  // namespace detail

// ================================================================ run-time layouts

/// The integer type run-time layouts compute offsets in: index_t (64 bits),
/// or int where every offset of the tensor is known to fit (narrow_offsets
/// checks it): a kernel then multiplies and adds in 32 bits, half the
/// registers and instructions of 64-bit offsets.
template <class I>
concept OffsetType = std::is_same_v<I, index_t> || std::is_same_v<I, int>;

/// A flat rank-R layout with run-time extents and strides, e.g. an M x N
/// row-major matrix `(M,N):(ld,1)`, offsets computed in I.  Evaluated at
/// natural coordinates only.  U >= 0 names a mode whose stride is 1 by
/// construction (the contiguous mode): offsets then take its coordinate as
/// is, so that a compile-time step along it is an immediate, not a multiply
/// by a run-time 1, and vectors are checked to run along it.
/// C++ example: Strided<2, int, 1> with shape (M,N), stride (ld,1) maps
/// (3,2) to 3*ld + 2, mode 1's stride taken as 1 whatever is stored.
template <int R, OffsetType I = index_t, int U = -1>
struct Strided {
  static_assert(R >= 1 && R <= 5, "tessel: Strided supports ranks 1 to 5");
  static_assert(U >= -1 && U < R, "tessel: the unit-stride mode must be a mode of the layout (or -1: none)");
  static constexpr int kRank = R;
  static constexpr int kUnitMode = U;
  using offset_type = I;
  I shape[R];
  I stride[R];

  /// The stride of mode i: 1 for the unit-stride mode, else the stored one.
  TESSEL_HDI constexpr I step(int i) const { return i == U ? I{1} : stride[i]; }
  template <class... Cs>
  requires(sizeof...(Cs) == R) TESSEL_HDI constexpr I operator()(Cs... cs) const {
    const I c[R] = {static_cast<I>(cs)...};
    I off = 0;
    for (int i = 0; i < R; ++i) off += c[i] * step(i);
    return off;
  }
  /// The same layout as a tessel Layout value (for the algebra and printing).
  constexpr Layout value() const {
    index_t s[R], d[R];
    for (int i = 0; i < R; ++i) s[i] = shape[i], d[i] = stride[i];
    return Layout{flat_tuple_of(s, R), flat_tuple_of(d, R)};
  }
};

/// A tile of a Strided<R, I, U> layout: static extents `Shape` (a flat
/// IntTuple), the parent's run-time strides (mode U's is 1 by construction),
/// and how much of the tile lies inside the parent (`residue[k]` = extent of
/// mode k left from the tile's origin, possibly larger than the tile).
/// Evaluated at natural coordinates or at a packed coordinate (`offset`).
template <IntTuple Shape, int R, OffsetType I = index_t, int U = -1>
struct TileLayout {
  static_assert(rank(Shape) == R, "tessel: tile rank must equal the tensor rank");
  static constexpr IntTuple kShape = Shape;
  static constexpr int kRank = R;
  static constexpr int kUnitMode = U;
  static constexpr index_t kSize = size(Shape);
  template <int K>
  static constexpr index_t kExtent = Shape.is_int() ? Shape.val[0] : Shape.val[K];
  using offset_type = I;

  I stride[R];
  I residue[R];

  TESSEL_HDI constexpr I step(int i) const { return i == U ? I{1} : stride[i]; }
  template <class... Cs>
  requires(sizeof...(Cs) == R) TESSEL_HDI constexpr I operator()(Cs... cs) const {
    const I c[R] = {static_cast<I>(cs)...};
    I off = 0;
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) off += c[i] * step(i);
    return off;
  }
  /// Offset of a packed tile coordinate.
  TESSEL_HDI constexpr I offset(index_t packed) const {
    I off = 0;
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) off += static_cast<I>(coord_field(packed, i)) * step(i);
    return off;
  }
  /// Is a packed tile coordinate inside the parent?
  TESSEL_HDI constexpr bool inside_packed(index_t packed) const {
    bool in = true;
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) in = in && coord_field(packed, i) < residue[i];
    return in;
  }
  /// Does the whole tile lie inside the parent (no predication needed)?
  TESSEL_HDI constexpr bool full() const {
    // Extents as scalar constants: device code cannot index kShape at run time.
    return [&]<int... K>(std::integer_sequence<int, K...>) { return ((residue[K] >= kExtent<K>)&&...); }
    (std::make_integer_sequence<int, R>{});
  }
};

// ================================================================ a thread's share of a partition

namespace detail {
/// (V, REST0, REST1, ...) from a partition (T, (V, (REST0, REST1, ...))):
/// the thread's values with the rest modes lifted to the top level, so that
/// a k-slice is `t(_, _, k)`.  Flat value indices are unchanged.
/// C++ example: ((4,32),(8,(4,4))):(...) gives (8,4,4) with the same strides.
constexpr Layout thread_values(const Layout& P) {
  const Layout vals = mode(P, 1);
  const Layout rest = mode(vals, 1);
  ModeBuilder b;
  b.add(mode(vals, 0));
  const int r = rank(rest);
  for (int k = 0; k < r; ++k) b.add(r == 1 ? rest : mode(rest, k));
  return b.finish();
}
/// Does Sw(P(t,0) + c) == (Sw(P(t,0)) ^ Sw(lo c)) + hi c hold for every
/// thread t and value offset c = P(0,v), lo c being c's bits below the
/// swizzle's top bit?  Checked by enumeration at compile time; when it holds
/// a swizzled partition costs one XOR per access instead of a full swizzle.
constexpr bool swizzle_splits(const Layout& P, const Swizzle& sw) {
  if (sw.b == 0 || sw.s <= 0) return false;
  const index_t lo_mask = (index_t{1} << (sw.m + sw.s + sw.b)) - 1;
  const index_t threads = size(mode(P, 0)), values = size(mode(P, 1));
  const Layout T = mode(P, 0), V = mode(P, 1);
  // The threads' offsets once (a CTA has at most 1024 threads), not once per value.
  if (threads > 1024) return false;
  index_t base[1024]{};
  for (index_t t = 0; t < threads; ++t) base[t] = T(t);
  for (index_t v = 0; v < values; ++v) {
    const index_t c = V(v);
    for (index_t t = 0; t < threads; ++t) {
      const index_t b = base[t];
      if (sw(b + c) != ((sw(b) ^ sw(c & lo_mask)) + (c & ~lo_mask))) return false;
    }
  }
  return true;
}

/// Sw(x) computed in x's own type (a 32-bit offset stays 32-bit).
/// C++ example: swizzle_as<Sw<2,2,3>>(197) == 205, an int (bits 5..6 = 10
/// XOR-ed into bits 2..3).
template <Swizzle Sw, class I>
TESSEL_HDI constexpr I swizzle_as(I x) {
  constexpr I mask = (I{1} << Sw.b) - 1;
  if constexpr (Sw.b == 0)
    return x;
  else if constexpr (Sw.s >= 0)
    return x ^ ((x & (mask << (Sw.m + Sw.s))) >> Sw.s);
  else
    return x ^ ((x & (mask << Sw.m)) << -Sw.s);
}
}  // namespace detail

/// A thread's share of a tensor with a static (possibly swizzled) layout:
/// value coordinate v is element Sw(base + off + Vals(v)).  `base` is the
/// thread's part (computed once), `off` what slicing fixed, Vals static;
/// offsets in I (int over 32-bit shared addresses: SmemAddrEngine).
/// `Splits` (detail::swizzle_splits, checked on the whole partition) lets the
/// swizzle of the thread's part be computed once.
template <Layout Vals, Swizzle Sw = Swizzle{}, bool Splits = false, OffsetType I = index_t>
struct ThrOffsets {
  static constexpr Layout kVals = Vals;
  static constexpr int kRank = rank(Vals);
  static constexpr index_t kSize = size(Vals);
  using offset_type = I;
  I base;
  I off = 0;

  template <class... Cs>
  TESSEL_HDI constexpr I operator()(Cs... cs) const {
    const I c = off + static_cast<I>(StaticLayout<Vals>{}(cs...));
    if constexpr (Sw.b == 0) {
      return base + c;
    } else if constexpr (Splits) {
      // Sw(base + c) = (Sw(base) ^ Sw(lo c)) + hi c: one register for the
      // thread's swizzled base, one XOR per distinct low part, immediates.
      constexpr I lo_mask = (I{1} << (Sw.m + Sw.s + Sw.b)) - 1;
      return (detail::swizzle_as<Sw>(base) ^ detail::swizzle_as<Sw>(c & lo_mask)) + (c & ~lo_mask);
    } else {
      return detail::swizzle_as<Sw>(base + c);
    }
  }
  template <Layout V2>
  using With = ThrOffsets<V2, Sw, Splits, I>;
  /// The same thread's share with value layout V2 and `fixed` more offset (a slice).
  template <Layout V2>
  TESSEL_HDI constexpr With<V2> sliced(index_t fixed) const {
    return With<V2>{base, static_cast<I>(off + fixed)};
  }
};

/// A thread's share of a tile of a run-time tensor: value coordinate v is the
/// packed tile coordinate base + off + Vals(v); its offset is the sum of its
/// fields times the strides, and it is inside when every field is below the
/// residue.  base and Vals(v) are both coordinates inside the tile and their
/// fields sum to the element's coordinate, so no field carries: the offset
/// splits into the thread's part plus a compile-time coordinate times the
/// strides, and the bounds test compares against compile-time constants.
/// Mode U (if U >= 0) has stride 1 by construction (Strided's unit mode).
template <Layout Vals, int R, OffsetType I = index_t, int U = -1>
struct ThrCoords {
  static constexpr Layout kVals = Vals;
  static constexpr int kRank = rank(Vals);
  static constexpr index_t kSize = size(Vals);
  using offset_type = I;
  I stride[R];
  I limit[R];     // residue minus the thread's own coordinate, per mode
  index_t base;   // the thread's packed coordinate
  I base_offset;  // the thread's part of every offset
  index_t off = 0;

  TESSEL_HDI constexpr I step(int i) const { return i == U ? I{1} : stride[i]; }
  /// Sets the thread's part from its packed coordinate and the tile's strides and residue.
  TESSEL_HDI constexpr void set_thread(index_t packed, const I (&tile_stride)[R], const I (&residue)[R]) {
    base = packed;
    base_offset = 0;
    for (int i = 0; i < R; ++i) {
      const I c = static_cast<I>(coord_field(packed, i));
      stride[i] = tile_stride[i];
      limit[i] = residue[i] - c;
      base_offset += c * step(i);
    }
  }
  template <class... Cs>
  TESSEL_HDI constexpr index_t coord(Cs... cs) const {
    return base + off + StaticLayout<Vals>{}(cs...);
  }
  template <class... Cs>
  TESSEL_HDI constexpr I operator()(Cs... cs) const {
    const index_t c = off + StaticLayout<Vals>{}(cs...);
    I o = base_offset;
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) o += static_cast<I>(coord_field(c, i)) * step(i);
    return o;
  }
  template <class... Cs>
  TESSEL_HDI constexpr bool inside(Cs... cs) const {
    const index_t c = off + StaticLayout<Vals>{}(cs...);
    bool in = true;
    TESSEL_UNROLL
    for (int i = 0; i < R; ++i) in = in && static_cast<I>(coord_field(c, i)) < limit[i];
    return in;
  }
  template <Layout V2>
  using With = ThrCoords<V2, R, I, U>;
  /// The same thread's share with value layout V2 and `fixed` more offset (a slice).
  template <Layout V2>
  TESSEL_HDI constexpr With<V2> sliced(index_t fixed) const {
    With<V2> r;
    for (int i = 0; i < R; ++i) {
      r.stride[i] = stride[i];
      r.limit[i] = limit[i];
    }
    r.base = base;
    r.base_offset = base_offset;
    r.off = off + fixed;
    return r;
  }
};

// ================================================================ the Tensor

namespace detail {
template <class C>
inline constexpr bool is_underscore_v = std::is_same_v<std::remove_cvref_t<C>, Underscore>;
template <class L>
inline constexpr bool is_static_layout_v = false;
template <Layout L>
inline constexpr bool is_static_layout_v<StaticLayout<L>> = true;
template <class L>
concept HasInside = requires(const L& l) {
  l.inside(0);
};
template <class L>
concept HasCoord = requires(const L& l) {
  l.coord(0);
};
template <class L>
concept StaticSize = requires {
  L::kSize;
};
}  // namespace detail

/// An engine and a layout.  t(c0, c1, ...) is the element at those
/// coordinates; t(_, c1, ...) the sub-tensor that keeps the modes given `_`
/// (static when the layout is); t.addr(v) the address of flat value v and
/// t.inside(v) whether it exists (tiles at the edge of a tensor).
template <class Engine, class L>
struct Tensor {
  using engine_type = Engine;
  using layout_type = L;
  using value_type = typename Engine::value_type;
  static constexpr Space space = Engine::space;

  Engine engine;
  L layout;

  TESSEL_HDI constexpr auto data() { return engine.data(); }
  TESSEL_HDI constexpr auto data() const { return engine.data(); }

  /// Number of values (layouts of static size only).
  static constexpr int kValues = [] {
    if constexpr (detail::StaticSize<L>) return static_cast<int>(L::kSize);
    return -1;
  }();

  template <class... Cs>
  TESSEL_HDI constexpr decltype(auto) operator()(Cs... cs) {
    if constexpr ((detail::is_underscore_v<Cs> || ...))
      return slice(*this, cs...);
    else
      return engine.data()[layout(cs...)];
  }
  template <class... Cs>
  TESSEL_HDI constexpr decltype(auto) operator()(Cs... cs) const {
    if constexpr ((detail::is_underscore_v<Cs> || ...))
      return slice(*this, cs...);
    else
      return engine.data()[layout(cs...)];
  }
  TESSEL_HDI constexpr auto addr(int v) { return engine.data() + layout(v); }
  TESSEL_HDI constexpr auto addr(int v) const { return engine.data() + layout(v); }
  TESSEL_HDI constexpr bool inside(int v) const {
    if constexpr (detail::HasInside<L>)
      return layout.inside(v);
    else
      return true;
  }
  /// The packed tile coordinate of value v (partitions of a tile).
  TESSEL_HDI constexpr index_t coord(int v) const requires detail::HasCoord<L> { return layout.coord(v); }
  /// Does the whole tensor lie inside its parent (tiles)?
  TESSEL_HDI constexpr bool full() const { return layout.full(); }
};

template <class Engine, class L>
TESSEL_HDI constexpr Tensor<Engine, L> make_tensor(const Engine& e, const L& l) {
  return {e, l};
}

/// A register fragment of shape `Shape` (compact, column-major): the values
/// a thread holds, with the shape of the partition they mirror.
namespace detail {
template <class T, Layout Vals>
struct FragmentOf {
  static constexpr Layout kCompact = make_layout(Vals.shape);
  using type = Tensor<ArrayEngine<T, static_cast<int>(size(Vals))>, StaticLayout<kCompact>>;
};
}  // namespace detail
template <class T, Layout Vals>
using Fragment = typename detail::FragmentOf<T, Vals>::type;

/// The global tensor ptr with run-time layout (shape):(stride), e.g.
/// make_global_tensor(p, {M, N}, {ld, 1}) for a row-major matrix.
template <class T, int R>
TESSEL_HDI constexpr Tensor<ViewEngine<T, Space::global>, Strided<R>> make_global_tensor(T* ptr,
                                                                                         const index_t (&shape)[R],
                                                                                         const index_t (&stride)[R]) {
  Tensor<ViewEngine<T, Space::global>, Strided<R>> g{{ptr}, {}};
  for (int i = 0; i < R; ++i) {
    g.layout.shape[i] = shape[i];
    g.layout.stride[i] = stride[i];
  }
  return g;
}
/// The same from IntTuples (host code: the calculator's values).
template <int R, class T>
TESSEL_HDI constexpr Tensor<ViewEngine<T, Space::global>, Strided<R>> make_global_tensor(T* ptr, const IntTuple& shape,
                                                                                         const IntTuple& stride) {
  Tensor<ViewEngine<T, Space::global>, Strided<R>> g{{ptr}, {}};
  for (int i = 0; i < R; ++i) {
    g.layout.shape[i] = shape.is_int() ? shape.val[0] : shape.val[i];
    g.layout.stride[i] = stride.is_int() ? stride.val[0] : stride.val[i];
  }
  return g;
}

/// g with its offsets computed in int (Strided<R, int, U>), where they all
/// fit: with TileShape (a type with a static `value`, as local_tile takes),
/// every offset of every tile of that shape, the last ones past the end
/// included (extents rounded up to whole tiles), else every offset of g
/// itself.  True and `out` set where the sum over modes of (extent - 1) x
/// |stride| is at most INT_MAX and, if out names a unit-stride mode U, g's
/// stride there is 1; else false and `out` untouched (keep the 64-bit tensor).
/// C++ example: a 4096 x 4096 row-major matrix, (4096,4096):(4096,1),
/// narrows (its last offset is 16,777,215), also to Strided<2, int, 1>;
/// 46341 x 46341 does not (2,147,488,280 > 2^31 - 1); (4,4):(1,4) does not
/// narrow to Strided<2, int, 1> (mode 1's stride is 4).
template <class TileShape = void, class T, int R, int U>
TESSEL_HD constexpr bool narrow_offsets(const Tensor<ViewEngine<T, Space::global>, Strided<R>>& g,
                                        Tensor<ViewEngine<T, Space::global>, Strided<R, int, U>>& out) {
  constexpr index_t kMax = 2147483647;
  if constexpr (U >= 0)
    if (g.layout.stride[U] != 1) return false;
  index_t reach = 0;
  for (int i = 0; i < R; ++i) {
    index_t e = g.layout.shape[i];
    const index_t s = g.layout.stride[i] < 0 ? -g.layout.stride[i] : g.layout.stride[i];
    if constexpr (!std::is_void_v<TileShape>) {
      constexpr IntTuple t = TileShape::value;
      const index_t te = t.is_int() ? t.val[0] : t.val[i];
      e = (e + te - 1) / te * te;
    }
    if (e < 0 || e > kMax || s > kMax) return false;
    if (e > 1 && s > 0) {
      if (s > (kMax - reach) / (e - 1)) return false;
      reach += (e - 1) * s;
    }
  }
  out.engine = g.engine;
  for (int i = 0; i < R; ++i) {
    out.layout.shape[i] = static_cast<int>(g.layout.shape[i]);
    out.layout.stride[i] = static_cast<int>(g.layout.stride[i]);
  }
  return true;
}

/// A tensor with static layout L at p in shared memory (L may be swizzled).
template <Layout L, class T>
TESSEL_HDI constexpr Tensor<ViewEngine<T, Space::shared>, StaticLayout<L>> make_smem_tensor(T* p) {
  return {{p}, {}};
}
template <SwizzledLayout L, class T>
TESSEL_HDI constexpr Tensor<ViewEngine<T, Space::shared>, StaticSwizzledLayout<L>> make_smem_tensor(T* p) {
  return {{p}, {}};
}
/// The same at a 32-bit shared address: its partitions compute offsets in
/// int and addresses in 32 bits.
/// C++ example: make_smem_tensor<(128,16):(1,128)>(SmemAddr<float>{a}) has
/// element (5, 2) at address a + 4 * 261.
template <Layout L, class T>
TESSEL_HDI constexpr Tensor<SmemAddrEngine<T>, StaticLayout<L>> make_smem_tensor(SmemAddr<T> p) {
  return {{p}, {}};
}
template <SwizzledLayout L, class T>
TESSEL_HDI constexpr Tensor<SmemAddrEngine<T>, StaticSwizzledLayout<L>> make_smem_tensor(SmemAddr<T> p) {
  return {{p}, {}};
}

/// The coordinates (not the memory) of a tile of shape Shape::value whose
/// part inside its parent is `residue`: partitioning it gives each value its
/// packed coordinate (coord(v)) and whether it exists (inside(v)).  CuTe
/// partitions an identity tensor for the same purpose.
template <class Shape, class... Rs>
TESSEL_HDI constexpr auto make_coord_tile(Rs... residue) {
  constexpr int R = static_cast<int>(sizeof...(Rs));
  return Tensor<ViewEngine<const float, Space::global>, TileLayout<Shape::value, R>>{
      {nullptr}, {{}, {static_cast<index_t>(residue)...}}};
}

// ---------------------------------------------------------------- tiles of a global tensor

/// The tile at tile coordinate `tile_coord` (one entry per mode) of `g`,
/// tiles of shape `TileShape::value`: local_tile(g, (i,j)) starts at element
/// (i*T0, j*T1).  C++ example: local_tile<TileShape<128,64>>(gA, 2, 0) is
/// rows 256..383, columns 0..63 of gA.
template <class TileShape, class T, int R, OffsetType I, int U, class... Cs>
requires(sizeof...(Cs) == R) TESSEL_HD
    constexpr auto local_tile(const Tensor<ViewEngine<T, Space::global>, Strided<R, I, U>>& g, Cs... tile_coord) {
  constexpr IntTuple s = TileShape::value;
  const I c[R] = {static_cast<I>(tile_coord)...};
  Tensor<ViewEngine<T, Space::global>, TileLayout<s, R, I, U>> t{{g.engine.ptr}, {}};
  for (int i = 0; i < R; ++i) {
    const I origin = c[i] * static_cast<I>(s.is_int() ? s.val[0] : s.val[i]);
    t.engine.ptr += origin * g.layout.step(i);
    t.layout.stride[i] = g.layout.stride[i];
    t.layout.residue[i] = g.layout.shape[i] - origin;
  }
  return t;
}

// ---------------------------------------------------------------- slicing

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
template <Layout L, int K, class C>
TESSEL_HDI constexpr index_t mode_offset(const C& c) {
  if constexpr (is_underscore_v<C>) {
    return 0;
  } else {
    return StaticLayout<mode(L, K)>{}(static_cast<index_t>(c));
  }
}
template <Layout L, class... Cs>
TESSEL_HDI constexpr index_t fixed_offset(Cs... cs) {
  index_t off = 0;
  [&]<int... K>(std::integer_sequence<int, K...>) { ((off += mode_offset<L, K>(cs)), ...); }
  (std::make_integer_sequence<int, static_cast<int>(sizeof...(Cs))>{});
  return off;
}
template <Layout L, class... Cs>
constexpr Layout kept_layout() {
  constexpr bool keep[] = {is_underscore_v<Cs>...};
  return keep_modes(L, keep, static_cast<int>(sizeof...(Cs)));
}
}  // namespace detail

/// slice(t, _, j), slice(t, i, _), ...: the sub-tensor that fixes the
/// top-level modes given an integer and keeps those given `_` (also spelled
/// t(_, j)).  The kept layout is static; the fixed coordinates move the
/// pointer (static layouts) or the thread's offset (partitions).  A slice of
/// a fragment is a view of the fragment's registers.
/// C++ example: slice(t, _, 3) of a (128,64):(64,1) tensor is its column 3, 128:64.
template <class E, Layout L, class... Cs>
requires(sizeof...(Cs) == static_cast<std::size_t>(rank(L)) && sizeof...(Cs) >= 2) TESSEL_HD
    constexpr auto slice(const Tensor<E, StaticLayout<L>>& t, Cs... cs) {
  constexpr Layout kept = detail::kept_layout<L, Cs...>();
  using V = std::remove_reference_t<decltype(*t.data())>;
  return Tensor<ViewEngine<V, E::space>, StaticLayout<kept>>{{t.data() + detail::fixed_offset<L>(cs...)}, {}};
}
template <class E, Layout L, class... Cs>
requires(sizeof...(Cs) == static_cast<std::size_t>(rank(L)) && sizeof...(Cs) >= 2) TESSEL_HD
    constexpr auto slice(Tensor<E, StaticLayout<L>>& t, Cs... cs) {
  constexpr Layout kept = detail::kept_layout<L, Cs...>();
  using V = std::remove_reference_t<decltype(*t.data())>;
  return Tensor<ViewEngine<V, E::space>, StaticLayout<kept>>{{t.data() + detail::fixed_offset<L>(cs...)}, {}};
}
template <class E, class ThrL, class... Cs>
requires(requires { ThrL::kVals; } && sizeof...(Cs) == static_cast<std::size_t>(ThrL::kRank) &&
         sizeof...(Cs) >= 2) TESSEL_HDI constexpr auto slice(const Tensor<E, ThrL>& t, Cs... cs) {
  constexpr Layout kept = detail::kept_layout<ThrL::kVals, Cs...>();
  return Tensor<E, typename ThrL::template With<kept>>{
      t.engine, t.layout.template sliced<kept>(detail::fixed_offset<ThrL::kVals>(cs...))};
}

// ---------------------------------------------------------------- divides, partitions, recast of static tensors

/// A static tensor divided by a static tiler: ((tile), (rest)) (zipped_divide
/// of its layout); the tiler is a template argument so the result stays static.
template <Tiler Tl, class E, Layout L>
TESSEL_HDI constexpr auto zipped_divide(const Tensor<E, StaticLayout<L>>& t) {
  return Tensor<E, StaticLayout<zipped_divide(L, Tl).value()>>{t.engine, {}};
}
template <Tiler Tl, class E, Layout L>
TESSEL_HDI constexpr auto logical_divide(const Tensor<E, StaticLayout<L>>& t) {
  return Tensor<E, StaticLayout<logical_divide(L, Tl).value()>>{t.engine, {}};
}

/// Tile `(c0, c1, ...)` of a static tensor cut by tiler Tl (CuTe's local_tile:
/// zipped_divide, then fix the rest mode).
template <Tiler Tl, class T, Space S, Layout L, class... Cs>
TESSEL_HDI constexpr auto local_tile(const Tensor<ViewEngine<T, S>, StaticLayout<L>>& t, Cs... tile_coord) {
  constexpr Layout z = zipped_divide(L, Tl).value();
  const index_t off = StaticLayout<mode(z, 1)>{}(static_cast<index_t>(tile_coord)...);
  return Tensor<ViewEngine<T, S>, StaticLayout<mode(z, 0)>>{{t.engine.ptr + off}, {}};
}

/// The modes [B, E) of a static tensor grouped into one mode:
/// group_modes<1,3> of (2,3,4):(1,2,6) is (2,(3,4)):(1,(2,6)).
template <int B, int E, class Eng, Layout L>
TESSEL_HDI constexpr auto group_modes(const Tensor<Eng, StaticLayout<L>>& t) {
  constexpr Layout G = [] {
    static_assert(0 <= B && B < E && E <= rank(L), "tessel: group_modes needs 0 <= B < E <= rank");
    ModeBuilder outer, inner;
    for (int k = B; k < E; ++k) inner.add(mode(L, k));
    for (int k = 0; k < B; ++k) outer.add(mode(L, k));
    outer.add(E - B == 1 ? mode(L, B) : inner.finish());
    for (int k = E; k < rank(L); ++k) outer.add(mode(L, k));
    return outer.finish();
  }();
  return Tensor<Eng, StaticLayout<G>>{t.engine, {}};
}

/// The elements of a static tensor that thread `thread` owns when the threads
/// are arranged by the bijection `Thr` (tile coordinate -> thread index):
/// the tensor is divided into tiles of Thr's shape and every thread keeps its
/// position in each tile (CuTe's local_partition / outer partition).
template <Layout Thr, class T, Space S, Layout L>
TESSEL_HDI constexpr auto local_partition(const Tensor<ViewEngine<T, S>, StaticLayout<L>>& t, int thread) {
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
  return Tensor<ViewEngine<T, S>, StaticLayout<mode(z, 1)>>{{t.engine.ptr + off}, {}};
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
TESSEL_HDI constexpr auto recast(const Tensor<ViewEngine<T, S>, StaticLayout<L>>& t) {
  constexpr Layout R = recast_layout(L, sizeof(T), sizeof(U)).value();
  return Tensor<ViewEngine<U, S>, StaticLayout<R>>{{reinterpret_cast<U*>(t.engine.ptr)}, {}};
}

/// Reinterpret `n` elements of T as elements of U (e.g. 8 x bf16 as one
/// 128-bit word): the count must divide exactly.
template <class U, class T>
TESSEL_HDI constexpr U* recast_ptr(T* p) {
  static_assert(sizeof(U) % sizeof(T) == 0 || sizeof(T) % sizeof(U) == 0,
                "tessel: recast between element types whose sizes do not divide");
  return reinterpret_cast<U*>(p);
}

}  // namespace tessel
