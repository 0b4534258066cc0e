// tessel/core/layout.hpp — Layout = Shape:Stride, a function from coordinates
// to offsets; coordinates (idx2crd/crd2idx), compact strides, measures.
#pragma once

#include "tessel/core/int_tuple.hpp"

namespace tessel {

// ---------------------------------------------------------------- coordinates

/// crd2idx of a 1-D coordinate `c` over the leaves of span `s`: colexicographic
/// digits, the last leaf absorbing any overflow (the extended evaluation of
/// docs/algebra.md §3.4).  C++ example: over (4,3):(3,1), c = 13 gives 1*3 + 3*1 = 6.
TESSEL_HD constexpr index_t crd2idx_1d(index_t c, const IntTuple& S, const IntTuple& D, Span s) {
  index_t total = 0;
  for (int i = s.lb; i < s.le - 1; ++i) {
    total += (c % S.val[i]) * D.val[i];
    c /= S.val[i];
  }
  return total + c * D.val[s.le - 1];
}

/// Offset of coordinate `c` (any coordinate weakly congruent to S; unchecked:
/// see check_coord).  `S` and `D` must be congruent.
/// Example: crd2idx((1,5),(3,(2,3)),(3,(12,1))) == 17.
TESSEL_HD constexpr index_t crd2idx_span(const IntTuple& c, Span cs, const IntTuple& S, const IntTuple& D, Span ss) {
  if (span_is_leaf(c, cs)) return crd2idx_1d(c.val[cs.lb], S, D, ss);
  Span cc[kMaxLeaves], sc[kMaxLeaves];
  const int n = children(c, cs, cc);
  children(S, ss, sc);
  index_t total = 0;
  for (int i = 0; i < n; ++i) total += crd2idx_span(c, cc[i], S, D, sc[i]);
  return total;
}
TESSEL_HD constexpr index_t crd2idx(const IntTuple& c, const IntTuple& S, const IntTuple& D) {
  return crd2idx_span(c, whole(c), S, D, whole(S));
}

namespace detail {
TESSEL_HD constexpr void idx2crd_into(IntTuple& out, const IntTuple& c, Span cs, const IntTuple& S, Span ss) {
  if (!span_is_leaf(c, cs)) {  // a tuple coordinate: recurse mode by mode
    Span cc[kMaxLeaves], sc[kMaxLeaves];
    const int n = children(c, cs, cc);
    children(S, ss, sc);
    push_tok(out, kTokOpen);
    for (int i = 0; i < n; ++i) idx2crd_into(out, c, cc[i], S, sc[i]);
    push_tok(out, kTokClose);
    return;
  }
  // An integer for a (sub)shape: its colexicographic digits, with the shape's nesting.
  index_t v = c.val[cs.lb];
  int leaf = ss.lb;
  for (int i = ss.tb; i < ss.te; ++i) {
    const int k = S.tok[i];
    if (k == kTokLeaf) {
      const bool last = (leaf == ss.le - 1);
      push_leaf(out, last ? v : v % S.val[leaf]);
      if (!last) v /= S.val[leaf];
      ++leaf;
    } else {
      push_tok(out, static_cast<Tok>(k));
    }
  }
}
}  // namespace detail

/// Natural coordinate (congruent to S) of index or partial coordinate `c`.
/// Example: idx2crd(16,(3,(2,3))) is `(1,(1,2))`; idx2crd((1,5),(3,(2,3))) is `(1,(1,2))`.
TESSEL_HD constexpr IntTuple idx2crd(const IntTuple& c, const IntTuple& S) {
  IntTuple out;
  detail::idx2crd_into(out, c, whole(c), S, whole(S));
  return out;
}
TESSEL_HD constexpr IntTuple idx2crd(index_t i, const IntTuple& S) { return idx2crd(make_int(i), S); }

namespace detail {
TESSEL_HD constexpr Error check_coord_span(const IntTuple& c, Span cs, const IntTuple& S, Span ss) {
  if (span_is_leaf(c, cs)) {
    const index_t v = c.val[cs.lb];
    const index_t n = span_size(S, ss);
    if (v < 0 || v >= n) return make_error(Errc::coordinate_range, "coordinate {0} is outside [0,{1})", v, n);
    return Error{};
  }
  if (span_is_leaf(S, ss))
    return make_error(Errc::coordinate_rank, "a tuple coordinate was given for the integer extent {0}", S.val[ss.lb]);
  Span cc[kMaxLeaves], sc[kMaxLeaves];
  const int nc = children(c, cs, cc);
  const int ns = children(S, ss, sc);
  if (nc != ns)
    return make_error(Errc::coordinate_rank, "coordinate of rank {0} for a shape (or mode) of rank {1}", nc, ns);
  for (int i = 0; i < nc; ++i) {
    const Error e = check_coord_span(c, cc[i], S, sc[i]);
    if (e.code != Errc::ok) return e;
  }
  return Error{};
}
}  // namespace detail

/// Checks that `c` is a valid coordinate of shape `S`: weakly congruent
/// (`coordinate-rank`) and every integer inside its sub-shape (`coordinate-range`).
TESSEL_HD constexpr Error check_coord(const IntTuple& c, const IntTuple& S) {
  return detail::check_coord_span(c, whole(c), S, whole(S));
}

// ---------------------------------------------------------------- Layout

struct Layout {
  IntTuple shape;
  IntTuple stride;

  /// Value at a 1-D index (extended evaluation beyond size: docs/algebra.md §3.4).
  TESSEL_HD constexpr index_t operator()(index_t i) const { return crd2idx_1d(i, shape, stride, whole(shape)); }
  /// Value at a hierarchical coordinate (unchecked; see check_coord).
  TESSEL_HD constexpr index_t operator()(const IntTuple& c) const { return crd2idx(c, shape, stride); }
  /// Value at the coordinate (c0, c1, ...) of a rank-r layout.
  template <class... Cs>
  requires(sizeof...(Cs) >= 2) TESSEL_HD constexpr index_t operator()(const Cs&... cs) const {
    return crd2idx(make_tuple(cs...), shape, stride);
  }
};

TESSEL_HD constexpr bool operator==(const Layout& a, const Layout& b) {
  return a.shape == b.shape && a.stride == b.stride;
}

TESSEL_HD constexpr int rank(const Layout& l) { return rank(l.shape); }
TESSEL_HD constexpr int depth(const Layout& l) { return depth(l.shape); }
TESSEL_HD constexpr index_t size(const Layout& l) { return size(l.shape); }
TESSEL_HD constexpr bool is_integral(const Layout& l) { return l.shape.is_int(); }

/// One past the largest offset: 1 + sum (s-1)*|d|.  Example: cosize(8:2) == 15.
/// Exact for a layout that check_layout accepted; saturates at kMaxIndex
/// otherwise (never overflows).
TESSEL_HD constexpr index_t cosize(const Layout& l) {
  index_t c = 1;
  for (int i = 0; i < l.shape.nleaf; ++i) {
    const index_t d = l.stride.val[i];
    const index_t ad = d < 0 ? (d == kMinIndex ? kMaxIndex : -d) : d;
    c = sat_add(c, sat_mul(l.shape.val[i] - 1, ad));
  }
  return c;
}

/// Mode `k` as a layout.  C++ example: mode((3,(2,3)):(3,(12,1)),1) is (2,3):(12,1).
TESSEL_HD constexpr Layout mode(const Layout& l, int k) { return Layout{mode(l.shape, k), mode(l.stride, k)}; }

namespace detail {
/// Every leaf of `S` is ≥ 1 and their product fits in index_t.
TESSEL_HD constexpr Error check_extents(const IntTuple& S, const char* what_zero, const char* what_size) {
  index_t p = 1;
  for (int i = 0; i < S.nleaf; ++i)
    if (S.val[i] < 1) return make_error(Errc::value_range, what_zero, S.val[i], i);
  for (int i = 0; i < S.nleaf; ++i) {
    if (mul_overflows(p, S.val[i])) return make_error(Errc::value_range, what_size, kMaxIndex);
    p *= S.val[i];
  }
  return Error{};
}
}  // namespace detail

/// A shape: an integer tuple whose leaves are all ≥ 1 and whose size fits in
/// index_t (at most kMaxIndex = 2^63 - 1).  Targets, cotargets and the shapes
/// of idx2crd are checked with it.  C++ example: check_shape((4,0)) is a value-range error.
TESSEL_HD constexpr Error check_shape(const IntTuple& S) {
  if (S.overflow) return make_error(Errc::capacity, "more than {0} leaves or {1} tokens", kMaxLeaves, kMaxTokens);
  if (S.ntok == 0) return make_error(Errc::syntax, "empty shape");
  return detail::check_extents(S, "extent {0} (leaf {1}, counting from 0) is not positive",
                               "the size of the shape exceeds {0}");
}

/// Shape and stride must be congruent, every extent ≥ 1, nothing truncated,
/// and size and cosize must fit in index_t (at most kMaxIndex = 2^63 - 1): then
/// every offset of an in-range coordinate fits too, and evaluation needs no
/// check.  (Negative strides are legal for evaluation; the algebra rejects them.)
TESSEL_HD constexpr Error check_layout(const Layout& l) {
  if (l.shape.overflow || l.stride.overflow)
    return make_error(Errc::capacity, "more than {0} leaves or {1} tokens", kMaxLeaves, kMaxTokens);
  if (l.shape.ntok == 0) return make_error(Errc::syntax, "empty layout");
  for (int i = 0; i + 1 < l.shape.ntok; ++i)
    if (l.shape.tok[i] == kTokOpen && l.shape.tok[i + 1] == kTokClose)
      return make_error(Errc::syntax, "empty tuple () in a shape");
  if (!congruent(l.shape, l.stride))
    return make_error(Errc::congruence, "shape ({0} leaves) and stride ({1} leaves) are not congruent", l.shape.nleaf,
                      l.stride.nleaf);
  {
    const Error e = detail::check_extents(l.shape, "extent {0} of leaf {1} (counting from 0) is not positive",
                                          "the size of the layout exceeds {0}");
    if (e.code != Errc::ok) return e;
  }
  index_t span = 0;  // cosize - 1: the sum of (extent-1)*|stride|, checked as it grows
  for (int i = 0; i < l.shape.nleaf; ++i) {
    const index_t d = l.stride.val[i];
    if (l.shape.val[i] == 1) continue;  // an extent-1 leaf adds no offset, whatever its stride
    if (d == kMinIndex || mul_overflows(l.shape.val[i] - 1, d < 0 ? -d : d) ||
        add_overflows(span, (l.shape.val[i] - 1) * (d < 0 ? -d : d)))
      return make_error(Errc::value_range, "the cosize of the layout exceeds {0} (its largest offset does not fit)",
                        kMaxIndex);
    span += (l.shape.val[i] - 1) * (d < 0 ? -d : d);
  }
  // Every offset fits, but the cosize counts one more than the largest.
  if (span == kMaxIndex)
    return make_error(Errc::value_range,
                      "the cosize of the layout, 1 + {0}, exceeds {0}: every offset fits, but not their count",
                      kMaxIndex);
  return Error{};
}

/// The layout S:D, checked (congruence, positive extents).
TESSEL_HD constexpr Result<Layout> make_layout_checked(const IntTuple& S, const IntTuple& D) {
  const Layout l{S, D};
  const Error e = check_layout(l);
  if (e.code != Errc::ok) return e;
  return l;
}
/// The layout S:D; an invalid pair is fatal (compile error in a constant expression).
/// C++ example: make_layout(make_shape(4,3), make_stride(3,1)) is (4,3):(3,1).
TESSEL_HD constexpr Layout make_layout(const IntTuple& S, const IntTuple& D) {
  return make_layout_checked(S, D).value();
}

enum class Major { Left, Right };
struct LayoutLeft {};
struct LayoutRight {};

/// Compact strides over the leaves of S (extent-1 leaves get stride 0).
/// C++ example: compact_strides((3,(6,2),8), Left) is (1,(3,18),36);
///          compact_strides((2,(2,2)), Right) is (4,(2,1)).
TESSEL_HD constexpr IntTuple compact_strides(const IntTuple& S, Major major) {
  IntTuple D = S;
  index_t p = 1;
  for (int j = 0; j < S.nleaf; ++j) {
    const int i = (major == Major::Left) ? j : S.nleaf - 1 - j;
    if (S.val[i] == 1) {
      D.val[i] = 0;
    } else {
      D.val[i] = p;
      p = sat_mul(p, S.val[i]);  // exact for a shape that check_shape accepts
    }
  }
  return D;
}
/// Compact column-major layout.  Example: make_layout((2,4)) is (2,4):(1,2).
TESSEL_HD constexpr Layout make_layout(const IntTuple& S) { return Layout{S, compact_strides(S, Major::Left)}; }
TESSEL_HD constexpr Layout make_layout(const IntTuple& S, LayoutLeft) { return make_layout(S); }
/// Compact row-major layout.  Example: make_layout((2,4),LayoutRight) is (2,4):(4,1).
TESSEL_HD constexpr Layout make_layout(const IntTuple& S, LayoutRight) {
  return Layout{S, compact_strides(S, Major::Right)};
}

/// Concatenation: each layout becomes one mode; a single layout becomes the
/// rank-1 layout `(S):(D)`.  C++ example: concat(3:1, 4:3) is (3,4):(1,3).
TESSEL_HD constexpr Layout concat(const Layout* ls, int n) {
  Layout r;
  push_tok(r.shape, kTokOpen);
  push_tok(r.stride, kTokOpen);
  for (int i = 0; i < n; ++i) {
    push_tuple(r.shape, ls[i].shape);
    push_tuple(r.stride, ls[i].stride);
  }
  push_tok(r.shape, kTokClose);
  push_tok(r.stride, kTokClose);
  return r;
}
/// Concatenation built one mode at a time, without an array of layouts (which
/// would cost a stack frame of kMaxLeaves layouts in device code).
/// C++ example: ModeBuilder b; b.add(3:1); b.add(4:3); b.finish() is (3,4):(1,3).
struct ModeBuilder {
  Layout r;
  int n = 0;
  TESSEL_HD constexpr ModeBuilder() {
    push_tok(r.shape, kTokOpen);
    push_tok(r.stride, kTokOpen);
  }
  TESSEL_HD constexpr void add(const Layout& l) {
    push_tuple(r.shape, l.shape);
    push_tuple(r.stride, l.stride);
    ++n;
  }
  TESSEL_HD constexpr Layout finish() {
    push_tok(r.shape, kTokClose);
    push_tok(r.stride, kTokClose);
    return r;
  }
};

/// make_layout(L0, L1, ...): concatenation of layouts into modes.
template <class... Ls>
requires((std::is_same_v<Ls, Layout> && ...)) TESSEL_HD constexpr Layout
    make_layout(const Layout& l0, const Ls&... ls) {
  const Layout all[] = {l0, ls...};
  return concat(all, 1 + static_cast<int>(sizeof...(Ls)));
}

/// A layout from leaf lists (n ≥ 1): `s0:d0` for one leaf, `(s0,..):(d0,..)` otherwise.
TESSEL_HD constexpr Layout layout_from_leaves(const index_t* s, const index_t* d, int n) {
  if (n == 1) return Layout{make_int(s[0]), make_int(d[0])};
  return Layout{flat_tuple_of(s, n), flat_tuple_of(d, n)};
}

}  // namespace tessel
