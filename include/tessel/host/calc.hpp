// tessel/host/calc.hpp — the layout calculator: parse one expression of the
// calculator's grammar (docs/algebra.md §1) and evaluate it with the same
// algebra that kernels use.  Host only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

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

// ============================================================================
// Thread-value (TV) drawings — src/calc/draw_tv.cpp, the `tessel draw` command.
//
// A TV layout maps (thread t, value v) to the column-major index r + R*c of an
// element of an (R, C) tile (docs/hardware.md §1.2).  A drawing shows,
// in each cell of the tile, the thread that owns the cell (`T<t>`) and the
// value index of that element in the thread's fragment (`V<v>`); cells are
// coloured by thread.  A cell owned by several (t, v) pairs (replicated
// operands, aliasing lanes) shows its lowest thread and is marked `+`; a cell
// that nobody owns stays white.
// ============================================================================

/// One tile to draw: a TV layout over a (rows, cols) tile.
struct TvPanel {
  std::string name;     // shown as the panel title: "A", "B", "C", "SRC", "copy tile", ...
  std::string caption;  // shown after the name, e.g. "(M,K) = (16,16)"
  Layout tv;            // rank 2: (thread, value) -> r + rows*c
  index_t rows = 0, cols = 0;
  /// Draw tile cell (r, c) at display row c, column r (B, an (N,K) tile, drawn K x N).
  bool transposed = false;
  std::string row_axis = "row", col_axis = "col";  // names of the display axes
};

/// A picture: a title, lines of notes (the layouts, say) and its panels.
struct TvDrawing {
  /// kRow: panels left to right.  kMma: exactly three panels A, B, C placed as
  /// CuTe's print_latex does (C in the middle, A to its left, B above it).
  enum Arrangement { kRow, kMma } arrangement = kRow;
  std::string title;
  std::vector<std::string> notes;
  std::vector<TvPanel> panels;
};

/// The owner of one cell: the lowest thread (and its lowest value) among the
/// `owners` (t, v) pairs that map to the cell; thread == -1 when owners == 0.
struct TvCell {
  index_t thread = -1, value = -1, owners = 0;
};

/// The cells of a panel in display coordinates (row-major).
struct TvGrid {
  index_t rows = 0, cols = 0;       // display rows and columns
  index_t threads = 0, values = 0;  // size of the thread and value modes
  std::vector<TvCell> cells;
  const TvCell& at(index_t r, index_t c) const { return cells[static_cast<std::size_t>(r * cols + c)]; }
};

/// Evaluates every (t, v) of a panel.  False with a message (no `error: `
/// prefix) when the layout is not rank 2, the tile is empty or larger than
/// kMaxDrawCells, the layout has more than kMaxDrawTvPoints points, or a
/// point falls outside the tile.
bool tv_grid(const TvPanel& panel, TvGrid& out, std::string& error);

/// Renders a drawing: a self-contained SVG (each cell a <g class="cell"
/// data-row data-col data-t data-v data-owners>), or text tables with cells
/// `t/v` (`t/v+` when replicated, blank when unowned).  False with a message
/// when a panel is invalid (see tv_grid); `out` is then empty.
bool draw_tv_svg(const TvDrawing& drawing, std::string& out, std::string& error);
bool draw_tv_ascii(const TvDrawing& drawing, std::string& out, std::string& error);

/// The pictures of `tessel draw`.  Each returns false with a message for an
/// unknown name or bad arguments.
/// An MMA atom by name (atom/mma_traits_*.hpp), tiled over (am, an, ak) atoms (1,1,1: the atom).
bool tv_drawing_mma(std::string_view atom, int am, int an, int ak, TvDrawing& out, std::string& error);
/// make_tiled_copy(thr, val): its TV over its copy tile (the destination-side ownership).
bool tv_drawing_copy(const Layout& thr, const Layout& val, TvDrawing& out, std::string& error);
/// A line of atom_layouts::kAtomLayouts; operand empty: every operand of the instruction.
bool tv_drawing_atom(std::string_view instruction, std::string_view operand, TvDrawing& out, std::string& error);
/// Any TV layout over a (rows, cols) tile.
bool tv_drawing_layout(const Layout& tv, index_t rows, index_t cols, TvDrawing& out, std::string& error);
/// The names that tv_drawing_mma and tv_drawing_atom know, as text for `tessel draw list`.
std::string tv_drawing_names();

/// `tessel draw`'s size arguments ("2x2x1", "16x8"): exactly `count` integers
/// from 1 to `limit`, separated by 'x' or 'X'.  False (and `out` unspecified)
/// otherwise; the caller words the message.  Shared by the CLI and Python.
bool parse_dims(std::string_view text, std::size_t count, index_t limit, std::vector<index_t>& out);

/// A layout argument of `tessel draw` (`--thr`, `--val`, `layout`): any
/// calculator expression whose result is a plain (unswizzled) layout.  On
/// failure `error` is "WHAT: reason", the message `tessel draw` prints.
bool tv_layout_argument(std::string_view what, std::string_view expr, Layout& out, std::string& error);

/// Largest number of (thread, value) points that a TV drawing evaluates.
inline constexpr index_t kMaxDrawTvPoints = index_t{1} << 22;

}  // namespace tessel::calc
