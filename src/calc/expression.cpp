// The calculator's parser and evaluator.  Parsing builds tessel values
// (IntTuple, Layout, SwizzledLayout, Tiler); evaluation calls the library's
// algebra directly: there is no second implementation of any operation here.
#include <cctype>
#include <functional>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tessel/host/calc.hpp"

namespace tessel::calc {
namespace {

/// A parse or evaluation failure carried up to `evaluate`.  `text`, when
/// set, is the message after the keyword (for messages that quote the input:
/// an Error holds integers only).
struct Failure {
  Error error;
  std::string text;

  std::string message() const {
    return text.empty() ? error.message() : std::string(errc_keyword(error.code)) + ": " + text;
  }
};

[[noreturn]] void fail(Errc code, const char* what, index_t a0 = 0, index_t a1 = 0, index_t a2 = 0) {
  throw Failure{make_error(code, what, a0, a1, a2), {}};
}
[[noreturn]] void fail_text(Errc code, std::string text) { throw Failure{make_error(code, ""), std::move(text)}; }
[[noreturn]] void fail_error(const Error& e) { throw Failure{e, {}}; }

/// How a character of the input reads in a message: 'x' for printable ASCII,
/// otherwise its byte value (a NUL, a control character, a UTF-8 byte).
std::string describe_char(unsigned char c) {
  if (c >= 0x21 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  static const char* hex = "0123456789ABCDEF";
  std::string out = "byte 0x";
  out += hex[c >> 4];
  out += hex[c & 15];
  if (c == 0) out += " (NUL)";
  if (c >= 0x80) out += " (not ASCII: the grammar is ASCII)";
  return out;
}

/// Edit distance (insertions, deletions, substitutions) for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// ---------------------------------------------------------------- values

struct Ident {
  std::string name;
};
using Value = std::variant<IntTuple, Layout, SwizzledLayout, Tiler, Ident>;

/// The size of a plain integer tuple: the exact product of its leaves (0 when
/// a leaf is 0), or value-range when it does not fit in index_t.  A bare tuple
/// is bounded only where it is used as a shape (check_shape).
index_t exact_size(const IntTuple& t) {
  for (int i = 0; i < t.nleaf; ++i)
    if (t.val[i] == 0) return 0;
  index_t p = 1;
  for (int i = 0; i < t.nleaf; ++i) {
    if (mul_overflows(p, t.val[i])) fail(Errc::value_range, "the size of the tuple exceeds {0}", kMaxIndex);
    p *= t.val[i];
  }
  return p;
}

/// A layout as the calculator accepts it: check_layout (congruent, extents
/// ≥ 1, size and cosize at most 2^63 - 1).  Everything the calculator prints
/// passes this check, so every printed layout can be read back.
void check_parsed_layout(const Layout& l) {
  const Error e = check_layout(l);
  if (e.code != Errc::ok) fail_error(e);
}
void check_parsed_shape(const IntTuple& s) {
  const Error e = check_shape(s);
  if (e.code != Errc::ok) fail_error(e);
}

// ---------------------------------------------------------------- parser

/// Fails with "unknown function 'NAME'" (and the nearest known name) unless
/// `name` is one of the calculator's functions (defined after the table).
void check_function_name(const std::string& name);

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  /// One literal argument and nothing after it.
  Value literal() {
    Value v = argument();
    skip();
    if (pos_ != s_.size()) unexpected(" after the literal");
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
    if (name == "LayoutLeft" || name == "LayoutRight")
      fail(Errc::type, "LayoutLeft/LayoutRight only make sense in make_layout(SHAPE, ...)");
    check_function_name(name);
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
    if (pos_ != s_.size()) unexpected(" after the call (one call per line)");
    return {std::move(name), std::move(args)};
  }

 private:
  /// The deepest tuple an IntTuple holds (two tokens per level and a leaf):
  /// every tuple the algebra can build, hence every printed result, reads back.
  static constexpr int kMaxNesting = (kMaxTokens - 1) / 2;
  static constexpr std::size_t kMaxArguments = 16;

  std::string_view s_;
  std::size_t pos_ = 0;
  int nesting_ = 0;

  /// What peek() returns at the end of the input (a NUL byte is a character like any other).
  static constexpr int kEnd = -1;

  index_t col() const { return static_cast<index_t>(pos_) + 1; }
  int peek() {
    skip();
    return pos_ < s_.size() ? static_cast<unsigned char>(s_[pos_]) : kEnd;
  }
  static bool is_digit(int c) { return c >= '0' && c <= '9'; }
  /// "unexpected <what> at column N" naming the character found there.
  [[noreturn]] void unexpected(const std::string& context) {
    if (pos_ >= s_.size()) fail_text(Errc::syntax, "unexpected end of input" + context);
    std::string what = describe_char(static_cast<unsigned char>(s_[pos_]));
    if (pos_ == 0 && s_.substr(0, 3) == "\xEF\xBB\xBF") what = "UTF-8 byte-order mark (EF BB BF)";
    fail_text(Errc::syntax, "unexpected " + what + " at column " + std::to_string(col()) + context);
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
    unexpected(std::string(": expected '") + c + "'");
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
  /// A decimal integer of at most kMaxIndex = 2^63 - 1 (what index_t holds).
  index_t integer() {
    skip();
    if (peek() == '-') fail(Errc::syntax, "negative numbers are not part of the grammar (column {0})", col());
    if (!is_digit(peek())) unexpected(": expected an integer");
    const index_t start = col();
    index_t v = 0;
    while (pos_ < s_.size() && is_digit(static_cast<unsigned char>(s_[pos_]))) {
      const index_t digit = s_[pos_] - '0';
      if (v > (kMaxIndex - digit) / 10)
        fail(Errc::value_range, "the integer at column {0} exceeds {1}", start, kMaxIndex);
      v = v * 10 + digit;
      ++pos_;
    }
    return v;
  }
  /// Counts open parentheses: a tuple of depth kMaxNesting is accepted, one deeper is not.
  struct NestGuard {
    int& n;
    explicit NestGuard(int& x) : n(x) {
      if (++n > kMaxNesting) fail(Errc::capacity, "tuples nested deeper than {0} levels", kMaxNesting);
    }
    ~NestGuard() { --n; }
  };
  void tuple_into(IntTuple& t) {
    if (peek() != '(') {
      push_leaf(t, integer());
      return;
    }
    NestGuard guard(nesting_);
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
    if (peek() != ':') return shape;
    ++pos_;
    Layout l{shape, tuple()};
    if (peek() == ':') fail(Errc::syntax, "a layout has one ':' (column {0})", col());
    check_parsed_layout(l);
    return l;
  }
  Value argument() {
    const int c = peek();
    if (c == kEnd) unexpected(": expected an argument");
    if (c == '<') return tiler();
    if (c == '(' || is_digit(c) || c == '-') return tuple_or_layout();
    if (c == '_') {
      identifier();
      fail(Errc::syntax, "'_' is only allowed inside a tiler <...> (column {0})", col());
    }
    const std::size_t start = pos_;
    std::string id = identifier();
    if (id.empty()) unexpected(": expected an argument");
    if (id == "Sw" && peek() == '<') return swizzled();
    if (id == "LayoutLeft" || id == "LayoutRight") return Ident{id};
    pos_ = start;
    const std::string column = std::to_string(col());
    const std::string shown = id.size() > 40 ? id.substr(0, 40) + "..." : id;
    pos_ = start + id.size();
    if (peek() == '(')
      fail_text(Errc::syntax, "nested calls are not allowed: '" + shown + "(' at column " + column +
                                  " (each call takes literal arguments: evaluate the inner call first)");
    fail_text(Errc::syntax, "unknown identifier '" + shown + "' at column " + column + nearest_identifier(id) +
                                "; an argument is SHAPE[:STRIDE], <TILER>, Sw<B,M,S>o(LAYOUT), LayoutLeft or "
                                "LayoutRight");
  }
  /// " (did you mean 'LayoutRight'?)" for an identifier near one the
  /// grammar knows, or for another library's name of it (RowMajor: CuTe's
  /// GenRowMajor, row-major strides, is LayoutRight); "" otherwise.
  static std::string nearest_identifier(const std::string& id) {
    static constexpr std::pair<const char*, const char*> kAliases[] = {{"RowMajor", "LayoutRight"},
                                                                       {"GenRowMajor", "LayoutRight"},
                                                                       {"ColMajor", "LayoutLeft"},
                                                                       {"ColumnMajor", "LayoutLeft"},
                                                                       {"GenColMajor", "LayoutLeft"}};
    for (const auto& [alias, known] : kAliases)
      if (id == alias) return std::string(" (did you mean '") + known + "'?)";
    for (const char* known : {"LayoutLeft", "LayoutRight"})
      if (id.size() <= 40 && edit_distance(id, known) <= 3) return std::string(" (did you mean '") + known + "'?)";
    return "";
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
    if (!sw.ok()) fail_error(sw.err);
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
      const int c = peek();
      if (c == '_') {
        ++pos_;
        m.kind = TilerMode::kSkip;
      } else if (c == '(' || is_digit(c) || c == '-') {
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
        unexpected(": expected '_', an integer or a layout in the tiler");
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
    if (lo == hi)
      fail(Errc::arity, "this function takes {0} argument(s), got {1}", static_cast<index_t>(lo),
           static_cast<index_t>(a.size()));
    fail(Errc::arity, "this function takes {0} to {1} arguments, got {2}", static_cast<index_t>(lo),
         static_cast<index_t>(hi), static_cast<index_t>(a.size()));
  }
  (void)name;
}

template <class T>
const T& want(const Args& a, std::size_t i, const char* what) {
  if (const T* p = std::get_if<T>(&a[i])) return *p;
  fail(Errc::type, what, static_cast<index_t>(i) + 1);
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
  if (!r.ok()) fail_error(r.err);
  return r.val;
}

Output layout_out(const Swizzle& sw, const Layout& l) {
  const SwizzledLayout s{sw, l};
  return Output{to_string(s), s};
}
Output int_out(index_t v) { return Output{std::to_string(v), std::nullopt}; }

/// `op(A, B)` where A is a layout (swizzled allowed) and B a layout or, when
/// `tiler_ok`, a tiler or a shape.
template <bool tiler_ok, class F>
Output binary(const Args& a, F op) {
  const SwizzledLayout A = layout_arg(a, 0);
  if (std::holds_alternative<SwizzledLayout>(a[1])) fail(Errc::type, "argument 2 must not be a swizzled layout");
  if (const auto* t = std::get_if<Tiler>(&a[1])) {
    if constexpr (tiler_ok) {
      return layout_out(A.swizzle, unwrap(op(A.layout, *t)));
    } else {
      fail(Errc::type, "argument 2 must be a layout, not a tiler");
    }
  }
  if (const auto* shape = std::get_if<IntTuple>(&a[1])) {
    if constexpr (tiler_ok) {  // a shape as a tiler, as CuTe: (2,4) is <2:1,4:1>
      return layout_out(A.swizzle, unwrap(op(A.layout, *shape)));
    } else {
      fail(Errc::type, "argument 2 must be a layout SHAPE:STRIDE (a shape is a tiler only where a tiler is taken)");
    }
  }
  const Layout& B = want<Layout>(
      a, 1, tiler_ok ? "argument {0} must be a layout, a tiler <...> or a shape" : "argument {0} must be a layout");
  return layout_out(A.swizzle, unwrap(op(A.layout, B)));
}

#define TESSEL_BINARY_FN(NAME, TILER_OK)                                                  \
  {                                                                                       \
#NAME, [](const Args& a) {                                                              \
     arity(#NAME, a, 2, 2);                                                                \
     return binary<TILER_OK>(a, [](const Layout& x, const auto& y) { return NAME(x, y); }); \
   } \
  }

Output measure(const Args& a, const char* name) {
  arity(name, a, 1, 1);
  const std::string n = name;
  if (const auto* t = std::get_if<IntTuple>(&a[0])) {
    if (n == "size") return int_out(exact_size(*t));
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
        fail(Errc::type, "make_layout(SHAPE, X): X must be LayoutLeft or LayoutRight (write a layout as SHAPE:STRIDE)");
      major = id->name == "LayoutRight" ? Major::Right : Major::Left;
    }
    check_parsed_shape(*shape);
    return layout_out(Swizzle{}, Layout{*shape, compact_strides(*shape, major)});
  }
  std::vector<Layout> parts;
  for (std::size_t i = 0; i < a.size(); ++i)
    parts.push_back(want<Layout>(a, i, "make_layout: argument {0} must be a layout (or the first a shape)"));
  const Layout r = concat(parts.data(), static_cast<int>(parts.size()));
  if (r.shape.overflow || r.stride.overflow)
    fail(Errc::capacity, "the result needs more than {0} leaves or {1} tokens", kMaxLeaves, kMaxTokens);
  if (check_layout(r).code != Errc::ok)
    fail(Errc::value_range, "the concatenation's size or cosize would exceed {0}", kMaxIndex);
  return layout_out(Swizzle{}, r);
}

void check_coordinate(const IntTuple& c, const IntTuple& shape) {
  const Error e = check_coord(c, shape);
  if (e.code != Errc::ok) fail_error(e);
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
         check_parsed_shape(s);
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

void check_function_name(const std::string& name) {
  const auto& table = functions();
  if (table.count(name) != 0) return;
  std::string best;
  std::size_t best_d = 0;
  if (name.size() > 48) {  // quote a long name in part, and suggest nothing
    fail_text(Errc::syntax,
              "unknown function '" + name.substr(0, 40) + "...'; `tessel layout --help` lists the functions");
  }
  for (const auto& [known, fn] : table) {
    const std::size_t d = edit_distance(name, known);
    if (best.empty() || d < best_d) {
      best = known;
      best_d = d;
    }
  }
  std::string text = "unknown function '" + name + "'";
  if (best_d <= 2 + name.size() / 4) text += " (did you mean '" + best + "'?)";
  fail_text(Errc::syntax, text + "; `tessel layout --help` lists the functions");
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
    if (name.empty()) {  // a bare literal: print it normalized (docs/algebra.md §1.3 spelling)
      const Value& v = args[0];
      if (std::holds_alternative<Tiler>(v))
        fail(Errc::type,
             "a tiler <...> is not a value on its own: it is the second argument of composition, a divide or a "
             "product, e.g. logical_divide((8,8):(1,8),<2,4>)");
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
    if (it == table.end()) check_function_name(name);  // always fails here
    for (const Value& v : args)
      if (std::holds_alternative<Ident>(v) && name != "make_layout")
        fail(Errc::type, "LayoutLeft/LayoutRight only make sense in make_layout(SHAPE, ...)");
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
    out.text = "error: " + f.message();
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
