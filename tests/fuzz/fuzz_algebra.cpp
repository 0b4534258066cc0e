// libFuzzer target: the algebra's C++ API and the calculator on generated
// layouts, with an oracle.  The input bytes drive a generator (so every input
// is a well-formed call): an operation, layouts whose leaves are drawn from
// small numbers, powers of two, the 32- and 64-bit edges and raw 64-bit
// values, sometimes with extents of 0 or shapes and strides that are not
// congruent.  For each call:
//   * the C++ function returns a value or a named error, never crashes or
//     overflows (ASan/UBSan), and rejects every input that check_layout rejects;
//   * a result is a valid layout that prints and parses back to itself;
//   * the calculator, given the same call as text, agrees with the C++ API;
//   * results are checked against their definitions where the domains are
//     small enough to enumerate: composition R(c) == A(B(c)) (A's extended
//     evaluation, in 128-bit arithmetic); complement strictly increasing and
//     disjoint from L (L and R together injective); right_inverse L(R(i)) == i;
//     left_inverse R(L(i)) == i for an injective L; logical_divide and
//     logical_product rebuilt from composition and complement.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace {

using namespace tessel;
using tessel::fuzz::check;
__extension__ typedef __int128 i128;  // the oracle evaluates in 128 bits, beyond any overflow

/// Reads the fuzzer's bytes as a stream of choices (zeros once exhausted).
class Choices {
 public:
  Choices(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
  std::uint8_t byte() { return i_ < n_ ? p_[i_++] : 0; }
  int below(int k) { return byte() % k; }
  bool chance(int percent) { return below(100) < percent; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | byte();
    return v;
  }

  /// A leaf value: mostly small, sometimes at the 32- and 64-bit edges.
  index_t number(bool is_stride) {
    static constexpr index_t kSmall[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 64, 128, 256, 1000};
    static constexpr index_t kLarge[] = {65536,
                                         2147483647,
                                         2147483648,
                                         4294967296,
                                         3037000499,  // floor(sqrt(2^63))
                                         3037000500,
                                         index_t{1} << 40,
                                         index_t{1} << 62,
                                         (index_t{1} << 62) + 1,
                                         3074457345618258602,  // floor((2^63 - 1) / 3)
                                         kMaxIndex - 1,
                                         kMaxIndex};
    const int k = byte();
    if (is_stride && k < 40) return 0;
    if (k < 200) return kSmall[k % 16];
    if (k < 240) return kLarge[k % 12];
    if (k < 252) return static_cast<index_t>(u64() >> (1 + below(63)));
    return 0;
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t i_ = 0;
};

void tuple_into(Choices& ch, IntTuple& t, int depth, bool stride) {
  if (depth >= 2 || ch.chance(55)) {
    push_leaf(t, ch.number(stride));
    return;
  }
  push_tok(t, kTokOpen);
  const int n = 1 + ch.below(3);
  for (int i = 0; i < n; ++i) tuple_into(ch, t, depth + 1, stride);
  push_tok(t, kTokClose);
}
IntTuple gen_tuple(Choices& ch, bool stride) {
  IntTuple t;
  tuple_into(ch, t, 0, stride);
  return t;
}
/// Shape and congruent strides (rarely: strides of another profile).
Layout gen_layout(Choices& ch) {
  Layout l;
  l.shape = gen_tuple(ch, false);
  if (ch.chance(3)) {
    l.stride = gen_tuple(ch, true);
  } else {
    l.stride = l.shape;
    for (int i = 0; i < l.stride.nleaf; ++i) l.stride.val[i] = ch.number(true);
  }
  return l;
}
Tiler gen_tiler(Choices& ch) {
  Tiler t;
  t.n = 1 + ch.below(3);
  for (int k = 0; k < t.n; ++k) {
    const int kind = ch.below(4);
    if (kind == 0) t.mode[k] = TilerMode{};
    if (kind == 1) t.mode[k] = TilerMode{TilerMode::kInt, ch.number(false), Layout{}};
    if (kind >= 2) t.mode[k] = TilerMode{TilerMode::kLayout, 0, gen_layout(ch)};
  }
  return t;
}

bool valid(const Layout& l) { return check_layout(l).code == Errc::ok; }
bool valid_shape(const IntTuple& s) { return check_shape(s).code == Errc::ok; }
bool algebra_input(const Layout& l) {
  if (!valid(l)) return false;
  for (int i = 0; i < l.stride.nleaf; ++i)
    if (l.stride.val[i] < 0) return false;
  return true;
}
bool tiler_valid(const Tiler& t) {
  for (int k = 0; k < t.n; ++k) {
    if (t.mode[k].kind == TilerMode::kInt && t.mode[k].n < 1) return false;
    if (t.mode[k].kind == TilerMode::kLayout && !algebra_input(t.mode[k].layout)) return false;
  }
  return true;
}

std::string str(const IntTuple& t) { return to_string(t); }
std::string str(const Layout& l) { return to_string(l); }
std::string str(const Tiler& t) {
  std::string s = "<";
  for (int k = 0; k < t.n; ++k) {
    if (k > 0) s += ",";
    if (t.mode[k].kind == TilerMode::kSkip) s += "_";
    if (t.mode[k].kind == TilerMode::kInt) s += std::to_string(t.mode[k].n);
    if (t.mode[k].kind == TilerMode::kLayout) s += to_string(t.mode[k].layout);
  }
  return s + ">";
}

/// Extended evaluation (spec: the last leaf absorbs any overflow) in 128 bits.
i128 eval_ext(const Layout& l, i128 c) {
  i128 total = 0;
  const int n = l.shape.nleaf;
  for (int i = 0; i < n - 1; ++i) {
    total += (c % l.shape.val[i]) * l.stride.val[i];
    c /= l.shape.val[i];
  }
  return total + c * l.stride.val[n - 1];
}

constexpr index_t kEnumerate = 4096;  // largest domain the oracle walks

/// A result of the C++ API: a valid layout, printed and parsed back unchanged.
void check_result_layout(const Layout& r, const std::string& ctx) {
  check(valid(r), "invalid result layout " + str(r) + ": " + ctx);
  calc::Literal lit;
  Error e;
  check(calc::parse_literal(str(r), lit, e), "result " + str(r) + " does not parse: " + e.message() + ": " + ctx);
  check(lit.kind == calc::Literal::kLayout && lit.layout.layout == r, "result " + str(r) + " reads back differently");
}

/// The calculator on `text` agrees with the C++ API's outcome `r`.
void check_calculator(const std::string& text, const Result<Layout>& r, bool inputs_valid) {
  const calc::Outcome o = calc::evaluate(text);
  tessel::fuzz::check_outcome(text, o);
  if (!inputs_valid) {
    check(!o.ok, "the calculator accepted invalid input: " + text + " -> " + o.text);
    return;
  }
  check(o.ok == r.ok(), "calculator and C++ API disagree on " + text + ": " + o.text + " vs " +
                            (r.ok() ? str(r.val) : r.err.message()));
  if (r.ok())
    check(o.text == str(r.val), "calculator printed " + o.text + ", C++ gave " + str(r.val));
  else
    check(o.error.code == r.err.code, "different error for " + text + ": " + o.text + " vs " + r.err.message());
}

void composition_oracle(const Layout& A, const Layout& B, const Layout& R, const std::string& ctx) {
  check(size(R) == size(B), "size(R) != size(B): " + ctx);
  const index_t n = std::min(size(B), kEnumerate);
  for (index_t c = 0; c < n; ++c)
    check(static_cast<i128>(R(c)) == eval_ext(A, eval_ext(B, c)), "R(" + std::to_string(c) + ") != A(B(c)): " + ctx);
}

void complement_oracle(const Layout& L, const Layout& R, const std::string& ctx) {
  const Layout F = filter(L);
  const index_t nr = size(R), nf = size(F);
  if (nr > kEnumerate || nf > 64 * kEnumerate / std::max<index_t>(nr, 1)) return;
  for (index_t j = 0; j + 1 < nr; ++j) check(R(j) < R(j + 1), "complement not strictly increasing: " + ctx);
  std::vector<i128> all;
  for (index_t i = 0; i < nf; ++i)
    for (index_t j = 0; j < nr; ++j) all.push_back(static_cast<i128>(F(i)) + R(j));
  std::sort(all.begin(), all.end());
  check(std::adjacent_find(all.begin(), all.end()) == all.end(), "(filter(L), R) is not injective: " + ctx);
}

bool injective(const Layout& L) {
  std::vector<index_t> v;
  for (index_t i = 0; i < size(L); ++i) v.push_back(L(i));
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}

/// Compare two outcomes of the same definition.
void same(const Result<Layout>& got, const Result<Layout>& want, const std::string& ctx) {
  check(got.ok() == want.ok(), "differs from its definition (one fails): " + ctx);
  if (got.ok())
    check(got.val == want.val, "differs from its definition: " + str(got.val) + " vs " + str(want.val) + ": " + ctx);
}

void run(Choices& ch) {
  const int op = ch.below(20);
  const Layout A = gen_layout(ch);
  const Layout B = gen_layout(ch);
  const Tiler T = gen_tiler(ch);
  const IntTuple C = gen_tuple(ch, false);
  const bool va = algebra_input(A), vb = algebra_input(B);
  const std::string a = str(A), b = str(B);
  switch (op) {
    case 0: {
      const auto r = composition(A, B);
      const std::string ctx = "composition(" + a + "," + b + ")";
      if (!va || !vb) check(!r.ok(), "accepted invalid input: " + ctx);
      if (r.ok()) {
        check_result_layout(r.val, ctx);
        composition_oracle(A, B, r.val, ctx);
      }
      check_calculator(ctx, r, va && vb);
      break;
    }
    case 1: {
      const auto r = composition(A, T);
      const std::string ctx = "composition(" + a + "," + str(T) + ")";
      if (!va || !tiler_valid(T)) check(!r.ok(), "accepted invalid input: " + ctx);
      if (r.ok()) check_result_layout(r.val, ctx);
      check_calculator(ctx, r, va && tiler_valid(T));
      break;
    }
    case 2:
    case 3: {
      const bool with_c = op == 3;
      const auto r = with_c ? complement(A, C) : complement(A);
      const std::string ctx = "complement(" + a + (with_c ? "," + str(C) : std::string()) + ")";
      const bool ok_in = va && (!with_c || valid_shape(C));
      if (!ok_in) check(!r.ok(), "accepted invalid input: " + ctx);
      if (r.ok()) {
        check_result_layout(r.val, ctx);
        complement_oracle(A, r.val, ctx);
      }
      check_calculator(ctx, r, ok_in);
      break;
    }
    case 4: {
      const auto r = right_inverse(A);
      const std::string ctx = "right_inverse(" + a + ")";
      if (!va) check(!r.ok(), "accepted invalid input: " + ctx);
      if (r.ok()) {
        check_result_layout(r.val, ctx);
        for (index_t i = 0; i < std::min(size(r.val), kEnumerate); ++i)
          check(eval_ext(A, r.val(i)) == i, "L(R(" + std::to_string(i) + ")) != i: " + ctx);
      }
      check_calculator(ctx, r, va);
      break;
    }
    case 5: {
      const auto r = left_inverse(A);
      const std::string ctx = "left_inverse(" + a + ")";
      if (!va) check(!r.ok(), "accepted invalid input: " + ctx);
      if (r.ok()) {
        check_result_layout(r.val, ctx);
        if (size(A) <= kEnumerate && injective(A))
          for (index_t i = 0; i < size(A); ++i)
            check(eval_ext(r.val, A(i)) == i, "R(L(" + std::to_string(i) + ")) != i: " + ctx);
      }
      check_calculator(ctx, r, va);
      break;
    }
    case 6: {
      const auto r = logical_divide(A, B);
      const std::string ctx = "logical_divide(" + a + "," + b + ")";
      if (!va || !vb) check(!r.ok(), "accepted invalid input: " + ctx);
      if (va && vb) {  // logical_divide(A,B) = A o (B, complement(B, shape(coalesce(A))))
        const auto rest = complement(B, coalesce(A).shape);
        if (rest.ok()) {
          const Layout both[] = {B, rest.val};
          const Layout tiles = concat(both, 2);
          if (valid(tiles))
            same(r, composition(A, tiles), ctx);
          else
            check(!r.ok(), "accepted a divide whose tiles overflow: " + ctx);
        } else {
          check(!r.ok(), "divide succeeded where its complement fails: " + ctx);
        }
      }
      if (r.ok()) check_result_layout(r.val, ctx);
      check_calculator(ctx, r, va && vb);
      break;
    }
    case 7:
    case 8:
    case 9:
    case 10: {
      static const char* kNames[] = {"logical_divide", "zipped_divide", "tiled_divide", "flat_divide"};
      const auto r = op == 7   ? logical_divide(A, T)
                     : op == 8 ? zipped_divide(A, T)
                     : op == 9 ? tiled_divide(A, T)
                               : flat_divide(A, T);
      const std::string ctx = std::string(kNames[op - 7]) + "(" + a + "," + str(T) + ")";
      if (!va || !tiler_valid(T)) check(!r.ok(), "accepted invalid input: " + ctx);
      if (r.ok()) check_result_layout(r.val, ctx);
      check_calculator(ctx, r, va && tiler_valid(T));
      break;
    }
    case 11: {
      const auto r = logical_product(A, B);
      const std::string ctx = "logical_product(" + a + "," + b + ")";
      if (!va || !vb) check(!r.ok(), "accepted invalid input: " + ctx);
      if (va && vb) {  // logical_product(A,B) = (A, complement(A, size(A)*cosize(B)) o B)
        if (mul_overflows(size(A), cosize(B))) {
          check(!r.ok(), "accepted a product whose cotarget overflows: " + ctx);
        } else {
          const auto rest = complement(A, size(A) * cosize(B));
          const auto copies = rest.ok() ? composition(rest.val, B) : Result<Layout>(rest.err);
          if (copies.ok()) {
            const Layout both[] = {A, copies.val};
            const Layout want = concat(both, 2);
            if (valid(want))
              same(r, Result<Layout>(want), ctx);
            else
              check(!r.ok(), "accepted a product that overflows: " + ctx);
          } else {
            check(!r.ok(), "product succeeded where its parts fail: " + ctx);
          }
        }
      }
      if (r.ok()) check_result_layout(r.val, ctx);
      check_calculator(ctx, r, va && vb);
      break;
    }
    case 12:
    case 13:
    case 14: {
      static const char* kNames[] = {"logical_product", "zipped_product", "tiled_product"};
      const auto r = op == 12 ? logical_product(A, T) : op == 13 ? zipped_product(A, T) : tiled_product(A, T);
      const std::string ctx = std::string(kNames[op - 12]) + "(" + a + "," + str(T) + ")";
      if (!va || !tiler_valid(T)) check(!r.ok(), "accepted invalid input: " + ctx);
      if (r.ok()) check_result_layout(r.val, ctx);
      check_calculator(ctx, r, va && tiler_valid(T));
      break;
    }
    case 15:
    case 16: {
      const auto r = op == 15 ? blocked_product(A, B) : raked_product(A, B);
      const std::string ctx = std::string(op == 15 ? "blocked_product(" : "raked_product(") + a + "," + b + ")";
      if (!va || !vb) check(!r.ok(), "accepted invalid input: " + ctx);
      if (r.ok()) {
        check_result_layout(r.val, ctx);
        check(static_cast<i128>(size(r.val)) == static_cast<i128>(size(A)) * size(B),
              "size of a rank product is not size(A)*size(B): " + ctx);
      }
      check_calculator(ctx, r, va && vb);
      break;
    }
    case 17: {
      const auto r = tile_to_shape(A, C);
      const std::string ctx = "tile_to_shape(" + a + "," + str(C) + ")";
      if (!va || !valid_shape(C)) check(!r.ok(), "accepted invalid input: " + ctx);
      if (r.ok()) check_result_layout(r.val, ctx);
      check_calculator(ctx, r, va && valid_shape(C));
      break;
    }
    case 18: {
      if (!valid(A)) break;  // coalesce and filter take valid layouts (their precondition)
      const Layout c = coalesce(A), f = filter(A);
      check_result_layout(c, "coalesce(" + a + ")");
      check_result_layout(f, "filter(" + a + ")");
      check(size(c) == size(A), "coalesce changed the size: " + a);
      for (index_t i = 0; i < std::min(size(A), kEnumerate); ++i)
        check(c(i) == A(i), "coalesce changed the function at " + std::to_string(i) + ": " + a);
      check_calculator("coalesce(" + a + ")", Result<Layout>(c), true);
      break;
    }
    default: {  // eval, crd2idx, idx2crd and the measures through the calculator alone
      index_t i = ch.number(false);
      if (valid(A) && ch.chance(80)) i %= size(A);
      for (const std::string& text :
           {"eval(" + a + "," + std::to_string(i) + ")", "idx2crd(" + std::to_string(i) + "," + str(A.shape) + ")",
            "crd2idx(" + std::to_string(i) + "," + str(A.shape) + "," + str(A.stride) + ")", "size(" + a + ")",
            "cosize(" + a + ")", "size(" + str(C) + ")", "coalesce(" + a + "," + str(C) + ")"}) {
        const calc::Outcome o = calc::evaluate(text);
        tessel::fuzz::check_outcome(text, o);
        if (text.rfind("eval", 0) == 0 && o.ok && valid(A)) check(o.text == std::to_string(A(i)), "eval: " + text);
      }
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Choices ch(data, size);
  run(ch);
  return 0;
}
