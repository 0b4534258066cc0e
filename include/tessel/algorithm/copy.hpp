// tessel/algorithm/copy.hpp — copy, copy_if, fill, clear, axpby over
// per-thread views (partitions of global tiles, shared-memory tiles, register
// fragments).  A view provides kValues, addr(v) and inside(v).
#pragma once

#include "tessel/atom/tiled_copy.hpp"

namespace tessel {

namespace detail {
/// How many leading elements of the vector starting at value i are inside the
/// tensor (0..vec).  Inside-ness is a prefix along the vector's mode.
template <int Vec, class View>
TESSEL_HD constexpr int inside_prefix(const View& v, int i) {
  if (v.inside(i + Vec - 1)) return Vec;
  if (!v.inside(i)) return 0;
  int n = 1;
  while (n < Vec && v.inside(i + n)) ++n;
  return n;
}
template <int Begin, int End, int Vec, class Src, class Dst>
constexpr void check_range() {
  constexpr int V = std::remove_cvref_t<Src>::kValues;
  static_assert(V == std::remove_cvref_t<Dst>::kValues, "tessel: copy between partitions of different sizes");
  static_assert(0 <= Begin && Begin <= End && End <= V && Begin % Vec == 0 && End % Vec == 0,
                "tessel: a value range must be whole atom vectors inside the partition");
}
}  // namespace detail

/// Moves the values [Begin, End) of `src` to `dst`, one atom vector at a
/// time.  No bounds checks: use copy_if for tiles that may reach past the
/// tensor.  A sub-range bounds how many values of a register fragment are
/// live at once (see the transpose kernel).
template <int Begin, int End, class TC, class Src, class Dst>
TESSEL_HD constexpr void copy_range(const TC&, const Src& src, Dst&& dst) {
  using Atom = typename TC::atom;
  detail::check_range<Begin, End, Atom::kElems, Src, Dst>();
  TESSEL_UNROLL
  for (int i = Begin; i < End; i += Atom::kElems) Atom::copy(src.addr(i), dst.addr(i));
}
/// Moves every value of `src` to `dst`.
template <class TC, class Src, class Dst>
TESSEL_HD constexpr void copy(const TC& tc, const Src& src, Dst&& dst) {
  copy_range<0, std::remove_cvref_t<Src>::kValues>(tc, src, dst);
}

/// copy for tiles at the edge of a tensor: a vector entirely inside is copied
/// whole, a partial one element by element (atoms that zero-fill, such as
/// cp.async, zero the rest), one entirely outside is skipped or zero-filled.
/// The inside test is the global side's (source for loads, destination for stores).
template <int Begin, int End, class TC, class Src, class Dst>
TESSEL_HD constexpr void copy_if_range(const TC&, const Src& src, Dst&& dst) {
  using Atom = typename TC::atom;
  constexpr int Vec = Atom::kElems;
  detail::check_range<Begin, End, Vec, Src, Dst>();
  TESSEL_UNROLL
  for (int i = Begin; i < End; i += Vec) {
    const int n = std::remove_cvref_t<Src>::space == Space::global ? detail::inside_prefix<Vec>(src, i)
                                                                   : detail::inside_prefix<Vec>(dst, i);
    if (n == Vec) {
      Atom::copy(src.addr(i), dst.addr(i));
    } else if (n > 0 || Atom::kZeroFills) {
      Atom::copy_n(src.addr(i), dst.addr(i), n);
    }
  }
}
template <class TC, class Src, class Dst>
TESSEL_HD constexpr void copy_if(const TC& tc, const Src& src, Dst&& dst) {
  copy_if_range<0, std::remove_cvref_t<Src>::kValues>(tc, src, dst);
}

/// Every value of `view` becomes `x`.
template <class View, class T>
TESSEL_HD constexpr void fill(View&& view, const T& x) {
  constexpr int V = std::remove_cvref_t<View>::kValues;
  TESSEL_UNROLL
  for (int i = 0; i < V; ++i) *view.addr(i) = x;
}
template <class View>
TESSEL_HD constexpr void clear(View&& view) {
  fill(view, typename std::remove_cvref_t<View>::value_type{});
}
/// y = a*x + b*y, value by value.
template <class A, class X, class B, class Y>
TESSEL_HD constexpr void axpby(const A& a, const X& x, const B& b, Y&& y) {
  constexpr int V = std::remove_cvref_t<Y>::kValues;
  static_assert(V == std::remove_cvref_t<X>::kValues, "tessel: axpby over partitions of different sizes");
  TESSEL_UNROLL
  for (int i = 0; i < V; ++i) *y.addr(i) = a * *x.addr(i) + b * *y.addr(i);
}

}  // namespace tessel
