// tessel/algorithm/copy.hpp — copy, copy_if, fill, clear, axpby over
// tensors of static size: a thread's share of a partition (of a global tile
// or a shared tile), a register fragment, or a slice of one of them
// (t(_, _, k)), value by value in flat order.
#pragma once

#include "tessel/atom/tiled_copy.hpp"

namespace tessel {

namespace detail {
/// How many leading elements of the vector starting at value i are inside the
/// tensor (0..vec).  Inside-ness is a prefix along the vector's mode.
template <int Vec, class View>
TESSEL_HDI constexpr int inside_prefix(const View& v, int i) {
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
                "tessel: a copy moves whole atom vectors");
}
}  // namespace detail

/// Moves every value of `src` to `dst`, one atom vector at a time.  No
/// bounds checks: use copy_if for tiles that may reach past the tensor.  A
/// slice (t(_, _, k)) bounds how many values are moved at once.
template <class TC, class Src, class Dst>
TESSEL_HDI constexpr void copy(const TC&, const Src& src, Dst&& dst) {
  using Atom = typename TC::atom;
  constexpr int V = std::remove_cvref_t<Src>::kValues;
  detail::check_range<0, V, Atom::kElems, Src, Dst>();
  TESSEL_UNROLL
  for (int i = 0; i < V; i += Atom::kElems) Atom::copy(src.addr(i), dst.addr(i));
}

/// copy for tiles at the edge of a tensor: a vector entirely inside is copied
/// whole, a partial one element by element (atoms that zero-fill, such as
/// cp.async, zero the rest), one entirely outside is skipped or zero-filled.
/// The inside test is the global side's (source for loads, destination for stores).
template <class TC, class Src, class Dst>
TESSEL_HDI constexpr void copy_if(const TC&, const Src& src, Dst&& dst) {
  using Atom = typename TC::atom;
  constexpr int Vec = Atom::kElems;
  constexpr int V = std::remove_cvref_t<Src>::kValues;
  detail::check_range<0, V, Vec, Src, Dst>();
  TESSEL_UNROLL
  for (int i = 0; i < V; i += Vec) {
    const int n = std::remove_cvref_t<Src>::space == Space::global ? detail::inside_prefix<Vec>(src, i)
                                                                   : detail::inside_prefix<Vec>(dst, i);
    if (n == Vec) {
      Atom::copy(src.addr(i), dst.addr(i));
    } else if (n > 0 || Atom::kZeroFills) {
      Atom::copy_n(src.addr(i), dst.addr(i), n);
    }
  }
}

/// Every value of `view` becomes `x`.
template <class View, class T>
TESSEL_HDI constexpr void fill(View&& view, const T& x) {
  constexpr int V = std::remove_cvref_t<View>::kValues;
  TESSEL_UNROLL
  for (int i = 0; i < V; ++i) *view.addr(i) = x;
}
template <class View>
TESSEL_HDI constexpr void clear(View&& view) {
  fill(view, typename std::remove_cvref_t<View>::value_type{});
}
/// y = a*x + b*y, value by value.
template <class A, class X, class B, class Y>
TESSEL_HDI constexpr void axpby(const A& a, const X& x, const B& b, Y&& y) {
  constexpr int V = std::remove_cvref_t<Y>::kValues;
  static_assert(V == std::remove_cvref_t<X>::kValues, "tessel: axpby over partitions of different sizes");
  TESSEL_UNROLL
  for (int i = 0; i < V; ++i) *y.addr(i) = a * *x.addr(i) + b * *y.addr(i);
}

}  // namespace tessel
