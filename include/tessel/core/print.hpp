// tessel/core/print.hpp — CuTe notation and print_layout tables (host functions;
// the header also parses in CUDA translation units).
//
// Static and run-time integers print the same: `(4,3):(3,1)`.
#pragma once

#include "tessel/core/swizzle.hpp"

#include <ostream>
#include <string>

namespace tessel {

/// C++ example: to_string of the tuple (2,(3,4)) is "(2,(3,4))".
inline std::string to_string(const IntTuple& t) {
  std::string out;
  int leaf = 0;
  for (int i = 0; i < t.ntok; ++i) {
    const int k = t.tok[i];
    if (i > 0 && k != kTokClose && t.tok[i - 1] != kTokOpen) out += ',';
    if (k == kTokLeaf) out += std::to_string(t.val[leaf++]);
    if (k == kTokOpen) out += '(';
    if (k == kTokClose) out += ')';
  }
  return out;
}
/// C++ example: "(4,3):(3,1)".
inline std::string to_string(const Layout& l) { return to_string(l.shape) + ":" + to_string(l.stride); }
/// C++ example: "Sw<3,3,3>o((8,64):(64,1))"; Sw<0,M,S> prints as the plain layout.
inline std::string to_string(const SwizzledLayout& l) {
  if (l.swizzle.is_identity()) return to_string(l.layout);
  return "Sw<" + std::to_string(l.swizzle.b) + "," + std::to_string(l.swizzle.m) + "," + std::to_string(l.swizzle.s) +
         ">o(" + to_string(l.layout) + ")";
}

inline std::ostream& operator<<(std::ostream& os, const IntTuple& t) { return os << to_string(t); }
inline std::ostream& operator<<(std::ostream& os, const Layout& l) { return os << to_string(l); }
inline std::ostream& operator<<(std::ostream& os, const SwizzledLayout& l) { return os << to_string(l); }

inline const IntTuple& shape_of(const Layout& l) { return l.shape; }
inline const IntTuple& shape_of(const SwizzledLayout& l) { return l.layout.shape; }

/// Rows and columns of the grid that draws a layout: (size(mode 0), size(mode 1))
/// for rank 2, one row of size(L) cells for rank 1.  False for rank > 2.
inline bool grid_dims(const IntTuple& shape, index_t& rows, index_t& cols) {
  const int r = rank(shape);
  if (r > 2) return false;
  rows = r == 2 ? size(mode(shape, 0)) : 1;
  cols = r == 2 ? size(mode(shape, 1)) : size(shape);
  return true;
}

/// The value at grid cell (i,j) of a rank-1 or rank-2 layout (swizzled or not).
template <class L>
index_t grid_value(const L& l, index_t i, index_t j) {
  if (rank(shape_of(l)) == 2) return l(make_tuple(i, j));
  return l(j);
}

/// CuTe-style table: the layout on the first line, column indices, then one
/// row of cells per row index.  Rank-2 layouts only (rank-1 print as one row).
///
///   (2,3):(3,1)
///          0    1    2
///       +----+----+----+
///    0  |  0 |  1 |  2 |
///       +----+----+----+
///    1  |  3 |  4 |  5 |
///       +----+----+----+
template <class L>
std::string print_layout(const L& l) {
  std::string out = to_string(l) + "\n";
  index_t rows = 0, cols = 0;
  if (!grid_dims(shape_of(l), rows, cols)) return out + "(print_layout: rank > 2)\n";
  index_t widest = 1;
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) {
      const auto w = static_cast<index_t>(std::to_string(grid_value(l, i, j)).size());
      widest = w > widest ? w : widest;
    }
  const auto cell = static_cast<int>(widest) + 2;
  auto pad = [](const std::string& s, int w) {
    return std::string(w > static_cast<int>(s.size()) ? w - s.size() : 0, ' ') + s;
  };
  std::string sep = "    +";
  for (index_t j = 0; j < cols; ++j) sep += std::string(cell, '-') + "+";
  out += "    ";
  for (index_t j = 0; j < cols; ++j) out += pad(std::to_string(j), cell) + " ";
  out += "\n" + sep + "\n";
  for (index_t i = 0; i < rows; ++i) {
    out += pad(std::to_string(i), 3) + " |";
    for (index_t j = 0; j < cols; ++j) out += pad(std::to_string(grid_value(l, i, j)), cell - 1) + " |";
    out += "\n" + sep + "\n";
  }
  return out;
}

}  // namespace tessel
