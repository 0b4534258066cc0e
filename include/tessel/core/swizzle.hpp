// tessel/core/swizzle.hpp — Sw<B,M,S> and swizzle-composed layouts (docs/algebra.md §12).
#pragma once

#include "tessel/core/algebra.hpp"

namespace tessel {

/// Sw<B,M,S>(x) = x ^ shift(x & (mask << (M + max(0,S))), S), mask = 2^B - 1:
/// for S > 0, bits [M+S, M+S+B) are XOR-ed into bits [M, M+B).  An involution.
/// C++ example: Sw<3,3,3>(197) == 221 (bits 6..8 = 011 XOR-ed into bits 3..5).
struct Swizzle {
  int b = 0, m = 0, s = 0;

  TESSEL_HDI constexpr index_t operator()(index_t x) const {
    const index_t mask = (index_t{1} << b) - 1;
    const index_t src = mask << (m + (s > 0 ? s : 0));
    const index_t moved = s >= 0 ? ((x & src) >> s) : ((x & src) << -s);
    return x ^ moved;
  }
  TESSEL_HD constexpr bool is_identity() const { return b == 0; }
};
TESSEL_HD constexpr bool operator==(const Swizzle& a, const Swizzle& b) {
  return a.b == b.b && a.m == b.m && a.s == b.s;
}

/// Sw<B,M,S> with B ≥ 0, M ≥ 0, |S| ≥ B, and every touched bit inside 62 bits.
TESSEL_HD constexpr Result<Swizzle> make_swizzle(int b, int m, int s) {
  const int as = s < 0 ? -s : s;
  if (b < 0 || m < 0) return make_error(Errc::swizzle, "Sw<{0},{1},{2}>: B and M must be non-negative", b, m, s);
  if (as < b)
    return make_error(Errc::swizzle, "Sw<{0},{1},{2}>: |S| must be at least B (source and target bits overlap)", b, m,
                      s);
  if (b + m + as > 62) return make_error(Errc::swizzle, "Sw<{0},{1},{2}>: bits beyond 62 are not supported", b, m, s);
  return Swizzle{b, m, s};
}

/// c ↦ Sw(L(c)): the swizzle acts on the offset produced by the layout.
struct SwizzledLayout {
  Swizzle swizzle;
  Layout layout;

  TESSEL_HD constexpr index_t operator()(index_t i) const { return swizzle(layout(i)); }
  TESSEL_HD constexpr index_t operator()(const IntTuple& c) const { return swizzle(layout(c)); }
  template <class... Cs>
  requires(sizeof...(Cs) >= 2) TESSEL_HD constexpr index_t operator()(const Cs&... cs) const {
    return swizzle(layout(cs...));
  }
};
TESSEL_HD constexpr bool operator==(const SwizzledLayout& a, const SwizzledLayout& b) {
  return a.swizzle == b.swizzle && a.layout == b.layout;
}

/// C++ example: compose(Sw<3,3,3>, (8,64):(64,1)) is Sw<3,3,3>o((8,64):(64,1)).
TESSEL_HD constexpr SwizzledLayout compose(const Swizzle& sw, const Layout& l) { return SwizzledLayout{sw, l}; }

TESSEL_HD constexpr index_t size(const SwizzledLayout& l) { return size(l.layout); }
TESSEL_HD constexpr int rank(const SwizzledLayout& l) { return rank(l.layout); }
TESSEL_HD constexpr int depth(const SwizzledLayout& l) { return depth(l.layout); }
TESSEL_HD constexpr index_t cosize(const SwizzledLayout& l) { return cosize(l.layout); }

/// Every layout-returning operation acts on the inner layout and re-wraps:
/// f(Sw o L, x) = Sw o f(L, x).
/// Example: composition(Sw<2,3,3>o((8,64):(64,1)), <4,32>) is Sw<2,3,3>o((4,32):(64,1)).
template <class Op>
TESSEL_HD constexpr Result<SwizzledLayout> rewrap(const SwizzledLayout& l, Op op) {
  auto r = op(l.layout);
  if (!r.ok()) return r.err;
  return SwizzledLayout{l.swizzle, r.val};
}

// clang-format off
#define TESSEL_SWIZZLED_BINARY(NAME, ARG)                                                   \
  TESSEL_HD constexpr Result<SwizzledLayout> NAME(const SwizzledLayout& a, const ARG& b) { \
    return rewrap(a, [&](const Layout& x) { return NAME(x, b); });                          \
  }
TESSEL_SWIZZLED_BINARY(composition, Layout)     TESSEL_SWIZZLED_BINARY(composition, Tiler)
TESSEL_SWIZZLED_BINARY(logical_divide, Layout)  TESSEL_SWIZZLED_BINARY(logical_divide, Tiler)
TESSEL_SWIZZLED_BINARY(zipped_divide, Layout)   TESSEL_SWIZZLED_BINARY(zipped_divide, Tiler)
TESSEL_SWIZZLED_BINARY(tiled_divide, Layout)    TESSEL_SWIZZLED_BINARY(tiled_divide, Tiler)
TESSEL_SWIZZLED_BINARY(flat_divide, Layout)     TESSEL_SWIZZLED_BINARY(flat_divide, Tiler)
TESSEL_SWIZZLED_BINARY(logical_product, Layout) TESSEL_SWIZZLED_BINARY(logical_product, Tiler)
TESSEL_SWIZZLED_BINARY(zipped_product, Layout)  TESSEL_SWIZZLED_BINARY(zipped_product, Tiler)
TESSEL_SWIZZLED_BINARY(tiled_product, Layout)   TESSEL_SWIZZLED_BINARY(tiled_product, Tiler)
TESSEL_SWIZZLED_BINARY(blocked_product, Layout) TESSEL_SWIZZLED_BINARY(raked_product, Layout)
TESSEL_SWIZZLED_BINARY(tile_to_shape, IntTuple) TESSEL_SWIZZLED_BINARY(coalesce, IntTuple)
TESSEL_SWIZZLED_BINARY(filter, IntTuple)
#undef TESSEL_SWIZZLED_BINARY
    // clang-format on
    TESSEL_HD constexpr SwizzledLayout coalesce(const SwizzledLayout& a) {
  return SwizzledLayout{a.swizzle, coalesce(a.layout)};
}
TESSEL_HD constexpr SwizzledLayout filter(const SwizzledLayout& a) {
  return SwizzledLayout{a.swizzle, filter(a.layout)};
}

}  // namespace tessel
