// Drawings of rank-1/rank-2 layouts: a grid of cells, each labelled with its
// offset.  The ASCII form is print_layout's table; SVG and LaTeX/TikZ colour
// each cell by its offset: a hue gradient from the smallest to the largest
// offset for a plain layout; for a swizzled layout Sw<B,M,S>, by the 2^M-element
// unit that the swizzle moves ((offset >> M) mod 2^B), so that its permutation
// shows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "ascii_grid.hpp"
#include "colour.hpp"
#include "tessel/host/calc.hpp"

namespace tessel::calc {
namespace {

using detail::Rgb;

/// Hue in [0,300] degrees (red → magenta) for offset v within [lo,hi], pastel.
Rgb offset_colour(index_t v, index_t lo, index_t hi) {
  const double t = hi > lo ? static_cast<double>(v - lo) / static_cast<double>(hi - lo) : 0.0;
  return detail::hsl(300.0 * t, 0.65, 0.80);
}

struct GridData {
  index_t rows = 0, cols = 0, lo = 0, hi = 0;
  Swizzle sw{};

  Rgb colour(index_t v) const {
    if (sw.b == 0) return offset_colour(v, lo, hi);
    const index_t units = index_t{1} << sw.b;
    return offset_colour((v >> sw.m) % units, 0, units - 1);
  }
};

bool grid_of(const SwizzledLayout& l, GridData& g) {
  if (!grid_dims(l.layout.shape, g.rows, g.cols)) return false;
  if (g.rows * g.cols > kMaxDrawCells) return false;
  g.sw = l.swizzle;
  g.lo = g.hi = l(index_t{0});
  for (index_t i = 0; i < g.rows; ++i)
    for (index_t j = 0; j < g.cols; ++j) {
      const index_t v = grid_value(l, i, j);
      g.lo = std::min(g.lo, v);
      g.hi = std::max(g.hi, v);
    }
  return true;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else
      o += c;
  }
  return o;
}

}  // namespace

bool draw_ascii(const SwizzledLayout& l, std::string& out) {
  GridData g;
  out.clear();
  if (!grid_of(l, g)) return false;
  // print_layout's table, in bands of columns where it would not fit kAsciiWidth.
  std::size_t widest = 1;
  for (index_t i = 0; i < g.rows; ++i)
    for (index_t j = 0; j < g.cols; ++j) widest = std::max(widest, std::to_string(grid_value(l, i, j)).size());
  detail::AsciiTable t;
  t.rows = g.rows;
  t.cols = g.cols;
  t.cell = std::max(widest, std::to_string(g.cols - 1).size()) + 2;
  t.row_width = std::max<std::size_t>(3, std::to_string(g.rows - 1).size());
  t.label = [&l](index_t i, index_t j) { return std::to_string(grid_value(l, i, j)); };
  out = detail::wrap_line(to_string(l));
  detail::append_table(out, t);
  return true;
}

bool draw_svg(const SwizzledLayout& l, std::string& out) {
  GridData g;
  out.clear();
  if (!grid_of(l, g)) return false;
  const int digits = static_cast<int>(std::to_string(std::max(g.hi, g.rows * g.cols)).size());
  const int cw = std::max(22, 8 * digits + 8), ch = 18, left = cw + 6, top = 44;
  const index_t width = left + g.cols * cw + 10, height = top + g.rows * ch + 10;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lld\" height=\"%lld\" viewBox=\"0 0 %lld %lld\" "
                "font-family=\"monospace\" font-size=\"11\">\n",
                static_cast<long long>(width), static_cast<long long>(height), static_cast<long long>(width),
                static_cast<long long>(height));
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += buf;
  out += "<title>" + xml_escape(to_string(l)) + "</title>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += "<text x=\"4\" y=\"16\" font-size=\"13\">" + xml_escape(to_string(l)) + "</text>\n";
  out += "<g text-anchor=\"middle\" fill=\"#555\">\n";
  for (index_t j = 0; j < g.cols; ++j) {
    std::snprintf(buf, sizeof buf, "<text x=\"%lld\" y=\"%d\">%lld</text>\n",
                  static_cast<long long>(left + j * cw + cw / 2), top - 6, static_cast<long long>(j));
    out += buf;
  }
  for (index_t i = 0; i < g.rows; ++i) {
    std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%lld\">%lld</text>\n", left / 2,
                  static_cast<long long>(top + i * ch + ch - 5), static_cast<long long>(i));
    out += buf;
  }
  out += "</g>\n<g stroke=\"#333\" stroke-width=\"0.5\" text-anchor=\"middle\">\n";
  for (index_t i = 0; i < g.rows; ++i)
    for (index_t j = 0; j < g.cols; ++j) {
      const index_t v = grid_value(l, i, j);
      const Rgb c = g.colour(v);
      std::snprintf(buf, sizeof buf,
                    "<rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" fill=\"#%02x%02x%02x\"/>"
                    "<text x=\"%lld\" y=\"%lld\" stroke=\"none\">%lld</text>\n",
                    static_cast<long long>(left + j * cw), static_cast<long long>(top + i * ch), cw, ch, c.r, c.g, c.b,
                    static_cast<long long>(left + j * cw + cw / 2), static_cast<long long>(top + i * ch + ch - 5),
                    static_cast<long long>(v));
      out += buf;
    }
  out += "</g>\n</svg>\n";
  return true;
}

bool draw_latex(const SwizzledLayout& l, std::string& out) {
  GridData g;
  out.clear();
  if (!grid_of(l, g)) return false;
  char buf[256];
  out += "% " + to_string(l) + "\n";
  out += "\\documentclass[tikz,border=4pt]{standalone}\n\\begin{document}\n";
  // TeX's largest dimension is 16383.99pt (about 575 cm): cells shrink so that
  // the picture stays within 500 cm each way (1 cm x 0.6 cm cells up to 499
  // columns and 832 rows; the labels then overlap, but the file typesets).
  const double x_cm = std::min(1.0, 500.0 / static_cast<double>(g.cols + 1));
  const double y_cm = std::min(0.6, 500.0 / static_cast<double>(g.rows + 1));
  std::snprintf(buf, sizeof buf, "\\begin{tikzpicture}[x=%.4fcm,y=%.4fcm,every node/.style={font=\\ttfamily\\small}]\n",
                x_cm, y_cm);
  out += buf;
  for (index_t i = 0; i < g.rows; ++i)
    for (index_t j = 0; j < g.cols; ++j) {
      const index_t v = grid_value(l, i, j);
      const Rgb c = g.colour(v);
      std::snprintf(buf, sizeof buf,
                    "\\filldraw[draw=black,fill={rgb,255:red,%d;green,%d;blue,%d}] (%lld,%lld) rectangle ++(1,-1) "
                    "node[pos=.5] {%lld};\n",
                    c.r, c.g, c.b, static_cast<long long>(j), static_cast<long long>(-i), static_cast<long long>(v));
      out += buf;
    }
  for (index_t j = 0; j < g.cols; ++j) {
    std::snprintf(buf, sizeof buf, "\\node at (%.1f,0.5) {%lld};\n", static_cast<double>(j) + 0.5,
                  static_cast<long long>(j));
    out += buf;
  }
  for (index_t i = 0; i < g.rows; ++i) {
    std::snprintf(buf, sizeof buf, "\\node at (-0.5,%.1f) {%lld};\n", -static_cast<double>(i) - 0.5,
                  static_cast<long long>(i));
    out += buf;
  }
  out += "\\end{tikzpicture}\n\\end{document}\n";
  return true;
}

}  // namespace tessel::calc
