// The calculator's parser and evaluator.  Parsing builds tessel values
// (IntTuple, Layout, SwizzledLayout, Tiler); evaluation calls the library's
// algebra directly: there is no second implementation of any operation here.
#include <cctype>
#include <functional>
#include <new>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tessel/host/calc.hpp"

namespace tessel::calc {
namespace {

/// A parse or evaluation failure carried up to `evaluate`.
struct Failure {
  Error error;
};

[[noreturn]] void fail(Errc code, const char* what, index_t a0 = 0, index_t a1 = 0, index_t a2 = 0) {
  throw Failure{make_error(code, what, a0, a1, a2)};
}

// ---------------------------------------------------------------- values

struct Ident {
  std::string name;
};
using Value = std::variant<IntTuple, Layout, SwizzledLayout, Tiler, Ident>;

/// size() of a tuple without overflow: saturates at kMaxCheckedValue + 1.
index_t saturating_size(const IntTuple& t) {
  index_t p = 1;  // every leaf is at most kMaxCheckedValue (the parser's bound)
  for (int i = 0; i < t.nleaf; ++i) {
    if (t.val[i] == 0) return 0;
    if (p > kMaxCheckedValue / t.val[i]) return kMaxCheckedValue + 1;
    p *= t.val[i];
  }
  return p;
}

void check_tuple_bounds(const IntTuple& t, const char* what) {
  if (t.overflow) fail(Errc::capacity, "more than {0} leaves or {1} tokens in one tuple", kMaxLeaves, kMaxTokens);
  if (saturating_size(t) > kMaxCheckedValue)
    fail(Errc::value_range, what, kMaxCheckedValue);
}

void check_parsed_layout(const Layout& l) {
  const Error e = check_layout(l);
  if (e.code != Errc::ok) throw Failure{e};
  check_tuple_bounds(l.shape, "the size of a layout must not exceed {0}");
  // cosize without overflow: each term is below 2^62 (leaves are below 2^31), the sum is checked as it grows.
  index_t co = 1;
  for (int i = 0; i < l.shape.nleaf; ++i) {
    co += (l.shape.val[i] - 1) * l.stride.val[i];
    if (co > kMaxCheckedValue) fail(Errc::value_range, "the cosize of a layout must not exceed {0}", kMaxCheckedValue);
  }
}

// ---------------------------------------------------------------- parser

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  /// One literal argument and nothing after it.
  Value literal() {
    Value v = argument();
    skip();
    if (pos_ != s_.size()) fail(Errc::syntax, "unexpected text at column {0}", col());
    return v;
  }

  /// name(arg, ...) and nothing after it.  As a convenience for drawing, a
  /// bare literal (a layout, swizzled layout or tuple) is also accepted: it is
  /// returned under the name "" and evaluates to itself.
  std::pair<std::string, std::vector<Value>> call() {
    skip();
    const std::size_t start = pos_;
    std::string name = identifier();
    if (name.empty() || (name == "Sw" && peek() == '<')) {
      pos_ = start;
      return {std::string(), std::vector<Value>{literal()}};
    }
    expect('(');
    std::vector<Value> args;
    skip();
    if (peek() == ')') fail(Errc::arity, "a call needs at least one argument");
    for (;;) {
      if (args.size() == kMaxArguments) fail(Errc::arity, "a call takes at most {0} arguments", kMaxArguments);
      args.push_back(argument());
      skip();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(')');
      break;
    }
    skip();
    if (pos_ != s_.size()) fail(Errc::syntax, "unexpected text at column {0} after the call (one call per line)", col());
    return {std::move(name), std::move(args)};
  }

 private:
  static constexpr int kMaxNesting = 24;
  static constexpr std::size_t kMaxArguments = 16;

  std::string_view s_;
  std::size_t pos_ = 0;
  int nesting_ = 0;

  index_t col() const { return static_cast<index_t>(pos_) + 1; }
  char peek() {
    skip();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  /// Consume `c` or fail naming it (messages are literals: Error defers formatting).
  void expect(char c) {
    if (peek() == c) {
      ++pos_;
      return;
    }
    const bool end = pos_ >= s_.size();
    switch (c) {
      case '(': fail(Errc::syntax, end ? "unexpected end of input: expected '('" : "expected '(' at column {0}", col());
      case ')': fail(Errc::syntax, end ? "unexpected end of input: expected ')'" : "expected ')' at column {0}", col());
      case ',': fail(Errc::syntax, end ? "unexpected end of input: expected ','" : "expected ',' at column {0}", col());
      case '<': fail(Errc::syntax, end ? "unexpected end of input: expected '<'" : "expected '<' at column {0}", col());
      case '>': fail(Errc::syntax, end ? "unexpected end of input: expected '>'" : "expected '>' at column {0}", col());
      default: fail(Errc::syntax, "unexpected character at column {0}", col());
    }
  }
  std::string identifier() {
    skip();
    std::size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      if (pos_ == b && std::isdigit(static_cast<unsigned char>(s_[pos_]))) break;
      ++pos_;
    }
    return std::string(s_.substr(b, pos_ - b));
  }
  index_t integer() {
    skip();
    if (peek() == '-') fail(Errc::syntax, "negative numbers are not part of the grammar (column {0})", col());
    if (!std::isdigit(static_cast<unsigned char>(peek()))) {
      if (pos_ >= s_.size()) fail(Errc::syntax, "unexpected end of input: expected an integer");
      fail(Errc::syntax, "expected an integer at column {0}", col());
    }
    index_t v = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      v = v * 10 + (s_[pos_] - '0');
      if (v > kMaxCheckedValue) fail(Errc::value_range, "integer at column {0} exceeds {1}", col(), kMaxCheckedValue);
      ++pos_;
    }
    return v;
  }
  struct NestGuard {
    int& n;
    explicit NestGuard(int& x) : n(x) {
      if (++n > kMaxNesting) fail(Errc::capacity, "nesting deeper than {0} levels", kMaxNesting);
    }
    ~NestGuard() { --n; }
  };
  void tuple_into(IntTuple& t) {
    NestGuard guard(nesting_);
    if (peek() != '(') {
      push_leaf(t, integer());
      return;
    }
    ++pos_;
    push_tok(t, kTokOpen);
    if (peek() == ')') fail(Errc::syntax, "empty tuple () at column {0}", col());
    for (;;) {
      tuple_into(t);
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(')');
      break;
    }
    push_tok(t, kTokClose);
  }
  IntTuple tuple() {
    IntTuple t;
    tuple_into(t);
    if (t.overflow) fail(Errc::capacity, "more than {0} leaves or {1} tokens in one tuple", kMaxLeaves, kMaxTokens);
    return t;
  }
  /// SHAPE[:STRIDE]: a layout when a ':' follows, else the tuple itself.
  Value tuple_or_layout() {
    IntTuple shape = tuple();
    if (peek() != ':') {
      check_tuple_bounds(shape, "the size of an integer tuple must not exceed {0}");
      return shape;
    }
    ++pos_;
    Layout l{shape, tuple()};
    if (peek() == ':') fail(Errc::syntax, "a layout has one ':' (column {0})", col());
    check_parsed_layout(l);
    return l;
  }
  Value argument() {
    const char c = peek();
    if (c == '\0') fail(Errc::syntax, "unexpected end of input: expected an argument");
    if (c == '<') return tiler();
    if (c == '(' || std::isdigit(static_cast<unsigned char>(c)) || c == '-') return tuple_or_layout();
    if (c == '_') {
      identifier();
      fail(Errc::syntax, "'_' is only allowed inside a tiler <...> (column {0})", col());
    }
    const std::size_t start = pos_;
    std::string id = identifier();
    if (id.empty()) fail(Errc::syntax, "unexpected character at column {0}", col());
    if (id == "Sw" && peek() == '<') return swizzled();
    if (id == "LayoutLeft" || id == "LayoutRight") return Ident{id};
    pos_ = start;
    fail(Errc::syntax, "unknown identifier at column {0} (nested calls are not allowed)", col());
  }
  /// Sw<B,M,S>o(LAYOUT)
  Value swizzled() {
    expect('<');
    const index_t b = integer();
    expect(',');
    const index_t m = integer();
    expect(',');
    const index_t s = integer();
    expect('>');
    if (identifier() != "o") fail(Errc::syntax, "expected 'o(' after Sw<B,M,S> (column {0})", col());
    expect('(');
    if (b > 64 || m > 64 || s > 64) fail(Errc::swizzle, "Sw<{0},{1},{2}>: parameters above 64", b, m, s);
    const auto sw = make_swizzle(static_cast<int>(b), static_cast<int>(m), static_cast<int>(s));
    if (!sw.ok()) throw Failure{sw.err};
    Value inner = tuple_or_layout();
    if (!std::holds_alternative<Layout>(inner)) fail(Errc::type, "Sw<B,M,S>o(...) needs a layout SHAPE:STRIDE inside");
    expect(')');
    return SwizzledLayout{sw.val, std::get<Layout>(inner)};
  }
  /// <T0,T1,...> with elements '_', an integer, or a layout.
  Value tiler() {
    expect('<');
    Tiler t;
    for (;;) {
      if (t.n == kMaxTilerModes) fail(Errc::capacity, "a tiler has at most {0} modes", kMaxTilerModes);
      TilerMode m;
      const char c = peek();
      if (c == '_') {
        ++pos_;
        m.kind = TilerMode::kSkip;
      } else if (c == '(' || std::isdigit(static_cast<unsigned char>(c)) || c == '-') {
        Value v = tuple_or_layout();
        if (auto* l = std::get_if<Layout>(&v)) {
          m.kind = TilerMode::kLayout;
          m.layout = *l;
        } else {
          const IntTuple& it = std::get<IntTuple>(v);
          if (!it.is_int())
            fail(Errc::type, "a bare tuple is not a tiler element (write a layout SHAPE:STRIDE) at column {0}", col());
          if (it.val[0] < 1) fail(Errc::value_range, "tiler extent {0} is not positive", it.val[0]);
          m.kind = TilerMode::kInt;
          m.n = it.val[0];
        }
      } else {
        fail(Errc::syntax, "expected '_', an integer or a layout in the tiler at column {0}", col());
      }
      t.mode[t.n++] = m;
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('>');
      break;
    }
    return t;
  }
};

// ---------------------------------------------------------------- evaluation

using Args = std::vector<Value>;

struct Output {
  std::string text;
  std::optional<SwizzledLayout> layout;
};

void arity(const std::string& name, const Args& a, std::size_t lo, std::size_t hi) {
  if (a.size() < lo || a.size() > hi) {
    if (lo == hi) fail(Errc::arity, "this function takes {0} argument(s), got {1}", static_cast<index_t>(lo),
                       static_cast<index_t>(a.size()));
    fail(Errc::arity, "this function takes {0} to {1} arguments, got {2}", static_cast<index_t>(lo),
         static_cast<index_t>(hi), static_cast<index_t>(a.size()));
  }
  (void)name;
}

template <class T>
const T& want(const Args& a, std::size_t i, const char* what) {
  if (const T* p = std::get_if<T>(&a[i])) return *p;
  throw Failure{make_error(Errc::type, what, static_cast<index_t>(i) + 1)};
}

/// A layout or swizzled layout argument, as a swizzled layout (identity swizzle for a plain one).
SwizzledLayout layout_arg(const Args& a, std::size_t i) {
  if (const auto* l = std::get_if<Layout>(&a[i])) return SwizzledLayout{Swizzle{}, *l};
  if (const auto* s = std::get_if<SwizzledLayout>(&a[i])) return *s;
  fail(Errc::type, "argument {0} must be a layout (SHAPE:STRIDE or Sw<B,M,S>o(...))", static_cast<index_t>(i) + 1);
}
const Layout& plain_layout_arg(const Args& a, std::size_t i) {
  if (std::holds_alternative<SwizzledLayout>(a[i]))
    fail(Errc::type, "argument {0} must be a plain layout: this operation is not defined for swizzled layouts",
         static_cast<index_t>(i) + 1);
  return want<Layout>(a, i, "argument {0} must be a layout SHAPE:STRIDE");
}

Layout unwrap(const Result<Layout>& r) {
  if (!r.ok()) throw Failure{r.err};
  return r.val;
}

Output layout_out(const Swizzle& sw, const Layout& l) {
  const SwizzledLayout s{sw, l};
  return Output{to_string(s), s};
}
Output int_out(index_t v) { return Output{std::to_string(v), std::nullopt}; }

/// `op(A, B)` where A is a layout (swizzled allowed) and B a layout or, when
/// `tiler_ok`, a tiler.
template <bool tiler_ok, class F>
Output binary(const Args& a, F op) {
  const SwizzledLayout A = layout_arg(a, 0);
  if (std::holds_alternative<SwizzledLayout>(a[1]))
    fail(Errc::type, "argument 2 must not be a swizzled layout");
  if (const auto* t = std::get_if<Tiler>(&a[1])) {
    if constexpr (tiler_ok) {
      return layout_out(A.swizzle, unwrap(op(A.layout, *t)));
    } else {
      fail(Errc::type, "argument 2 must be a layout, not a tiler");
    }
  }
  const Layout& B = want<Layout>(a, 1, tiler_ok ? "argument {0} must be a layout or a tiler <...>"
                                                  : "argument {0} must be a layout");
  return layout_out(A.swizzle, unwrap(op(A.layout, B)));
}

#define TESSEL_BINARY_FN(NAME, TILER_OK)                                                    \
  {#NAME, [](const Args& a) {                                                              \
     arity(#NAME, a, 2, 2);                                                                \
     return binary<TILER_OK>(a, [](const Layout& x, const auto& y) { return NAME(x, y); }); \
   }}

Output measure(const Args& a, const char* name) {
  arity(name, a, 1, 1);
  const std::string n = name;
  if (const auto* t = std::get_if<IntTuple>(&a[0])) {
    if (n == "size") return int_out(size(*t));
    if (n == "rank") return int_out(rank(*t));
    return int_out(depth(*t));
  }
  const SwizzledLayout l = layout_arg(a, 0);
  if (n == "size") return int_out(size(l));
  if (n == "rank") return int_out(rank(l));
  if (n == "cosize") return int_out(cosize(l));
  return int_out(depth(l));
}

Output profile_op(const Args& a, bool is_filter) {
  arity(is_filter ? "filter" : "coalesce", a, 1, 2);
  const SwizzledLayout l = layout_arg(a, 0);
  if (a.size() == 1) return layout_out(l.swizzle, is_filter ? filter(l.layout) : coalesce(l.layout));
  const IntTuple& p = want<IntTuple>(a, 1, "argument {0} must be a profile (an integer tuple)");
  return layout_out(l.swizzle, unwrap(is_filter ? filter(l.layout, p) : coalesce(l.layout, p)));
}

Output make_layout_fn(const Args& a) {
  if (a.empty()) fail(Errc::arity, "make_layout needs at least one argument");
  if (const auto* shape = std::get_if<IntTuple>(&a[0])) {
    if (a.size() > 2) fail(Errc::arity, "make_layout(SHAPE[,LayoutLeft|LayoutRight]) takes at most 2 arguments");
    Major major = Major::Left;
    if (a.size() == 2) {
      const auto* id = std::get_if<Ident>(&a[1]);
      if (id == nullptr)
        fail(Errc::type,
             "make_layout(SHAPE, X): X must be LayoutLeft or LayoutRight (write a layout as SHAPE:STRIDE)");
      major = id->name == "LayoutRight" ? Major::Right : Major::Left;
    }
    for (int i = 0; i < shape->nleaf; ++i)
      if (shape->val[i] < 1) fail(Errc::value_range, "extent {0} of leaf {1} is not positive", shape->val[i], i);
    return layout_out(Swizzle{}, Layout{*shape, compact_strides(*shape, major)});
  }
  std::vector<Layout> parts;
  for (std::size_t i = 0; i < a.size(); ++i)
    parts.push_back(want<Layout>(a, i, "make_layout: argument {0} must be a layout (or the first a shape)"));
  const Layout r = concat(parts.data(), static_cast<int>(parts.size()));
  if (r.shape.overflow || r.stride.overflow)
    fail(Errc::capacity, "the result needs more than {0} leaves or {1} tokens", kMaxLeaves, kMaxTokens);
  return layout_out(Swizzle{}, r);
}

void check_coordinate(const IntTuple& c, const IntTuple& shape) {
  const Error e = check_coord(c, shape);
  if (e.code != Errc::ok) throw Failure{e};
}

using Fn = std::function<Output(const Args&)>;

const std::map<std::string, Fn>& functions() {
  static const std::map<std::string, Fn> table = {
      {"size", [](const Args& a) { return measure(a, "size"); }},
      {"rank", [](const Args& a) { return measure(a, "rank"); }},
      {"depth", [](const Args& a) { return measure(a, "depth"); }},
      {"cosize",
       [](const Args& a) {
         arity("cosize", a, 1, 1);
         layout_arg(a, 0);
         return measure(a, "cosize");
       }},
      {"coalesce", [](const Args& a) { return profile_op(a, false); }},
      {"filter", [](const Args& a) { return profile_op(a, true); }},
      TESSEL_BINARY_FN(composition, true),
      TESSEL_BINARY_FN(logical_divide, true),
      TESSEL_BINARY_FN(zipped_divide, true),
      TESSEL_BINARY_FN(tiled_divide, true),
      TESSEL_BINARY_FN(flat_divide, true),
      TESSEL_BINARY_FN(logical_product, true),
      TESSEL_BINARY_FN(zipped_product, true),
      TESSEL_BINARY_FN(tiled_product, true),
      TESSEL_BINARY_FN(blocked_product, false),
      TESSEL_BINARY_FN(raked_product, false),
      {"complement",
       [](const Args& a) {
         arity("complement", a, 1, 2);
         const Layout& l = plain_layout_arg(a, 0);
         if (a.size() == 1) return layout_out(Swizzle{}, unwrap(complement(l)));
         const IntTuple& c = want<IntTuple>(a, 1, "argument {0} (the cotarget) must be an integer or integer tuple");
         return layout_out(Swizzle{}, unwrap(complement(l, c)));
       }},
      {"right_inverse",
       [](const Args& a) {
         arity("right_inverse", a, 1, 1);
         return layout_out(Swizzle{}, unwrap(right_inverse(plain_layout_arg(a, 0))));
       }},
      {"left_inverse",
       [](const Args& a) {
         arity("left_inverse", a, 1, 1);
         return layout_out(Swizzle{}, unwrap(left_inverse(plain_layout_arg(a, 0))));
       }},
      {"tile_to_shape",
       [](const Args& a) {
         arity("tile_to_shape", a, 2, 2);
         const SwizzledLayout l = layout_arg(a, 0);
         const IntTuple& t = want<IntTuple>(a, 1, "argument {0} (the target) must be an integer tuple");
         return layout_out(l.swizzle, unwrap(tile_to_shape(l.layout, t)));
       }},
      {"make_layout", make_layout_fn},
      {"eval",
       [](const Args& a) {
         arity("eval", a, 2, 2);
         const SwizzledLayout l = layout_arg(a, 0);
         const IntTuple& c = want<IntTuple>(a, 1, "argument {0} (the coordinate) must be an integer or integer tuple");
         check_coordinate(c, l.layout.shape);
         return int_out(l(c));
       }},
      {"idx2crd",
       [](const Args& a) {
         arity("idx2crd", a, 2, 2);
         const IntTuple& c = want<IntTuple>(a, 0, "argument {0} (the index) must be an integer or integer tuple");
         const IntTuple& s = want<IntTuple>(a, 1, "argument {0} (the shape) must be an integer tuple");
         for (int i = 0; i < s.nleaf; ++i)
           if (s.val[i] < 1) fail(Errc::value_range, "extent {0} of leaf {1} is not positive", s.val[i], i);
         check_coordinate(c, s);
         return Output{to_string(idx2crd(c, s)), std::nullopt};
       }},
      {"crd2idx",
       [](const Args& a) {
         arity("crd2idx", a, 3, 3);
         const IntTuple& c = want<IntTuple>(a, 0, "argument {0} (the coordinate) must be an integer or integer tuple");
         const IntTuple& s = want<IntTuple>(a, 1, "argument {0} (the shape) must be an integer tuple");
         const IntTuple& d = want<IntTuple>(a, 2, "argument {0} (the stride) must be an integer tuple");
         check_parsed_layout(Layout{s, d});
         check_coordinate(c, s);
         return int_out(crd2idx(c, s, d));
       }},
  };
  return table;
}

}  // namespace

bool parse_literal(std::string_view text, Literal& out, Error& error) {
  try {
    Parser p(text);
    const Value v = p.literal();
    if (const auto* t = std::get_if<IntTuple>(&v)) {
      out.kind = Literal::kTuple;
      out.tuple = *t;
      return true;
    }
    if (const auto* l = std::get_if<Layout>(&v)) {
      out.kind = Literal::kLayout;
      out.layout = SwizzledLayout{Swizzle{}, *l};
      return true;
    }
    if (const auto* s = std::get_if<SwizzledLayout>(&v)) {
      out.kind = Literal::kLayout;
      out.layout = *s;
      return true;
    }
    error = make_error(Errc::type, "not a tuple or layout literal");
  } catch (const Failure& f) {
    error = f.error;
  }
  return false;
}

Outcome evaluate(std::string_view expression) {
  Outcome out;
  try {
    Parser p(expression);
    auto [name, args] = p.call();
    if (name.empty()) {  // a bare literal: print it normalized (spec §1.3 spelling)
      const Value& v = args[0];
      if (const auto* t = std::get_if<IntTuple>(&v)) {
        out.ok = true;
        out.text = to_string(*t);
        return out;
      }
      const SwizzledLayout l = layout_arg(args, 0);
      out.ok = true;
      out.text = to_string(l);
      out.has_layout = true;
      out.layout = l;
      return out;
    }
    const auto& table = functions();
    const auto it = table.find(name);
    if (it == table.end()) throw Failure{make_error(Errc::syntax, "unknown function (see `tessel layout --help`)")};
    for (const Value& v : args)
      if (std::holds_alternative<Ident>(v) && name != "make_layout")
        throw Failure{make_error(Errc::type, "LayoutLeft/LayoutRight only make sense in make_layout(SHAPE, ...)")};
    Output r = it->second(args);
    out.ok = true;
    out.text = std::move(r.text);
    if (r.layout) {
      out.has_layout = true;
      out.layout = *r.layout;
    }
  } catch (const Failure& f) {
    out.ok = false;
    out.error = f.error;
    out.text = "error: " + f.error.message();
  } catch (const AlgebraError& e) {
    out.ok = false;
    out.error = e.error();
    out.text = "error: " + e.error().message();
  } catch (const std::bad_alloc&) {  // still a clean `error: KEYWORD: message` line
    out.ok = false;
    out.error = make_error(Errc::capacity, "out of memory while evaluating the expression");
    out.text = "error: " + out.error.message();
  }
  return out;
}

}  // namespace tessel::calc
