// Drawings of thread-value (TV) layouts: which thread owns each element of a
// tile, and as which value of its fragment.  A TV layout maps (t, v) to the
// column-major index r + R*c of an (R, C) tile (docs/hardware.md §1.2).
//
// Cells are coloured by thread: hue by t mod 8, lightness by (t/8) mod 4, so
// the 32 lanes of a warp get 32 different colours.  A cell owned by several
// (t, v) pairs shows the lowest thread (and that thread's lowest value) and is
// marked `+`; a cell owned by nobody stays white.
//
// The SVG is plain SVG 1.1 text; every cell is a group
//   <g class="cell" data-row=".." data-col=".." data-t=".." data-v=".." data-owners="..">
// in display coordinates, so that tests (tests/draw_test.py) and scripts can
// read the ownership back without parsing geometry.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "ascii_grid.hpp"
#include "colour.hpp"
#include "tessel/atom/layouts_sm80.hpp"
#include "tessel/atom/mma_atom.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"
#include "tessel/atom/mma_traits_sm90.hpp"
#include "tessel/atom/tiled_copy.hpp"
#include "tessel/host/calc.hpp"

namespace tessel::calc {
namespace {

/// Every MMA atom of a fixed shape that `tessel draw` knows: each architecture's table, in order.
const std::vector<const MmaAtomInfo*>& mma_atoms() {
  static const std::vector<const MmaAtomInfo*> all(std::begin(kMmaAtomsSm80), std::end(kMmaAtomsSm80));
  return all;
}

/// A wgmma atom by name: SM90_64x<N>x16_F32<BF16BF16|F16F16>_<SS|RS>, N a
/// multiple of 8 from 8 to 256 (the f16 form owns the same elements).
struct WgmmaName {
  int n = 0;
  bool ss = true;
  std::string types;  // "bf16" or "f16"
};
bool parse_wgmma_name(std::string_view name, WgmmaName& out) {
  constexpr std::string_view head = "SM90_64x";
  if (name.substr(0, head.size()) != head) return false;
  std::size_t i = head.size();
  int n = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && n <= 256) n = n * 10 + (name[i++] - '0');
  if (i == head.size() || n < 8 || n > 256 || n % 8 != 0) return false;
  const std::string_view rest = name.substr(i);
  for (const auto& [spelled, types] : {std::pair<std::string_view, const char*>{"BF16BF16", "bf16"}, {"F16F16", "f16"}})
    for (const bool ss : {true, false}) {
      const std::string want = std::string("x16_F32") + std::string(spelled) + (ss ? "_SS" : "_RS");
      if (rest == want) {
        out = WgmmaName{n, ss, types};
        return true;
      }
    }
  return false;
}
std::string wgmma_name(int n, bool ss) {
  return "SM90_64x" + std::to_string(n) + "x16_F32BF16BF16_" + (ss ? "SS" : "RS");
}

// ---------------------------------------------------------------- small helpers

std::string num(index_t v) { return std::to_string(v); }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string xml_text(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

std::string tile_string(index_t rows, index_t cols) { return "(" + num(rows) + "," + num(cols) + ")"; }

/// Width in pixels of `chars` monospace characters at `font` px (an estimate).
double text_width(std::size_t chars, double font) { return 0.62 * font * static_cast<double>(chars); }

/// The fill of thread t: hue by t mod 8 (45 degrees apart), lightness by
/// (t/8) mod 4 (four steps from pale to medium); black text stays readable.
std::string thread_colour(index_t t) {
  static constexpr double kLightness[4] = {0.88, 0.78, 0.68, 0.58};
  const detail::Rgb c = detail::hsl(45.0 * static_cast<double>(t % 8), 0.70, kLightness[(t / 8) % 4]);
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

std::string cell_thread_label(const TvCell& c) { return "T" + num(c.thread) + (c.owners > 1 ? "+" : ""); }
std::string cell_value_label(const TvCell& c) { return "V" + num(c.value); }
std::string cell_ascii_label(const TvCell& c) {
  if (c.owners == 0) return "";
  return num(c.thread) + "/" + num(c.value) + (c.owners > 1 ? "+" : "");
}

std::string panel_heading(const TvPanel& p) {
  std::string s = p.name;
  if (!p.caption.empty()) s += " " + p.caption;
  return s;
}

std::string axes_note(const TvPanel& p) { return "rows " + p.row_axis + ", columns " + p.col_axis; }

constexpr const char* kLegend =
    "cell: T<thread> over V<value>; colour by thread; '+': also owned by other (thread, value) pairs, "
    "lowest thread shown; white: no owner";
constexpr const char* kAsciiLegend =
    "cell: thread/value; '+': other (thread, value) pairs own it too, lowest thread shown; blank: none";

/// Checks a drawing and evaluates all its panels.
bool grids_of(const TvDrawing& d, std::vector<TvGrid>& grids, std::string& error) {
  if (d.panels.empty()) {
    error = "nothing to draw (no panels)";
    return false;
  }
  if (d.arrangement == TvDrawing::kMma && d.panels.size() != 3) {
    error = "an MMA picture has exactly three panels (A, B, C)";
    return false;
  }
  index_t cells = 0;
  grids.assign(d.panels.size(), TvGrid{});
  for (std::size_t i = 0; i < d.panels.size(); ++i) {
    std::string e;
    if (!tv_grid(d.panels[i], grids[i], e)) {
      error = d.panels[i].name + ": " + e;
      return false;
    }
    cells += grids[i].rows * grids[i].cols;
  }
  if (cells > kMaxDrawCells) {
    error = "the panels have " + num(cells) + " cells together; a drawing has at most " + num(kMaxDrawCells);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------- SVG geometry

struct Geometry {
  int cw = 30, ch = 28;  // cell
  int margin = 24;       // left of each panel's grid: row indices
  int header = 34;       // above each panel's grid: title and column indices
  int gap = 18;          // between panels
};

struct Placed {
  double x = 0, y = 0;  // top-left corner of the panel's box (its header and row-index margin included)
};

double box_width(const Geometry& g, const TvGrid& grid) { return g.margin + static_cast<double>(grid.cols) * g.cw; }
double box_height(const Geometry& g, const TvGrid& grid) { return g.header + static_cast<double>(grid.rows) * g.ch; }

void svg_panel(std::string& out, const Geometry& g, const TvPanel& p, const TvGrid& grid, const Placed& at) {
  const double gx = at.x + g.margin, gy = at.y + g.header;  // grid origin
  out += "<g class=\"panel\" data-name=\"" + xml_text(p.name) + "\" data-rows=\"" + num(grid.rows) + "\" data-cols=\"" +
         num(grid.cols) + "\" data-threads=\"" + num(grid.threads) + "\" data-values=\"" + num(grid.values) + "\">\n";
  out += "<text class=\"panel-title\" x=\"" + num(gx) + "\" y=\"" + num(at.y + 13) +
         "\" font-size=\"12\" font-weight=\"bold\">" + xml_text(panel_heading(p)) +
         "<tspan dx=\"10\" font-weight=\"normal\" font-size=\"10\" fill=\"#555\">" + xml_text(axes_note(p)) +
         "</tspan></text>\n";
  out += "<g class=\"index\" font-size=\"9\" fill=\"#555\" text-anchor=\"middle\">\n";
  for (index_t c = 0; c < grid.cols; ++c)
    out += "<text class=\"col-index\" x=\"" + num(gx + (static_cast<double>(c) + 0.5) * g.cw) + "\" y=\"" +
           num(gy - 5) + "\">" + num(c) + "</text>\n";
  for (index_t r = 0; r < grid.rows; ++r)
    out += "<text class=\"row-index\" x=\"" + num(gx - g.margin / 2.0) + "\" y=\"" +
           num(gy + (static_cast<double>(r) + 0.5) * g.ch + 3) + "\">" + num(r) + "</text>\n";
  out += "</g>\n<g font-size=\"10\" text-anchor=\"middle\">\n";
  for (index_t r = 0; r < grid.rows; ++r)
    for (index_t c = 0; c < grid.cols; ++c) {
      const TvCell& cell = grid.at(r, c);
      const double x = gx + static_cast<double>(c) * g.cw, y = gy + static_cast<double>(r) * g.ch;
      const double cx = x + g.cw / 2.0;
      out += "<g class=\"cell\" data-row=\"" + num(r) + "\" data-col=\"" + num(c) + "\" data-owners=\"" +
             num(cell.owners) + "\"";
      if (cell.owners > 0) out += " data-t=\"" + num(cell.thread) + "\" data-v=\"" + num(cell.value) + "\"";
      out += "><title>" + xml_text(p.name) + " " + p.row_axis + "=" + num(r) + " " + p.col_axis + "=" + num(c) + ": ";
      if (cell.owners == 0)
        out += "no owner";
      else {
        out += "thread " + num(cell.thread) + " value " + num(cell.value);
        if (cell.owners > 1) out += " (" + num(cell.owners) + " owners)";
      }
      out += "</title><rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(index_t{g.cw}) + "\" height=\"" +
             num(index_t{g.ch}) + "\" fill=\"" +
             (cell.owners > 0 ? thread_colour(cell.thread) : std::string("#ffffff")) +
             "\" stroke=\"#444\" stroke-width=\"0.5\"/>";
      if (cell.owners > 0)
        out += "<text x=\"" + num(cx) + "\" y=\"" + num(y + 12) + "\">" + cell_thread_label(cell) +
               "</text><text x=\"" + num(cx) + "\" y=\"" + num(y + 23) + "\">" + cell_value_label(cell) + "</text>";
      out += "</g>\n";
    }
  out += "</g>\n";
  // A heavier frame around the whole tile.
  out += "<rect x=\"" + num(gx) + "\" y=\"" + num(gy) + "\" width=\"" + num(static_cast<double>(grid.cols) * g.cw) +
         "\" height=\"" + num(static_cast<double>(grid.rows) * g.ch) +
         "\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/>\n</g>\n";
}

}  // namespace

// ---------------------------------------------------------------- evaluation

bool tv_grid(const TvPanel& p, TvGrid& out, std::string& error) {
  out = TvGrid{};
  const Layout& tv = p.tv;
  if (rank(tv) != 2) {
    error = "a TV layout has two top-level modes (THREAD, VALUE); " + to_string(tv) + " has rank " +
            std::to_string(rank(tv));
    return false;
  }
  if (p.rows < 1 || p.cols < 1) {
    error = "the tile " + tile_string(p.rows, p.cols) + " is empty";
    return false;
  }
  if (p.rows > kMaxDrawCells / p.cols) {
    error = "the tile " + tile_string(p.rows, p.cols) + " has more than " + num(kMaxDrawCells) +
            " cells, the most a drawing shows";
    return false;
  }
  const index_t cells = p.rows * p.cols;
  const index_t points = size(tv);
  if (points > kMaxDrawTvPoints) {
    error = "the TV layout " + to_string(tv) + " has " + num(points) +
            " (thread, value) points; a drawing evaluates at most " + num(kMaxDrawTvPoints);
    return false;
  }
  const index_t threads = size(mode(tv, 0)), values = size(mode(tv, 1));
  // Every point first, so that an overflow is reported before anything is built.
  std::vector<index_t> index(static_cast<std::size_t>(points));
  for (index_t i = 0; i < points; ++i) {
    const index_t k = tv(i);
    if (k < 0 || k >= cells) {
      error = "the TV layout " + to_string(tv) + " does not fit the " + tile_string(p.rows, p.cols) + " tile (" +
              num(cells) + " cells): thread " + num(i % threads) + ", value " + num(i / threads) + " maps to index " +
              num(k) + " (the layout's cosize is " + num(cosize(tv)) + ")";
      return false;
    }
    index[static_cast<std::size_t>(i)] = k;
  }
  out.rows = p.transposed ? p.cols : p.rows;
  out.cols = p.transposed ? p.rows : p.cols;
  out.threads = threads;
  out.values = values;
  out.cells.assign(static_cast<std::size_t>(cells), TvCell{});
  for (index_t i = 0; i < points; ++i) {
    const index_t k = index[static_cast<std::size_t>(i)];
    const index_t r = k % p.rows, c = k / p.rows;
    const index_t dr = p.transposed ? c : r, dc = p.transposed ? r : c;
    TvCell& cell = out.cells[static_cast<std::size_t>(dr * out.cols + dc)];
    const index_t t = i % threads, v = i / threads;
    if (cell.owners == 0 || t < cell.thread || (t == cell.thread && v < cell.value)) {
      cell.thread = t;
      cell.value = v;
    }
    ++cell.owners;
  }
  return true;
}

// ---------------------------------------------------------------- SVG

bool draw_tv_svg(const TvDrawing& d, std::string& out, std::string& error) {
  out.clear();
  std::vector<TvGrid> grids;
  if (!grids_of(d, grids, error)) return false;

  // Cell size from the longest labels, margins from the largest row index.
  Geometry g;
  std::size_t label = 2;
  index_t max_rows = 1;
  for (const TvGrid& grid : grids) {
    max_rows = std::max(max_rows, grid.rows);
    for (const TvCell& c : grid.cells)
      if (c.owners > 0) label = std::max({label, cell_thread_label(c).size(), cell_value_label(c).size()});
  }
  g.cw = std::max(30, static_cast<int>(std::ceil(text_width(label, 10))) + 10);
  g.margin = static_cast<int>(std::ceil(text_width(num(max_rows - 1).size(), 9))) + 14;

  // Figure header: title, notes, legend.
  const double title_h = 22, note_h = 15;
  const std::size_t nlines = d.notes.size() + 1;
  double header_w = text_width(d.title.size(), 14);
  for (const std::string& n : d.notes) header_w = std::max(header_w, text_width(n.size(), 11));
  header_w = std::max(header_w, text_width(std::string(kLegend).size(), 11));
  const double top = title_h + note_h * static_cast<double>(nlines) + 14;
  const double left = 8;

  // Panel places.
  std::vector<Placed> at(d.panels.size());
  if (d.arrangement == TvDrawing::kMma) {
    const TvGrid &a = grids[0], &b = grids[1];
    const double wa = box_width(g, a), hb = box_height(g, b);
    at[1] = {left + wa + g.gap, top};               // B above C
    at[0] = {left, top + hb + g.gap};               // A left of C, rows aligned with C's
    at[2] = {left + wa + g.gap, top + hb + g.gap};  // C
  } else {
    double x = left;
    for (std::size_t i = 0; i < d.panels.size(); ++i) {
      at[i] = {x, top};
      x += box_width(g, grids[i]) + g.gap;
    }
  }
  double width = left + header_w, height = top;
  for (std::size_t i = 0; i < d.panels.size(); ++i) {
    const double title_w =
        text_width(panel_heading(d.panels[i]).size(), 12) + text_width(axes_note(d.panels[i]).size() + 2, 10);
    width = std::max({width, at[i].x + box_width(g, grids[i]), at[i].x + g.margin + title_w});
    height = std::max(height, at[i].y + box_height(g, grids[i]));
  }
  const index_t w = static_cast<index_t>(std::ceil(width)) + 10, h = static_cast<index_t>(std::ceil(height)) + 10;

  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) + "\" height=\"" + num(h) + "\" viewBox=\"0 0 " +
         num(w) + " " + num(h) + "\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\">\n";
  out += "<title>" + xml_text(d.title) + "</title>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += "<text class=\"title\" x=\"" + num(left) + "\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" +
         xml_text(d.title) + "</text>\n";
  double y = title_h + 12;
  for (const std::string& n : d.notes) {
    out += "<text class=\"note\" x=\"" + num(left) + "\" y=\"" + num(y) + "\" font-size=\"11\">" + xml_text(n) +
           "</text>\n";
    y += note_h;
  }
  out += "<text class=\"legend\" x=\"" + num(left) + "\" y=\"" + num(y) + "\" font-size=\"11\" fill=\"#555\">" +
         xml_text(kLegend) + "</text>\n";
  for (std::size_t i = 0; i < d.panels.size(); ++i) svg_panel(out, g, d.panels[i], grids[i], at[i]);
  out += "</svg>\n";
  return true;
}

// ---------------------------------------------------------------- ASCII

bool draw_tv_ascii(const TvDrawing& d, std::string& out, std::string& error) {
  out.clear();
  std::vector<TvGrid> grids;
  if (!grids_of(d, grids, error)) return false;
  out += detail::wrap_line(d.title);
  for (const std::string& n : d.notes) out += detail::wrap_line(n);
  out += detail::wrap_line(kAsciiLegend);
  for (std::size_t i = 0; i < d.panels.size(); ++i) {
    const TvGrid& grid = grids[i];
    std::size_t cell = 1;
    for (const TvCell& c : grid.cells) cell = std::max(cell, cell_ascii_label(c).size());
    detail::AsciiTable t;
    t.rows = grid.rows;
    t.cols = grid.cols;
    t.cell = std::max(cell, num(grid.cols - 1).size()) + 2;
    t.row_width = std::max<std::size_t>(3, num(grid.rows - 1).size());
    t.header_space = false;
    t.label = [&grid](index_t r, index_t c) { return cell_ascii_label(grid.at(r, c)); };
    out += "\n" + detail::wrap_line(panel_heading(d.panels[i]) + ": " + axes_note(d.panels[i]));
    detail::append_table(out, t);
  }
  return true;
}

// ---------------------------------------------------------------- the pictures of `tessel draw`

namespace {

void mma_panels(TvDrawing& d, const Layout& a, const Layout& b, const Layout& c, index_t m, index_t n, index_t k) {
  d.arrangement = TvDrawing::kMma;
  TvPanel pa{"A", "(M,K) = " + tile_string(m, k), a, m, k, false, "m", "k"};
  TvPanel pb{"B", "(N,K) = " + tile_string(n, k) + ", drawn K x N", b, n, k, true, "k", "n"};
  TvPanel pc{"C", "(M,N) = " + tile_string(m, n), c, m, n, false, "m", "n"};
  d.notes.push_back("A (M,K) TV: " + to_string(a));
  d.notes.push_back("B (N,K) TV: " + to_string(b));
  d.notes.push_back("C (M,N) TV: " + to_string(c));
  d.panels = {pa, pb, pc};
}

/// What the panels of a wgmma atom mean (docs/hardware.md §7.2, §7.3).
void wgmma_notes(TvDrawing& d, bool ss) {
  d.notes.push_back(
      "C: warp w = t/32 owns rows 16w..16w+15; lane 4g+q holds value i at row 16w + g + 8*((i>>1)&1), "
      "column 8*(i>>2) + 2q + (i&1)");
  if (ss)
    d.notes.push_back(
        "SS: A and B are read from shared memory through descriptors by the whole warpgroup, so every thread "
        "holds every element (thread stride 0): each cell shows thread 0 and '+'");
  else
    d.notes.push_back(
        "RS: A from registers, each warp's m16n8k16 A fragment of its 16 rows: value i at row 16w + g + "
        "8*((i>>1)&1), column 2q + (i&1) + 8*(i>>2); B from shared memory (every thread holds it all)");
}

}  // namespace

bool tv_drawing_mma(std::string_view name, int am, int an, int ak, TvDrawing& out, std::string& error) {
  out = TvDrawing{};
  const MmaAtomInfo* atom = nullptr;
  for (const MmaAtomInfo* a : mma_atoms())
    if (name == a->name) atom = a;
  // A wgmma atom is made for its N; its name and instruction live here until the drawing is built.
  WgmmaName wg;
  MmaAtomInfo wgmma{};
  std::string wg_name, wg_instruction;
  if (atom == nullptr && parse_wgmma_name(name, wg)) {
    wgmma = wgmma_info(wg.n, wg.ss);
    wg_name = std::string(name);
    wg_instruction =
        "wgmma.mma_async.sync.aligned.m64n" + std::to_string(wg.n) + "k16.f32." + wg.types + "." + wg.types;
    wgmma.name = wg_name.c_str();
    wgmma.instruction = wg_instruction.c_str();
    atom = &wgmma;
  }
  if (atom == nullptr) {
    error = "unknown MMA atom '" + std::string(name) + "' (known:";
    for (const MmaAtomInfo* a : mma_atoms()) error += std::string(" ") + a->name;
    error +=
        "; and the sm_90 wgmma atoms SM90_64xNx16_F32BF16BF16_SS, _RS (or F16F16), N a multiple of 8 from 8 to 256)";
    return false;
  }
  constexpr int kMaxAtoms = 64;
  if (am < 1 || an < 1 || ak < 1 || am > kMaxAtoms || an > kMaxAtoms || ak > kMaxAtoms) {
    error = "atom counts must be 1.." + std::to_string(kMaxAtoms) + " along each of M, N, K; got " +
            std::to_string(am) + "x" + std::to_string(an) + "x" + std::to_string(ak);
    return false;
  }
  const std::string inst = std::string(atom->name) + " (" + atom->instruction + ")";
  if (am == 1 && an == 1 && ak == 1) {
    out.title = "MMA atom " + inst + ": (M,N,K) = (" + std::to_string(atom->m) + "," + std::to_string(atom->n) + "," +
                std::to_string(atom->k) + "), " + std::to_string(atom->threads) + " threads";
    mma_panels(out, atom->a, atom->b, atom->c, atom->m, atom->n, atom->k);
    if (atom == &wgmma) wgmma_notes(out, wg.ss);
    return true;
  }
  TiledMmaLayouts t;
  try {
    t = make_tiled_mma_layouts(*atom, am, an, ak);
  } catch (const std::exception& e) {
    error = std::string("cannot tile the atom: ") + e.what();
    return false;
  }
  out.title = "TiledMMA of " + inst + ", " + std::to_string(am) + "x" + std::to_string(an) + "x" + std::to_string(ak) +
              " atoms: (M,N,K) = (" + std::to_string(t.m) + "," + std::to_string(t.n) + "," + std::to_string(t.k) +
              "), " + std::to_string(t.threads) + " threads";
  mma_panels(out, t.a, t.b, t.c, t.m, t.n, t.k);
  if (atom == &wgmma) wgmma_notes(out, wg.ss);
  out.notes.insert(out.notes.begin(),
                   "thread = lane + " + std::to_string(atom->threads) +
                       "*(am + AM*(an + AN*ak)) for the atom at (am, an, ak) of the (AM, AN, AK) grid");
  return true;
}

bool tv_drawing_copy(const Layout& thr, const Layout& val, TvDrawing& out, std::string& error) {
  out = TvDrawing{};
  // Each size is checked before the product is formed (≤ 2^22 each: no overflow).
  if (size(thr) > kMaxDrawTvPoints || size(val) > kMaxDrawTvPoints || size(thr) * size(val) > kMaxDrawTvPoints) {
    error = "the TiledCopy moves " + num(size(thr)) + " x " + num(size(val)) +
            " (thread, value) points; a drawing evaluates at most " + num(kMaxDrawTvPoints);
    return false;
  }
  // A thread layout gives each thread its own place in the tile, and a value
  // layout each value its own element: both must be injective, or the copy
  // tile they describe does not exist.  Say so rather than report the tile
  // mismatch that would follow.
  for (const auto& [flag, l] : {std::pair<const char*, const Layout*>{"--thr", &thr}, {"--val", &val}}) {
    std::vector<std::pair<index_t, index_t>> seen;  // (offset, index)
    const index_t n = size(*l);
    seen.reserve(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) seen.emplace_back((*l)(i), i);
    std::sort(seen.begin(), seen.end());
    for (std::size_t i = 1; i < seen.size(); ++i)
      if (seen[i].first == seen[i - 1].first) {
        error = std::string(flag) + " " + to_string(*l) + " is not injective: indices " + num(seen[i - 1].second) +
                " and " + num(seen[i].second) + " both map to offset " + num(seen[i].first) +
                " (each thread, and each value of a thread, needs its own element)";
        return false;
      }
  }
  CopyPlan plan;
  try {
    plan = make_copy_plan(thr, val);
  } catch (const std::exception& e) {
    error = std::string("cannot build the TiledCopy: ") + e.what();
    return false;
  }
  const int r = rank(plan.tile);
  if (r > 2) {
    error =
        "the copy tile " + to_string(plan.tile) + " has rank " + std::to_string(r) + "; a drawing shows rank 1 or 2";
    return false;
  }
  const index_t rows = r == 2 ? size(mode(plan.tile, 0)) : size(plan.tile);
  const index_t cols = r == 2 ? size(mode(plan.tile, 1)) : 1;
  out.title = "TiledCopy thr " + to_string(thr) + ", val " + to_string(val) + ": copy tile " + tile_string(rows, cols) +
              ", " + num(size(thr)) + " threads x " + num(size(val)) + " values";
  out.notes.push_back("TV (thread, value) -> r + R*c: " + to_string(plan.tv));
  out.notes.push_back(
      "destination-side ownership: each cell shows the thread that writes it and the value's index "
      "in that thread's fragment");
  out.panels.push_back(
      TvPanel{"copy tile", "(R,C) = " + tile_string(rows, cols), plan.tv, rows, cols, false, "r", "c"});
  return true;
}

bool tv_drawing_atom(std::string_view instruction, std::string_view operand, TvDrawing& out, std::string& error) {
  out = TvDrawing{};
  std::vector<const atom_layouts::AtomLayout*> lines;
  for (const atom_layouts::AtomLayout& l : atom_layouts::kAtomLayouts)
    if (instruction == l.instruction) lines.push_back(&l);
  if (lines.empty()) {
    error = "unknown instruction '" + std::string(instruction) + "' (see `tessel draw list`)";
    return false;
  }
  auto upper = [](std::string_view s) {
    std::string u(s);
    for (char& c : u)
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return u;
  };
  const std::string want = upper(operand);
  std::string known;
  std::vector<const atom_layouts::AtomLayout*> chosen;
  for (const atom_layouts::AtomLayout* l : lines) {
    known += std::string(known.empty() ? "" : ", ") + l->operand;
    if (want.empty() || want == l->operand) chosen.push_back(l);
  }
  if (chosen.empty()) {
    error = "instruction '" + std::string(instruction) + "' has no operand '" + std::string(operand) + "' (it has " +
            known + ")";
    return false;
  }
  out.title = std::string(instruction);
  if (chosen.size() == 1) out.title += " " + std::string(chosen[0]->operand);
  const bool mma = chosen.size() == 3 && std::string(chosen[0]->operand) == "A" &&
                   std::string(chosen[1]->operand) == "B" && std::string(chosen[2]->operand) == "C";
  if (mma) {
    // Tiles: A (M,K), B (N,K), C (M,N).
    mma_panels(out, chosen[0]->layout, chosen[1]->layout, chosen[2]->layout, chosen[0]->rows, chosen[1]->rows,
               chosen[0]->cols);
    return true;
  }
  for (const atom_layouts::AtomLayout* l : chosen) {
    const std::string op = l->operand;
    TvPanel p{op, "(R,C) = " + tile_string(l->rows, l->cols), l->layout, l->rows, l->cols, false, "r", "c"};
    if (op == "A" || op == "C") p.row_axis = "m", p.col_axis = op == "A" ? "k" : "n";
    if (op == "B") p.caption = "(N,K) = " + tile_string(l->rows, l->cols), p.row_axis = "n", p.col_axis = "k";
    out.notes.push_back(op + " TV: " + to_string(l->layout));
    out.panels.push_back(p);
  }
  return true;
}

bool tv_drawing_layout(const Layout& tv, index_t rows, index_t cols, TvDrawing& out, std::string& error) {
  out = TvDrawing{};
  TvGrid probe;
  TvPanel p{"tile", "(R,C) = " + tile_string(rows, cols), tv, rows, cols, false, "r", "c"};
  if (!tv_grid(p, probe, error)) return false;
  out.title = "TV layout " + to_string(tv) + " over a " + tile_string(rows, cols) + " tile";
  out.notes.push_back(num(probe.threads) + " threads x " + num(probe.values) + " values -> r + " + num(rows) + "*c");
  out.panels.push_back(p);
  return true;
}

std::string tv_drawing_names() {
  std::string s = "MMA atoms (tessel draw mma NAME [--atoms AMxANxAK]):\n";
  for (const MmaAtomInfo* a : mma_atoms())
    s += std::string("  ") + a->name + "  (M,N,K) = (" + std::to_string(a->m) + "," + std::to_string(a->n) + "," +
         std::to_string(a->k) + ")  " + a->instruction + "\n";
  for (const int n : {64, 128, 192, 256})
    for (const bool ss : {true, false})
      s += "  " + wgmma_name(n, ss) + "  (M,N,K) = (64," + std::to_string(n) + ",16)  " +
           "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32.bf16.bf16\n";
  s += "  (wgmma: _SS reads A and B from shared memory, _RS A from registers; any N multiple of 8 from 8 to 256;\n"
       "   F16F16 for f16 owns the same elements)\n";
  s += "Instruction layouts (tessel draw atom INSTRUCTION [--operand OPERAND]):\n";
  for (const atom_layouts::AtomLayout& l : atom_layouts::kAtomLayouts)
    s += std::string("  ") + l.instruction + "  " + l.operand + "  tile " + tile_string(l.rows, l.cols) + "  " +
         to_string(l.layout) + "\n";
  s += "Any TiledCopy: tessel draw copy --thr LAYOUT --val LAYOUT\n";
  s += "Any TV layout: tessel draw tv LAYOUT --tile RxC\n";
  return s;
}

bool parse_dims(std::string_view text, std::size_t count, index_t limit, std::vector<index_t>& out) {
  out.clear();
  std::size_t i = 0;
  for (;;) {
    if (i == text.size() || text[i] < '0' || text[i] > '9') return false;
    index_t v = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      v = v * 10 + (text[i] - '0');
      if (v > limit) return false;
    }
    if (v == 0) return false;
    out.push_back(v);
    if (i == text.size()) return out.size() == count;
    if (text[i] != 'x' && text[i] != 'X') return false;
    ++i;
  }
}

bool tv_layout_argument(std::string_view what, std::string_view expr, Layout& out, std::string& error) {
  const Outcome r = evaluate(expr);
  const std::string w(what);
  if (!r.ok) {
    error = w + ": " + (r.text.rfind("error: ", 0) == 0 ? r.text.substr(7) : r.text);
    return false;
  }
  if (!r.has_layout) {
    error = w + ": '" + std::string(expr) + "' is " + r.text + ", not a layout";
    return false;
  }
  if (!r.layout.swizzle.is_identity()) {
    error = w + ": a swizzled layout (" + r.text + ") is not a TV layout";
    return false;
  }
  out = r.layout.layout;
  return true;
}

}  // namespace tessel::calc
