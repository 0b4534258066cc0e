// tessel._tessel — the Python extension (nanobind) behind python/tessel.
//
// It is a thin door onto the calculator of src/calc: every operation goes
// through calc::evaluate (so Python gets the command line's results and
// messages, not a second implementation), layouts come back as the library's
// SwizzledLayout, and the drawings are calc's SVG/ASCII renderers.  Failures
// are returned as values, (false, message), and turned into tessel.Error by
// the Python package, which owns the error model (docs/python.md).
//
// One piece of tools/tessel/main.cpp is mirrored here because it lives in
// the command line, not in the library: the checks of `tessel layout
// --format` (run_single).  Its messages are the CLI's, word for word;
// python/tests/test_cli_parity.py compares the two where a CLI is built.
// `tessel draw`'s argument readers are the library's (calc::parse_dims,
// calc::tv_layout_argument), shared with the CLI.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessel/host/calc.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using tessel::index_t;
using tessel::IntTuple;
using tessel::SwizzledLayout;
namespace calc = tessel::calc;

/// A Python tuple that takes ownership of `items`.
nb::object make_tuple(std::vector<nb::object>& items) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(items.size()));
  if (t == nullptr) throw nb::python_error();
  for (std::size_t i = 0; i < items.size(); ++i)
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), items[i].release().ptr());
  return nb::steal(t);
}

/// An IntTuple as Python values: a leaf is an int, a tuple a tuple (so the
/// rank-1 tuple `(4)` is `(4,)`, not `4`).
nb::object to_python(const IntTuple& t) {
  std::vector<std::vector<nb::object>> open(1);
  int leaf = 0;
  for (int i = 0; i < t.ntok; ++i) {
    if (t.tok[i] == tessel::kTokLeaf) {
      open.back().push_back(nb::int_(t.val[leaf++]));
    } else if (t.tok[i] == tessel::kTokOpen) {
      open.emplace_back();
    } else if (t.tok[i] == tessel::kTokClose && open.size() > 1) {
      nb::object done = make_tuple(open.back());
      open.pop_back();
      open.back().push_back(std::move(done));
    }
  }
  if (open.size() != 1 || open[0].size() != 1) return nb::none();  // not a well-formed tuple (never printed)
  return open[0][0];
}

/// The drawing of a single layout, or nullopt when `tessel layout --format
/// svg` would refuse it (rank above 2, more than kMaxDrawCells cells).
std::optional<std::string> layout_svg(const SwizzledLayout& l) {
  std::string out;
  if (tessel::rank(l) > 2 || tessel::size(l) > calc::kMaxDrawCells || !calc::draw_svg(l, out)) return std::nullopt;
  return out;
}

/// (ok, text): what `tessel layout --format FORMAT EXPR` prints on standard
/// output (the result line, a drawing, or the `error: ...` line).  The
/// checks and messages are run_single's.
std::pair<bool, std::string> render(std::string_view expr, const std::string& format) {
  if (format != "text" && format != "ascii" && format != "svg" && format != "latex")
    return {false, "error: usage: format must be text, ascii, svg or latex, not '" + format + "'\n"};
  const calc::Outcome r = calc::evaluate(expr);
  if (!r.ok) return {false, r.text + "\n"};
  if (format == "text") return {true, r.text + "\n"};
  if (!r.has_layout)
    return {false, "error: type: --format " + format + " draws layouts; this result is " + r.text + "\n"};
  if (tessel::rank(r.layout) > 2)
    return {false, "error: type: --format " + format + " draws rank-1 or rank-2 layouts; " + r.text + " has rank " +
                       std::to_string(tessel::rank(r.layout)) + "\n"};
  if (tessel::size(r.layout) > calc::kMaxDrawCells)
    return {false, "error: capacity: --format " + format + " draws at most " + std::to_string(calc::kMaxDrawCells) +
                       " cells; " + r.text + " has " + std::to_string(tessel::size(r.layout)) + "\n"};
  std::string out;
  bool drawn = false;
  if (format == "ascii") drawn = calc::draw_ascii(r.layout, out);
  if (format == "svg") drawn = calc::draw_svg(r.layout, out);
  if (format == "latex") drawn = calc::draw_latex(r.layout, out);
  if (!drawn) return {false, "error: type: --format " + format + " cannot draw " + r.text + "\n"};
  return {true, out};
}

// ---------------------------------------------------------------- tessel draw's arguments

/// A built drawing, or the message `tessel draw` prints after `error: `.
struct DrawingResult {
  bool ok = false;
  calc::TvDrawing drawing;
  std::string error;
};

nb::object drawing_result(DrawingResult&& r) {
  if (!r.ok) return nb::make_tuple(false, r.error);
  return nb::make_tuple(true, nb::cast(std::move(r.drawing)));
}

nb::object drawing_mma(const std::string& atom, std::string_view atoms) {
  DrawingResult r;
  std::vector<index_t> a;
  if (!calc::parse_dims(atoms, 3, 64, a)) {
    r.error = "--atoms takes AMxANxAK, three integers from 1 to 64 (e.g. 2x2x1); got '" + std::string(atoms) + "'";
    return drawing_result(std::move(r));
  }
  r.ok = calc::tv_drawing_mma(atom, static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2]), r.drawing,
                              r.error);
  return drawing_result(std::move(r));
}

nb::object drawing_copy(std::string_view thr_expr, std::string_view val_expr) {
  DrawingResult r;
  tessel::Layout thr, val;
  r.ok = calc::tv_layout_argument("--thr", thr_expr, thr, r.error) &&
         calc::tv_layout_argument("--val", val_expr, val, r.error) &&
         calc::tv_drawing_copy(thr, val, r.drawing, r.error);
  return drawing_result(std::move(r));
}

nb::object drawing_atom(const std::string& instruction, const std::string& operand) {
  DrawingResult r;
  r.ok = calc::tv_drawing_atom(instruction, operand, r.drawing, r.error);
  return drawing_result(std::move(r));
}

nb::object drawing_tv(std::string_view layout_expr, std::string_view tile) {
  DrawingResult r;
  std::vector<index_t> t;
  if (!calc::parse_dims(tile, 2, calc::kMaxDrawCells, t)) {
    r.error = "--tile takes RxC, two integers from 1 to " + std::to_string(calc::kMaxDrawCells) +
              " (e.g. 16x8); got '" + std::string(tile) + "'";
    return drawing_result(std::move(r));
  }
  tessel::Layout tv;
  r.ok = calc::tv_layout_argument("layout", layout_expr, tv, r.error) &&
         calc::tv_drawing_layout(tv, t[0], t[1], r.drawing, r.error);
  return drawing_result(std::move(r));
}

/// (ok, text or message) of one rendering of a drawing.
std::pair<bool, std::string> render_drawing(const calc::TvDrawing& d, bool svg) {
  std::string out, error;
  const bool ok = svg ? calc::draw_tv_svg(d, out, error) : calc::draw_tv_ascii(d, out, error);
  return ok ? std::pair{true, std::move(out)} : std::pair{false, std::move(error)};
}

}  // namespace

#ifdef TESSEL_PYTHON_GEMM
void bind_gemm(nb::module_& m);  // python/src/gemm_ext.cpp
#endif

NB_MODULE(_tessel, m) {
  m.doc() = "tessel's calculator and drawings (the Python package `tessel` wraps this module)";

  nb::class_<SwizzledLayout>(m, "_Layout", "A layout or swizzled layout of the library (identity swizzle: plain)")
      .def("text", [](const SwizzledLayout& l) { return tessel::to_string(l); })
      .def("shape", [](const SwizzledLayout& l) { return to_python(l.layout.shape); })
      .def("stride", [](const SwizzledLayout& l) { return to_python(l.layout.stride); })
      .def("swizzle",
           [](const SwizzledLayout& l) -> nb::object {
             if (l.swizzle.is_identity()) return nb::none();
             return nb::make_tuple(l.swizzle.b, l.swizzle.m, l.swizzle.s);
           })
      .def("svg", &layout_svg);

  m.def(
      "evaluate",
      [](std::string_view expr) {
        const calc::Outcome r = calc::evaluate(expr);
        nb::object layout = r.ok && r.has_layout ? nb::cast(r.layout, nb::rv_policy::copy) : nb::none();
        nb::object keyword = r.ok ? nb::none() : nb::cast(std::string(tessel::errc_keyword(r.error.code)));
        return nb::make_tuple(r.ok, r.text, keyword, layout);
      },
      "expr"_a, "(ok, text, keyword, layout or None): calc::evaluate; text is what `tessel layout EXPR` prints");
  m.def("render", &render, "expr"_a, "format"_a,
        "(ok, text): the standard output of `tessel layout --format FORMAT EXPR`");

  nb::class_<calc::TvDrawing>(m, "_Drawing", "A thread-value drawing (calc::TvDrawing)")
      .def_prop_ro("title", [](const calc::TvDrawing& d) { return d.title; })
      .def_prop_ro("notes", [](const calc::TvDrawing& d) { return d.notes; })
      .def("svg", [](const calc::TvDrawing& d) { return render_drawing(d, true); })
      .def("ascii", [](const calc::TvDrawing& d) { return render_drawing(d, false); });

  m.def("drawing_mma", &drawing_mma, "atom"_a, "atoms"_a, "(ok, drawing or message): `tessel draw mma ATOM --atoms`");
  m.def("drawing_copy", &drawing_copy, "thr"_a, "val"_a, "(ok, drawing or message): `tessel draw copy`");
  m.def("drawing_atom", &drawing_atom, "instruction"_a, "operand"_a, "(ok, drawing or message): `tessel draw atom`");
  m.def("drawing_tv", &drawing_tv, "layout"_a, "tile"_a, "(ok, drawing or message): `tessel draw tv`");
  m.def("drawing_names", &calc::tv_drawing_names, "what `tessel draw list` prints");
  m.attr("max_draw_cells") = calc::kMaxDrawCells;
  m.attr("__version__") = TESSEL_VERSION;
#ifdef TESSEL_PYTHON_GEMM
  bind_gemm(m);
  m.attr("has_gemm") = true;
#else
  m.attr("has_gemm") = false;  // built without CUDA: the algebra only
#endif
}
