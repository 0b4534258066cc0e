// tessel/core/algebra.hpp — coalesce, filter, composition, complement,
// inverses, divides, products and tile_to_shape (docs/algebra.md §5–§11).
//
// Each function is written once, over values, and is `constexpr`: with
// constant arguments the compiler folds it (see tests/static_algebra_test.cpp),
// with run-time arguments the same body runs on the host or the GPU.
// Functions that can reject their input return `Result<Layout>`.
#pragma once

#include "tessel/core/layout.hpp"

namespace tessel {

// ================================================================ leaf lists

/// The leaves of a layout (or a working list of them), in order.
struct Leaves {
  index_t s[kMaxLeaves]{};
  index_t d[kMaxLeaves]{};
  int n = 0;
  bool overflow = false;

  TESSEL_HD constexpr void push(index_t shape, index_t stride) {
    if (n == kMaxLeaves) {
      overflow = true;
      return;
    }
    s[n] = shape;
    d[n] = stride;
    ++n;
  }
};

TESSEL_HD constexpr Leaves leaves_of(const Layout& l) {
  Leaves r;
  for (int i = 0; i < l.shape.nleaf; ++i) r.push(l.shape.val[i], l.stride.val[i]);
  return r;
}

/// True when `d == s0 * d0` (a product that does not fit equals no stride).
TESSEL_HD constexpr bool continues(index_t s0, index_t d0, index_t d) { return !mul_overflows(s0, d0) && d == s0 * d0; }

/// Drop extent-1 leaves and merge `s0:d0, s:d` into `(s0*s):d0` when d == s0*d0.
/// The merged extents multiply up to the layout's size, which check_layout bounds.
TESSEL_HD constexpr Leaves coalesce_leaves(const Leaves& in) {
  Leaves out;
  for (int i = 0; i < in.n; ++i) {
    if (in.s[i] == 1) continue;
    if (out.n > 0 && continues(out.s[out.n - 1], out.d[out.n - 1], in.d[i])) {
      out.s[out.n - 1] = sat_mul(out.s[out.n - 1], in.s[i]);
    } else {
      out.push(in.s[i], in.d[i]);
    }
  }
  return out;
}

/// `1:0` for no leaves, `s:d` for one, the flat tuple layout otherwise.
TESSEL_HD constexpr Layout layout_of(const Leaves& l) {
  if (l.n == 0) return Layout{make_int(1), make_int(0)};
  return layout_from_leaves(l.s, l.d, l.n);
}

namespace detail {
/// Inputs of the algebra: a valid layout with non-negative strides.
TESSEL_HD constexpr Error check_algebra_input(const Layout& l) {
  const Error e = check_layout(l);
  if (e.code != Errc::ok) return e;
  for (int i = 0; i < l.stride.nleaf; ++i)
    if (l.stride.val[i] < 0)
      return make_error(Errc::value_range, "negative stride {0} (leaf {1}) is not supported by the algebra",
                        l.stride.val[i], i);
  return Error{};
}
TESSEL_HD constexpr Error check_algebra_inputs(const Layout& a, const Layout& b) {
  const Error e = check_algebra_input(a);
  return e.code != Errc::ok ? e : check_algebra_input(b);
}
TESSEL_HD constexpr Error capacity_error() {
  return make_error(Errc::capacity, "the result needs more than {0} leaves or {1} tokens", kMaxLeaves, kMaxTokens);
}
/// Every layout the algebra returns is itself a valid layout (check_layout:
/// positive extents, size and cosize within index_t), so that any result can
/// be fed back to the algebra and to the calculator's parser.
TESSEL_HD constexpr Result<Layout> checked_result(const Layout& l) {
  if (l.shape.overflow || l.stride.overflow) return capacity_error();
  const Error e = check_layout(l);
  if (e.code != Errc::ok) {
    if (e.code == Errc::value_range)
      return make_error(Errc::value_range, "the result's size or cosize would exceed {0}", kMaxIndex);
    return e;
  }
  return l;
}
TESSEL_HD constexpr Error overflow_error(const char* what) { return make_error(Errc::value_range, what, kMaxIndex); }
}  // namespace detail

// ================================================================ coalesce, filter

/// Same function on 0..size-1, depth ≤ 1, fewest leaves.
/// Example: coalesce((2,(1,6)):(1,(6,2))) is 12:1; coalesce((1,1,4):(3,4,6)) is 4:6.
TESSEL_HD constexpr Layout coalesce(const Layout& l) { return layout_of(coalesce_leaves(leaves_of(l))); }

namespace detail {
/// Apply `op` to the modes named by profile P (docs/algebra.md §5.2); later modes are copied.
template <class Op>
TESSEL_HD constexpr Result<Layout> by_profile(const Layout& l, const IntTuple& P, Op op) {
  if (P.is_int()) return op(l);
  const int rp = rank(P);
  const int rl = rank(l);
  if (rp > rl) return make_error(Errc::tiler_rank, "profile of rank {0} for a layout of rank {1}", rp, rl);
  ModeBuilder out;
  for (int k = 0; k < rl; ++k) {
    const Layout lk = mode(l, k);
    if (k < rp) {
      auto r = by_profile(lk, mode(P, k), op);
      if (!r.ok()) return r.err;
      out.add(r.val);
    } else {
      out.add(lk);
    }
  }
  return checked_result(out.finish());
}
}  // namespace detail

/// By-mode coalesce: only the nesting of P matters.
/// Example: coalesce((2,(1,6)):(1,(6,2)), (1,1)) is (2,6):(1,2).
TESSEL_HD constexpr Result<Layout> coalesce(const Layout& l, const IntTuple& P) {
  return detail::by_profile(l, P, [](const Layout& x) -> Result<Layout> { return coalesce(x); });
}

/// Drop stride-0 and extent-1 leaves, then coalesce.
/// Example: filter((4,3):(1,0)) is 4:1; filter((6,1):(0,5)) is 1:0.
TESSEL_HD constexpr Layout filter(const Layout& l) {
  Leaves v = leaves_of(l);
  for (int i = 0; i < v.n; ++i)
    if (v.d[i] == 0) v.s[i] = 1;
  return layout_of(coalesce_leaves(v));
}
/// By-mode filter with a profile, as coalesce(L,P).
TESSEL_HD constexpr Result<Layout> filter(const Layout& l, const IntTuple& P) {
  return detail::by_profile(l, P, [](const Layout& x) -> Result<Layout> { return filter(x); });
}

// ================================================================ composition

namespace detail {
/// The leaves that B's leaf s:d becomes in A∘B, where `a` is coalesce(A)
/// with its last extent widened (docs/algebra.md §6.2); `reach` collects the
/// digits each mode of `a` uses, for the overlap rule.
TESSEL_HD constexpr Error compose_leaf(const Leaves& a, index_t s, index_t d, index_t* reach, Leaves& out) {
  const int last = a.n - 1;
  if (d == 0) {
    out.push(s, 0);
    return Error{};
  }
  if (a.n == 1) {
    if (mul_overflows(d, a.d[0])) return overflow_error("a stride of the result would exceed {0}");
    out.push(s, d * a.d[0]);
    return Error{};
  }
  index_t rest_s = s, rest_d = d;
  for (int k = 0; k < last; ++k) {
    const index_t Mk = a.s[k];
    if (!(rest_d % Mk == 0 || rest_d < Mk))
      return make_error(Errc::stride_divisibility,
                        "stride {0} of B at mode {2} of coalesce(A) is neither a multiple of nor smaller than "
                        "that mode's extent {1}",
                        rest_d, Mk, k);
    const index_t q = ceil_div(Mk, rest_d);
    const index_t next_d = ceil_div(rest_d, Mk);
    if (q == 1 || rest_s == 1) {
      rest_d = next_d;
      continue;
    }
    const index_t take = q < rest_s ? q : rest_s;
    if (rest_s % take != 0)
      return make_error(Errc::shape_divisibility, "extent {0} of B at mode {2} of coalesce(A) is not divisible by {1}",
                        rest_s, take, k);
    if (take < rest_s && Mk % rest_d != 0)
      return make_error(Errc::inexact_division,
                        "a leaf of B continues past mode {2} of coalesce(A) but its stride {0} does not divide "
                        "that mode's extent {1}",
                        rest_d, Mk, k);
    if (mul_overflows(rest_d, a.d[k])) return overflow_error("a stride of the result would exceed {0}");
    out.push(take, rest_d * a.d[k]);
    reach[k] = sat_add(reach[k], (take - 1) * rest_d);  // (take-1)*rest_d < Mk: no overflow
    rest_s /= take;
    rest_d = next_d;
  }
  if (out.n == 0 || rest_s != 1) {
    if (mul_overflows(rest_d, a.d[last])) return overflow_error("a stride of the result would exceed {0}");
    out.push(rest_s, rest_d * a.d[last]);
  }
  return Error{};
}
}  // namespace detail

/// R = A∘B with R(c) == A(B(c)) for every coordinate c of B (docs/algebra.md §6);
/// shape(R) is compatible with shape(B) and has B's top-level profile.
/// Rejects inputs where no such layout exists: stride-divisibility,
/// shape-divisibility, inexact-division, overlap.  An extent-1 leaf of B
/// never fails: its stride's image through A, or 0 when that has none or
/// would not fit (composition(1:2, 1:2^62) is 1:0).
/// Example: composition((6,2):(8,2), (4,3):(3,1)) is ((2,2),3):((24,2),8).
TESSEL_HD constexpr Result<Layout> composition(const Layout& A, const Layout& B) {
  {
    const Error e = detail::check_algebra_inputs(A, B);
    if (e.code != Errc::ok) return e;
  }
  // A' = coalesce(flatten(A)) with a trailing extent 1 widened to 2, so the
  // last stride survives for the extended evaluation of A (docs/algebra.md §6.2 step 1).
  Leaves a = leaves_of(A);
  if (a.s[a.n - 1] == 1) a.s[a.n - 1] = 2;
  a = coalesce_leaves(a);
  const int last = a.n - 1;     // index of A's last mode
  index_t reach[kMaxLeaves]{};  // largest digit used per mode (overlap rule)

  Layout R;
  int bleaf = 0;
  for (int t = 0; t < B.shape.ntok; ++t) {
    const int tok = B.shape.tok[t];
    if (tok != kTokLeaf) {
      push_tok(R.shape, static_cast<Tok>(tok));
      push_tok(R.stride, static_cast<Tok>(tok));
      continue;
    }
    const index_t s = B.shape.val[bleaf];
    const index_t d = B.stride.val[bleaf];
    ++bleaf;
    Leaves out;
    const Error e = detail::compose_leaf(a, s, d, reach, out);
    if (e.code != Errc::ok) {
      // An extent-1 leaf adds no offset whatever its stride, so a stride with
      // no image through A (or none that fits) must not fail the composition.
      if (s != 1) return e;
      out = Leaves{};
      out.push(1, 0);
    }
    if (out.n == 1) {
      push_leaf(R.shape, out.s[0]);
      push_leaf(R.stride, out.d[0]);
    } else {
      push_tok(R.shape, kTokOpen);
      push_tok(R.stride, kTokOpen);
      for (int i = 0; i < out.n; ++i) {
        push_leaf(R.shape, out.s[i]);
        push_leaf(R.stride, out.d[i]);
      }
      push_tok(R.shape, kTokClose);
      push_tok(R.stride, kTokClose);
    }
  }
  for (int k = 0; k < last; ++k)
    if (reach[k] >= a.s[k])
      return make_error(Errc::overlap,
                        "the leaves of B together reach digit {0} in mode {2} of coalesce(A), whose extent is {1}: "
                        "the carry into the next mode would be lost",
                        reach[k], a.s[k], k);
  return detail::checked_result(R);
}

// ================================================================ tilers

/// `_` in a tiler: leave that mode alone.
struct Underscore {};
inline constexpr Underscore _{};

/// One element of a tiler `<T0,T1,...>`: `_`, an integer n, or a layout.
struct TilerMode {
  enum Kind : std::int8_t { kSkip = 0, kInt = 1, kLayout = 2 };
  std::int8_t kind = kSkip;
  index_t n = 0;
  Layout layout{};
};
struct Tiler {
  TilerMode mode[kMaxTilerModes]{};
  int n = 0;
  bool overflow = false;
};

namespace detail {
TESSEL_HD constexpr TilerMode tiler_mode(Underscore) { return TilerMode{}; }
TESSEL_HD constexpr TilerMode tiler_mode(const Layout& l) { return TilerMode{TilerMode::kLayout, 0, l}; }
template <Integer T>
TESSEL_HD constexpr TilerMode tiler_mode(const T& n) {
  return TilerMode{TilerMode::kInt, static_cast<index_t>(n), Layout{}};
}
}  // namespace detail

/// make_tiler(_4{}, _, make_layout(...)) is the tiler `<4,_,L>`.
template <class... Ts>
TESSEL_HD constexpr Tiler make_tiler(const Ts&... xs) {
  static_assert(sizeof...(Ts) <= kMaxTilerModes, "tessel: too many tiler modes");
  Tiler t;
  ((t.mode[t.n++] = detail::tiler_mode(xs)), ...);
  return t;
}

namespace detail {
/// Apply `op(A_k, T_k)` to each mode named by the tiler; `_` keeps A_k; later
/// modes are dropped (composition) or kept (divides, products).
template <class Op>
TESSEL_HD constexpr Result<Layout> by_tiler(const Layout& A, const Tiler& T, bool keep_rest, bool int_is_compact,
                                            Op op) {
  const Error e = check_algebra_input(A);
  if (e.code != Errc::ok) return e;
  if (T.overflow || T.n < 1) return make_error(Errc::capacity, "a tiler needs 1 to {0} modes", kMaxTilerModes);
  const int ra = rank(A);
  if (T.n > ra) return make_error(Errc::tiler_rank, "tiler of rank {0} for a layout of rank {1}", T.n, ra);
  ModeBuilder out;
  const int n = keep_rest ? ra : T.n;
  for (int k = 0; k < n; ++k) {
    const Layout ak = mode(A, k);
    if (k >= T.n || T.mode[k].kind == TilerMode::kSkip) {
      out.add(ak);
      continue;
    }
    Layout tk = T.mode[k].layout;
    if (T.mode[k].kind == TilerMode::kInt) {
      const index_t m = T.mode[k].n;
      if (m < 1) return make_error(Errc::value_range, "tiler extent {0} is not positive", m);
      // composition reads `n` as n:1; divides and products as make_layout(n).
      tk = (int_is_compact && m == 1) ? Layout{make_int(1), make_int(0)} : Layout{make_int(m), make_int(1)};
    }
    auto r = op(ak, tk);
    if (!r.ok()) return r.err;
    out.add(r.val);
  }
  return checked_result(out.finish());
}
}  // namespace detail

namespace detail {
/// A shape used as a tiler, as CuTe reads one: an integer n is the layout
/// n:1 (1:0 where `int_is_compact`: make_layout(1)), a tuple of integers
/// (n0, n1, ...) the by-mode tiler <n0:1, n1:1, ...>.  `lop` and `top` are
/// the operation with a layout and with a tiler.
template <class LayoutOp, class TilerOp>
TESSEL_HD constexpr Result<Layout> by_shape(const Layout& A, const IntTuple& S, bool int_is_compact, LayoutOp lop,
                                            TilerOp top) {
  if (S.overflow || S.ntok == 0) return make_error(Errc::syntax, "the tiler is not an integer tuple");
  if (S.is_int()) {
    const index_t n = S.val[0];
    if (n < 1) return make_error(Errc::value_range, "tiler extent {0} is not positive", n);
    return lop(A, (int_is_compact && n == 1) ? Layout{make_int(1), make_int(0)} : Layout{make_int(n), make_int(1)});
  }
  const int r = rank(S);
  if (r > kMaxTilerModes) return make_error(Errc::capacity, "a tiler needs 1 to {0} modes", kMaxTilerModes);
  Tiler T;
  for (int k = 0; k < r; ++k) {
    const IntTuple sk = mode(S, k);
    if (!sk.is_int())
      return make_error(Errc::type,
                        "mode {0} of the shape used as a tiler is a tuple: a shape tiler is a tuple of integers "
                        "(write that mode as a layout in a tiler <...>)",
                        k);
    T.mode[T.n++] = TilerMode{TilerMode::kInt, sk.val[0], Layout{}};
  }
  return top(A, T);
}
}  // namespace detail

/// By-mode composition; modes of A beyond the tiler are dropped.
/// Example: composition((12,(4,8)):(59,(13,1)), <3:4,8:2>) is (3,(2,4)):(236,(26,1)).
TESSEL_HD constexpr Result<Layout> composition(const Layout& A, const Tiler& T) {
  return detail::by_tiler(A, T, false, false, [](const Layout& a, const Layout& b) { return composition(a, b); });
}

// ================================================================ complement

/// R strictly increasing, avoiding L's offsets, with (L,R) covering size(C)
/// (docs/algebra.md §7).  C is an integer or an integer tuple.
/// Example: complement(4:2, 24) is (2,3):(1,8); complement((2,2):(1,6)) is 3:2.
TESSEL_HD constexpr Result<Layout> complement(const Layout& L, const IntTuple& C) {
  {
    const Error e = detail::check_algebra_input(L);
    if (e.code != Errc::ok) return e;
  }
  {
    const Error e = detail::check_extents(C, "cotarget extent {0} (leaf {1}, counting from 0) is not positive",
                                          "the size of the cotarget exceeds {0}");
    if (e.code != Errc::ok) return e;
    if (C.overflow || C.ntok == 0) return make_error(Errc::syntax, "the cotarget is not an integer tuple");
  }
  Layout Fl = filter(L);
  if (Fl.shape.is_int() && Fl.shape.val[0] == 1) {
    const index_t c = size(C);  // exact: check_extents bounded it
    return Layout{make_int(c), make_int(c == 1 ? 0 : 1)};
  }
  const Leaves F = leaves_of(Fl);
  bool used[kMaxLeaves]{};
  Leaves out;  // out.s = shapes, out.d = strides; strides start with 1
  index_t cur_stride = 1;
  for (int step = 0; step < F.n - 1; ++step) {
    int best = -1;
    for (int i = 0; i < F.n; ++i)
      if (!used[i] && (best < 0 || F.d[i] < F.d[best])) best = i;
    used[best] = true;
    const index_t sh = F.d[best] / cur_stride;
    if (sh == 0)
      return make_error(Errc::non_injective,
                        "leaf {0}:{1} revisits offsets below {2} that earlier leaves already cover", F.s[best],
                        F.d[best], cur_stride);
    out.push(sh, cur_stride);
    if (mul_overflows(F.d[best], F.s[best])) return detail::overflow_error("the complement's stride would exceed {0}");
    cur_stride = F.d[best] * F.s[best];
  }
  int lastleaf = 0;
  for (int i = 0; i < F.n; ++i)
    if (!used[i]) lastleaf = i;
  const index_t sh = F.d[lastleaf] / cur_stride;
  if (sh == 0)
    return make_error(Errc::non_injective, "leaf {0}:{1} revisits offsets below {2} that earlier leaves already cover",
                      F.s[lastleaf], F.d[lastleaf], cur_stride);
  out.push(sh, cur_stride);
  if (mul_overflows(F.d[lastleaf], F.s[lastleaf]))
    return detail::overflow_error("the complement's stride would exceed {0}");
  const index_t ext = F.d[lastleaf] * F.s[lastleaf];
  index_t rest = 1;
  if (C.is_int()) {
    rest = ceil_div(C.val[0], ext);
  } else {
    index_t x = ext;
    for (int i = 0; i < C.nleaf; ++i) {
      const index_t r = ceil_div(C.val[i], x);
      if (mul_overflows(rest, r)) return detail::overflow_error("the complement's size would exceed {0}");
      rest *= r;
      x = ceil_div(x, C.val[i]);
    }
  }
  out.push(rest, rest == 1 ? 0 : ext);
  return detail::checked_result(coalesce(layout_of(out)));
}
/// complement with the default cotarget cosize(filter(L)).
/// Example: complement(4:2) is 2:1.
TESSEL_HD constexpr Result<Layout> complement(const Layout& L) {
  const Error e = detail::check_algebra_input(L);
  if (e.code != Errc::ok) return e;
  return complement(L, make_int(cosize(filter(L))));
}
TESSEL_HD constexpr Result<Layout> complement(const Layout& L, index_t cotarget) {
  return complement(L, make_int(cotarget));
}

// ================================================================ inverses

namespace detail {
/// coalesce(L)'s leaves, their exclusive prefix products, and the visiting
/// order of docs/algebra.md §8 (an exchange sort by stride: not stable, ties matter).
struct InverseOrder {
  Leaves c;
  index_t prefix[kMaxLeaves]{};
  int order[kMaxLeaves]{};
};
TESSEL_HD constexpr InverseOrder inverse_order(const Layout& L) {
  InverseOrder r;
  Leaves c = coalesce_leaves(leaves_of(L));
  if (c.n == 0) c.push(1, 0);
  r.c = c;
  index_t p = 1;
  for (int j = 0; j < c.n; ++j) {
    r.prefix[j] = p;
    p = sat_mul(p, c.s[j]);  // the prefixes multiply up to size(L), which check_layout bounds
    r.order[j] = j;
  }
  for (int i = 0; i < c.n; ++i)
    for (int j = i + 1; j < c.n; ++j)
      if (c.d[r.order[j]] < c.d[r.order[i]]) {
        const int t = r.order[i];
        r.order[i] = r.order[j];
        r.order[j] = t;
      }
  return r;
}
}  // namespace detail

/// R with L(R(i)) == i for i < size(R), as large as the greedy rule finds.
/// Example: right_inverse((4,3):(3,1)) is (3,4):(4,1); right_inverse(6:3) is 1:0.
TESSEL_HD constexpr Result<Layout> right_inverse(const Layout& L) {
  const Error e = detail::check_algebra_input(L);
  if (e.code != Errc::ok) return e;
  const detail::InverseOrder o = detail::inverse_order(L);
  Leaves out;
  out.push(1, 0);
  index_t cur = 1;
  for (int i = 0; i < o.c.n; ++i) {
    const int j = o.order[i];
    if (o.c.d[j] == cur) {
      out.push(o.c.s[j], o.prefix[j]);
      if (mul_overflows(o.c.s[j], o.c.d[j])) break;  // no stride can continue past kMaxIndex
      cur = o.c.s[j] * o.c.d[j];
    }
  }
  return detail::checked_result(coalesce(layout_of(out)));
}

/// R with R(L(i)) == i for i < size(L) when filter(L) is injective.
/// Example: left_inverse(4:2) is (2,4):(0,1); left_inverse((3,2,2):(0,1,0)) is 2:3.
TESSEL_HD constexpr Result<Layout> left_inverse(const Layout& L) {
  const Error e = detail::check_algebra_input(L);
  if (e.code != Errc::ok) return e;
  const detail::InverseOrder o = detail::inverse_order(L);
  Leaves out;
  index_t z = 1;  // product of the shapes so far
  index_t pending_stride = 0;
  for (int i = 0; i < o.c.n; ++i) {
    const int j = o.order[i];
    if (o.c.d[j] == 0) continue;
    if (o.c.d[j] % z != 0)
      return make_error(Errc::left_inverse_divisibility,
                        "stride {0} is not a multiple of {1}, the extent the earlier leaves cover", o.c.d[j], z);
    out.push(o.c.d[j] / z, pending_stride);
    z *= o.c.d[j] / z;
    pending_stride = o.prefix[j];
  }
  out.push(o.c.s[o.order[o.c.n - 1]], pending_stride);
  return detail::checked_result(coalesce(layout_of(out)));
}

// ================================================================ divide

/// logical_divide(A,B) = A ∘ (B, complement(B, shape(coalesce(A)))).
/// Mode 0 is one tile, mode 1 enumerates the tiles.
/// Example: logical_divide((6,4):(4,1), 2:1) is (2,(3,4)):(4,(8,1)).
TESSEL_HD constexpr Result<Layout> logical_divide(const Layout& A, const Layout& B) {
  const Error e = detail::check_algebra_input(A);
  if (e.code != Errc::ok) return e;
  TESSEL_TRY(rest, complement(B, coalesce(A).shape));
  const Layout both[] = {B, rest};
  const Layout tiles = concat(both, 2);
  const Error te = check_layout(tiles);
  if (te.code == Errc::capacity) return detail::capacity_error();
  if (te.code != Errc::ok)  // a tile that does not divide size(A) rounds the count of tiles up
    return detail::overflow_error("the tile and the tiles that cover A would span more than {0} offsets");
  return composition(A, tiles);
}
/// By-mode logical_divide; modes beyond the tiler are kept.
/// Example: logical_divide((6,20):(20,1), <2,4>) is ((2,3),(4,5)):((20,40),(1,4)).
TESSEL_HD constexpr Result<Layout> logical_divide(const Layout& A, const Tiler& T) {
  return detail::by_tiler(A, T, true, true, [](const Layout& a, const Layout& b) { return logical_divide(a, b); });
}

namespace detail {
/// ((X0_0,...,Xm-1_0), (X0_1,...,Xm-1_1, X_m, ...)) from a by-mode result X
/// whose first m modes are (tile, rest) pairs (docs/algebra.md §9.3).
TESSEL_HD constexpr Result<Layout> zip_modes(const Layout& X, int m) {
  ModeBuilder tiles, rests;
  const int rx = rank(X);
  for (int k = 0; k < m; ++k) {
    const Layout xk = mode(X, k);
    if (xk.shape.is_int() || rank(xk) != 2)
      return make_error(Errc::tiler_rank, "mode {0} of the by-mode result is not a (tile, rest) pair", k);
    tiles.add(mode(xk, 0));
    rests.add(mode(xk, 1));
  }
  for (int k = m; k < rx; ++k) rests.add(mode(X, k));
  ModeBuilder out;
  out.add(tiles.finish());
  out.add(rests.finish());
  return checked_result(out.finish());
}
/// (Z0, Z1) -> (Z0, Z1_0, Z1_1, ...) when rank(Z1) > 1; also splits Z0 when `flat`.
TESSEL_HD constexpr Result<Layout> unpack_modes(const Layout& Z, bool flat) {
  ModeBuilder out;
  const Layout z0 = mode(Z, 0), z1 = mode(Z, 1);
  if (flat && !z0.shape.is_int() && rank(z0) > 1) {
    for (int k = 0; k < rank(z0); ++k) out.add(mode(z0, k));
  } else {
    out.add(z0);
  }
  if (!z1.shape.is_int() && rank(z1) > 1) {
    for (int k = 0; k < rank(z1); ++k) out.add(mode(z1, k));
  } else {
    out.add(z1);
  }
  return checked_result(out.finish());
}
}  // namespace detail

/// Tiles in mode 0, the grid of tiles in mode 1.
/// Example: zipped_divide((6,20):(20,1), <2,4>) is ((2,4),(3,5)):((20,1),(40,4)).
TESSEL_HD constexpr Result<Layout> zipped_divide(const Layout& A, const Layout& B) { return logical_divide(A, B); }
TESSEL_HD constexpr Result<Layout> zipped_divide(const Layout& A, const Tiler& T) {
  TESSEL_TRY(x, logical_divide(A, T));
  return detail::zip_modes(x, T.n);
}
/// The tile in mode 0, then one mode per grid dimension.
/// Example: tiled_divide((6,20):(20,1), <2,4>) is ((2,4),3,5):((20,1),40,4).
TESSEL_HD constexpr Result<Layout> tiled_divide(const Layout& A, const Layout& B) {
  TESSEL_TRY(z, zipped_divide(A, B));
  return detail::unpack_modes(z, false);
}
TESSEL_HD constexpr Result<Layout> tiled_divide(const Layout& A, const Tiler& T) {
  TESSEL_TRY(z, zipped_divide(A, T));
  return detail::unpack_modes(z, false);
}
/// Tile modes, then grid modes, all at the top level.
/// Example: flat_divide((6,20):(20,1), <2,4>) is (2,4,3,5):(20,1,40,4).
TESSEL_HD constexpr Result<Layout> flat_divide(const Layout& A, const Layout& B) {
  TESSEL_TRY(z, zipped_divide(A, B));
  return detail::unpack_modes(z, true);
}
TESSEL_HD constexpr Result<Layout> flat_divide(const Layout& A, const Tiler& T) {
  TESSEL_TRY(z, zipped_divide(A, T));
  return detail::unpack_modes(z, true);
}

// ================================================================ product

/// logical_product(A,B) = (A, complement(A, size(A)*cosize(B)) ∘ B).
/// Mode 0 is A; mode 1 places copies of A as B says.
/// Example: logical_product((2,2):(4,1), 6:1) is ((2,2),(2,3)):((4,1),(2,8)).
TESSEL_HD constexpr Result<Layout> logical_product(const Layout& A, const Layout& B) {
  {
    const Error e = detail::check_algebra_inputs(A, B);
    if (e.code != Errc::ok) return e;
  }
  if (mul_overflows(size(A), cosize(B)))
    return detail::overflow_error("size(A) * cosize(B), the product's cotarget, would exceed {0}");
  TESSEL_TRY(rest, complement(A, size(A) * cosize(B)));
  TESSEL_TRY(copies, composition(rest, B));
  const Layout both[] = {A, copies};
  return detail::checked_result(concat(both, 2));
}
/// By-mode logical_product; modes beyond the tiler are kept.
/// Example: logical_product((2,5):(5,1), <3:5,4:6>) is ((2,3),(5,4)):((5,10),(1,30)).
TESSEL_HD constexpr Result<Layout> logical_product(const Layout& A, const Tiler& T) {
  return detail::by_tiler(A, T, true, true, [](const Layout& a, const Layout& b) { return logical_product(a, b); });
}
/// Example: zipped_product((2,5):(5,1), <3:5,4:6>) is ((2,5),(3,4)):((5,1),(10,30)).
TESSEL_HD constexpr Result<Layout> zipped_product(const Layout& A, const Layout& B) { return logical_product(A, B); }
TESSEL_HD constexpr Result<Layout> zipped_product(const Layout& A, const Tiler& T) {
  TESSEL_TRY(x, logical_product(A, T));
  return detail::zip_modes(x, T.n);
}
/// Example: tiled_product((2,5):(5,1), <3:5,4:6>) is ((2,5),3,4):((5,1),10,30).
TESSEL_HD constexpr Result<Layout> tiled_product(const Layout& A, const Layout& B) {
  TESSEL_TRY(z, zipped_product(A, B));
  return detail::unpack_modes(z, false);
}
TESSEL_HD constexpr Result<Layout> tiled_product(const Layout& A, const Tiler& T) {
  TESSEL_TRY(z, zipped_product(A, T));
  return detail::unpack_modes(z, false);
}

// ================================================================ shapes as tilers

// Where a tiler is taken, a shape is too, as in CuTe: (2,4) is <2:1,4:1>, by
// mode, and an integer n is the layout n:1 (make_layout(n) for the divides and
// products).  Example: logical_divide((8,8):(1,8), (2,4)) is ((2,4),(4,2)):((1,2),(8,32)).
#define TESSEL_SHAPE_TILER(NAME, COMPACT)                                           \
  TESSEL_HD constexpr Result<Layout> NAME(const Layout& A, const IntTuple& S) {     \
    return detail::by_shape(                                                        \
        A, S, COMPACT, [](const Layout& a, const Layout& b) { return NAME(a, b); }, \
        [](const Layout& a, const Tiler& t) { return NAME(a, t); });                \
  }
TESSEL_SHAPE_TILER(composition, false)
TESSEL_SHAPE_TILER(logical_divide, true)
TESSEL_SHAPE_TILER(zipped_divide, true)
TESSEL_SHAPE_TILER(tiled_divide, true)
TESSEL_SHAPE_TILER(flat_divide, true)
TESSEL_SHAPE_TILER(logical_product, true)
TESSEL_SHAPE_TILER(zipped_product, true)
TESSEL_SHAPE_TILER(tiled_product, true)
#undef TESSEL_SHAPE_TILER

namespace detail {
/// Append `1:0` modes up to rank R (R == 1 leaves L unchanged).
/// C++ example: pad_rank(3:1, 2) is (3,1):(1,0).
TESSEL_HD constexpr Layout pad_rank(const Layout& L, int R) {
  const int r = rank(L);
  if (R <= 1 || r >= R) return L;
  ModeBuilder out;
  for (int k = 0; k < r; ++k) out.add(mode(L, k));
  for (int k = r; k < R; ++k) out.add(Layout{make_int(1), make_int(0)});
  return out.finish();
}
/// Mode k of the result is (X_k, Y_k); an integral X gives the single mode (X,Y).
TESSEL_HD constexpr Result<Layout> zip_pairs(const Layout& X, const Layout& Y) {
  if (X.shape.is_int()) {
    const Layout pair[] = {X, Y};
    const Layout one[] = {concat(pair, 2)};
    return checked_result(concat(one, 1));
  }
  if (Y.shape.is_int())
    return make_error(Errc::tiler_rank, "cannot zip a tuple of rank {0} with the integer {1} mode by mode", rank(X),
                      Y.shape.val[0]);
  if (rank(X) != rank(Y))
    return make_error(Errc::tiler_rank, "cannot zip a layout of rank {0} with one of rank {1}", rank(X), rank(Y));
  ModeBuilder out;
  const int r = rank(X);
  for (int k = 0; k < r; ++k) {
    ModeBuilder pair;
    pair.add(mode(X, k));
    pair.add(mode(Y, k));
    out.add(pair.finish());
  }
  return checked_result(out.finish());
}
TESSEL_HD constexpr Result<Layout> rank_product(const Layout& A, const Layout& B, bool raked) {
  {
    const Error e = check_algebra_inputs(A, B);
    if (e.code != Errc::ok) return e;
  }
  const int R = rank(A) > rank(B) ? rank(A) : rank(B);
  // Mode k of the result pairs A's mode k with B's: with rank 1 on both
  // sides, the first of the pair as a tuple needs the second as a tuple too.
  const Layout& first = raked ? B : A;
  const Layout& second = raked ? A : B;
  if (R == 1 && !first.shape.is_int() && second.shape.is_int())
    return make_error(Errc::tiler_rank,
                      raked ? "B's shape is a tuple of rank 1 but A's is the integer {0}: mode 0 of the result pairs "
                              "them, a tuple with an integer (write A as a rank-1 tuple (S):(D), or B as S:D)"
                            : "A's shape is a tuple of rank 1 but B's is the integer {0}: mode 0 of the result pairs "
                              "them, a tuple with an integer (write B as a rank-1 tuple (S):(D), or A as S:D)",
                      second.shape.val[0]);
  TESSEL_TRY(P, logical_product(pad_rank(A, R), pad_rank(B, R)));
  const Layout p0 = mode(P, 0), p1 = mode(P, 1);
  return raked ? zip_pairs(p1, p0) : zip_pairs(p0, p1);
}
}  // namespace detail

/// Mode k is (inside a block, across blocks).
/// Example: blocked_product((2,5):(5,1), (3,4):(1,3)) is ((2,3),(5,4)):((5,10),(1,30)).
TESSEL_HD constexpr Result<Layout> blocked_product(const Layout& A, const Layout& B) {
  return detail::rank_product(A, B, false);
}
/// Mode k is (across blocks, inside a block): a cyclic distribution.
/// Example: raked_product((2,5):(5,1), (3,4):(1,3)) is ((3,2),(4,5)):((10,5),(30,1)).
TESSEL_HD constexpr Result<Layout> raked_product(const Layout& A, const Layout& B) {
  return detail::rank_product(A, B, true);
}

/// Repeat block L (column-major order of blocks) until it covers shape T.
/// Example: tile_to_shape((2,2):(1,2), (4,8)) is ((2,2),(2,4)):((1,4),(2,8)).
TESSEL_HD constexpr Result<Layout> tile_to_shape(const Layout& L, const IntTuple& T) {
  {
    const Error e = detail::check_algebra_input(L);
    if (e.code != Errc::ok) return e;
  }
  {
    if (T.overflow || T.ntok == 0) return make_error(Errc::syntax, "the target is not an integer tuple");
    const Error e =
        detail::check_extents(T, "target extent {0} (leaf {1} of the target, counting from 0) is not positive",
                              "the size of the target shape exceeds {0}");
    if (e.code != Errc::ok) return e;
  }
  const int R = rank(T);
  if (rank(L) > R) return make_error(Errc::tiler_rank, "block of rank {0} for a target shape of rank {1}", rank(L), R);
  const Layout P = detail::pad_rank(L, R);
  index_t q[kMaxLeaves]{};
  for (int k = 0; k < R; ++k) {
    const index_t b = size(R == 1 ? P : mode(P, k));
    const index_t t = size(R == 1 ? T : mode(T, k));
    if (t % b != 0)
      return make_error(Errc::tile_divisibility, "target extent {0} of mode {2} is not a multiple of the block's {1}",
                        t, b, k);
    q[k] = t / b;
  }
  return blocked_product(P, make_layout(flat_tuple_of(q, R)));
}

}  // namespace tessel
