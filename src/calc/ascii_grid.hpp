// Text drawings that fit a terminal: lines of at most kAsciiWidth columns.
// A grid wider than that is printed in bands of whole columns, one after the
// other, each headed "columns A-B of N:"; long lines of prose are wrapped at
// spaces (a word longer than a line, such as a layout, after a ',' or ':').
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "tessel/tessel.hpp"

namespace tessel::calc::detail {

/// The widest line of an ASCII drawing (`tessel layout --format ascii`, `tessel draw --format ascii`).
inline constexpr std::size_t kAsciiWidth = 100;

inline std::string pad_left(const std::string& s, std::size_t w) {
  return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
}

/// `line` as lines of at most `width` characters (each ending in '\n');
/// continuation lines are indented by two spaces.
inline std::string wrap_line(const std::string& line, std::size_t width = kAsciiWidth) {
  std::string out, cur;
  const std::string indent = "  ";
  auto flush = [&] {
    out += cur + "\n";
    cur = indent;
  };
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t j = line.find(' ', i);
    if (j == std::string::npos) j = line.size();
    std::string word = line.substr(i, j - i);
    i = j < line.size() ? j + 1 : j;
    const bool fresh = cur.empty() || cur == indent;
    if (!fresh && cur.size() + 1 + word.size() > width) flush();
    if (cur.empty() || cur == indent) {
      // A word that no line holds is cut after its last ',' or ':' that fits (else at the width).
      while (cur.size() + word.size() > width) {
        const std::size_t room = width - cur.size();
        std::size_t cut = word.find_last_of(",:", room - 1);
        cut = (cut == std::string::npos || cut == 0) ? room : cut + 1;
        cur += word.substr(0, cut);
        word.erase(0, cut);
        flush();
      }
      cur += word;
    } else {
      cur += " " + word;
    }
  }
  if (!cur.empty() && cur != indent) out += cur + "\n";
  if (out.empty()) out.push_back('\n');
  return out;
}

/// A table of rows x cols cells: a header of column indices, then a row per
/// index between separator lines, as print_layout draws one:
///
///          0    1
///       +----+----+
///     0 |  0 |  2 |
///       +----+----+
struct AsciiTable {
  index_t rows = 0, cols = 0;
  std::size_t cell = 3;       // characters between two '|', label right-aligned with one space after
  std::size_t row_width = 3;  // characters of the row index
  bool header_space = true;   // a space after the last column index (print_layout's header has one)
  std::function<std::string(index_t, index_t)> label;
};

/// Columns per band so that a row line (row index, " |", then cell + 1 per
/// column) fits `width`; at least one.
inline index_t band_columns(const AsciiTable& t, std::size_t width = kAsciiWidth) {
  const std::size_t fixed = t.row_width + 2;
  const std::size_t n = width > fixed ? (width - fixed) / (t.cell + 1) : 0;
  return n < 1 ? 1 : static_cast<index_t>(n);
}

/// Appends the table; in bands of columns when one band does not fit `width`.
inline void append_table(std::string& out, const AsciiTable& t, std::size_t width = kAsciiWidth) {
  const index_t most = band_columns(t, width);
  const bool banded = t.cols > most;
  const index_t bands = ceil_div(t.cols, most);
  const index_t per = ceil_div(t.cols, bands);  // bands of even widths: 8 and 8 columns rather than 13 and 3
  for (index_t c0 = 0; c0 < t.cols; c0 += per) {
    const index_t c1 = c0 + per < t.cols ? c0 + per : t.cols;
    if (banded) {
      if (c0 > 0) out += "\n";
      out += "columns " + std::to_string(c0) + "-" + std::to_string(c1 - 1) + " of " + std::to_string(t.cols) + ":\n";
    }
    std::string sep = std::string(t.row_width + 1, ' ') + "+";
    out += std::string(t.row_width + 1, ' ');
    for (index_t c = c0; c < c1; ++c) {
      out += pad_left(std::to_string(c), t.cell) + (t.header_space || c + 1 < c1 ? " " : "");
      sep += std::string(t.cell, '-') + "+";
    }
    out += "\n" + sep + "\n";
    for (index_t r = 0; r < t.rows; ++r) {
      out += pad_left(std::to_string(r), t.row_width) + " |";
      for (index_t c = c0; c < c1; ++c) out += pad_left(t.label(r, c), t.cell - 1) + " |";
      out += "\n" + sep + "\n";
    }
  }
}

}  // namespace tessel::calc::detail
