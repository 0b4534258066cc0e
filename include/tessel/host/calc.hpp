// tessel/host/calc.hpp — the layout calculator: parse one expression of the
// spec's grammar (spec/layout-algebra.md §1) and evaluate it with the same
// algebra that kernels use.  Host only.
#pragma once

#include <string>
#include <string_view>

#include "tessel/tessel.hpp"

namespace tessel::calc {

/// The result of one expression.
struct Outcome {
  bool ok = false;
  /// The printed result (`(4,3):(3,1)`, `7`, `(1,(1,2))`) or `error: REASON`.
  std::string text;
  Error error;  // when !ok (code Errc::ok with a message for pure syntax problems is never produced)
  /// Set when the result is a layout (a plain layout has the identity swizzle):
  /// what `--format` draws.
  bool has_layout = false;
  SwizzledLayout layout;
};

/// Evaluates one expression.  Never throws, never crashes on bad input: every
/// failure comes back as `ok == false` with `error: KEYWORD: message`.
Outcome evaluate(std::string_view expression);

/// A literal value as the calculator reads it (used to read expected results).
struct Literal {
  enum Kind { kTuple, kLayout } kind = kTuple;
  IntTuple tuple;         // kTuple
  SwizzledLayout layout;  // kLayout (identity swizzle for a plain layout)
};
/// Parses an integer, integer tuple, layout or swizzled layout literal.
bool parse_literal(std::string_view text, Literal& out, Error& error);

/// Drawings of a rank-1 or rank-2 layout as a grid of cells labelled with
/// offsets.  Each returns false (and leaves `out` empty) for rank > 2.
bool draw_ascii(const SwizzledLayout& l, std::string& out);
bool draw_svg(const SwizzledLayout& l, std::string& out);
bool draw_latex(const SwizzledLayout& l, std::string& out);

/// Largest grid that the drawings accept (cells); larger layouts are rejected
/// with a message rather than producing an unreadable file.
inline constexpr index_t kMaxDrawCells = 1 << 16;

}  // namespace tessel::calc
