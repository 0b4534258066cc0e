// tessel/core/static_layout.hpp — a layout known at compile time, evaluated
// with no loops and no run-time layout data.
//
// `StaticLayout<L>` carries the Layout value L as a class-type template
// argument.  Its evaluation is a fold over L's leaves with every extent and
// stride a constant, so the compiler emits only the multiply-adds (and
// constant divisions) that the coordinate needs.  Any algebra result can be
// lifted: `StaticLayout<logical_divide(A, B).value()>` — an inadmissible
// input there is a compile error naming the rule (see status.hpp).
#pragma once

#include <limits>
#include <type_traits>
#include <utility>

#include "tessel/core/swizzle.hpp"

namespace tessel {

namespace detail {
/// Leaf index where each top-level mode of L starts (and one past the end).
template <int R>
struct ModeBounds {
  int begin[R + 1]{};
};
template <const Layout& L, int R>
TESSEL_HD constexpr ModeBounds<R> mode_bounds() {
  ModeBounds<R> b;
  Span c[kMaxLeaves];
  const int n = children(L.shape, whole(L.shape), c);
  for (int k = 0; k < n; ++k) b.begin[k] = c[k].lb;
  b.begin[n] = L.shape.nleaf;
  return b;
}
constexpr bool fits_in_int32(const Layout& l) {
  for (int i = 0; i < l.shape.nleaf; ++i) {
    if (l.shape.val[i] > std::numeric_limits<std::int32_t>::max()) return false;
    const index_t d = l.stride.val[i] < 0 ? -l.stride.val[i] : l.stride.val[i];
    if (d > std::numeric_limits<std::int32_t>::max()) return false;
  }
  return cosize(l) <= std::numeric_limits<std::int32_t>::max();
}
}  // namespace detail

template <Layout L>
struct StaticLayout {
  static constexpr Layout value = L;
  static constexpr int kRank = rank(L);
  static constexpr index_t kSize = size(L);
  static constexpr index_t kCosize = cosize(L);
  static_assert(check_layout(L).code == Errc::ok, "tessel: StaticLayout of an invalid layout");

  /// L(c) for a 1-D index; for a rank-r layout, L(c0, ..., c{r-1}).
  /// Arithmetic happens in the coordinates' type when every constant of L fits
  /// in 32 bits and the coordinates are 32-bit, else in 64 bits.
  template <class... Cs>
  requires(sizeof...(Cs) == 1 || sizeof...(Cs) == static_cast<std::size_t>(kRank)) TESSEL_HDI constexpr auto operator()(
      Cs... cs) const {
    using C = std::common_type_t<Cs...>;
    using T = std::conditional_t<(sizeof(C) <= 4 && detail::fits_in_int32(L)), C, index_t>;
    if constexpr (sizeof...(Cs) == 1) {
      return eval_leaves<T, 0, L.shape.nleaf>(static_cast<T>(cs)..., std::make_integer_sequence<int, L.shape.nleaf>{});
    } else {
      return eval_modes<T>(std::make_integer_sequence<int, kRank>{}, static_cast<T>(cs)...);
    }
  }

 private:
  static constexpr auto kBounds = detail::mode_bounds<value, (kRank > 0 ? kRank : 1)>();

  // Colexicographic digits of c over leaves [B,E); the last leaf absorbs.
  template <class T, int B, int E, int... I>
  TESSEL_HDI static constexpr T eval_leaves(T c, std::integer_sequence<int, I...>) {
    T total = 0;
    (
        [&] {
          if constexpr (I >= B && I < E) {
            constexpr T s = static_cast<T>(L.shape.val[I]);
            constexpr T d = static_cast<T>(L.stride.val[I]);
            if constexpr (I + 1 < E) {
              if constexpr (d != 0) total += (c % s) * d;
              c /= s;
            } else if constexpr (d != 0) {
              total += c * d;
            }
          }
        }(),
        ...);
    return total;
  }
  template <class T, int... K, class... Cs>
  TESSEL_HDI static constexpr T eval_modes(std::integer_sequence<int, K...>, Cs... cs) {
    return (
        T{0} + ... +
        eval_leaves<T, kBounds.begin[K], kBounds.begin[K + 1]>(cs, std::make_integer_sequence<int, L.shape.nleaf>{}));
  }
};

/// A swizzled layout known at compile time.
template <SwizzledLayout L>
struct StaticSwizzledLayout {
  static constexpr SwizzledLayout value = L;
  static constexpr int kRank = rank(L.layout);
  static constexpr index_t kSize = size(L.layout);
  template <class... Cs>
  TESSEL_HDI constexpr auto operator()(Cs... cs) const {
    const auto off = StaticLayout<L.layout>{}(cs...);
    constexpr Swizzle sw = L.swizzle;
    using T = decltype(off);
    constexpr T mask = (T{1} << sw.b) - 1;
    if constexpr (sw.s >= 0) {
      return off ^ ((off & (mask << (sw.m + sw.s))) >> sw.s);
    } else {
      return off ^ ((off & (mask << sw.m)) << -sw.s);
    }
  }
};

}  // namespace tessel
