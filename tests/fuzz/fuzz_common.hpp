// Shared by the fuzz targets: the checks that every outcome of the calculator
// must pass, whatever the input.  A failed check prints what it saw and aborts,
// which libFuzzer (and the replay driver) report as a crash with the input
// saved.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tessel/host/calc.hpp"

namespace tessel::fuzz {

[[noreturn]] inline void oracle_failure(const std::string& what) {
  std::fprintf(stderr, "tessel fuzz oracle: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void check(bool ok, const std::string& what) {
  if (!ok) oracle_failure(what);
}

/// An error line is `error: KEYWORD: message` (or `error: KEYWORD`) with one
/// of the keywords of Errc, printable ASCII only.
inline bool well_formed_error(const std::string& text) {
  if (text.rfind("error: ", 0) != 0) return false;
  bool known = false;
  for (int c = 1; c <= static_cast<int>(Errc::capacity); ++c) {
    const std::string k = errc_keyword(static_cast<Errc>(c));
    if (text.compare(7, k.size(), k) == 0 && (text.size() == 7 + k.size() || text[7 + k.size()] == ':')) known = true;
  }
  return known;
}

/// Every outcome: a well-formed error, or a result that reads back as itself
/// (the calculator accepts everything it prints, and prints it the same way).
/// A result that is a layout is also drawn when it is small (the drawings
/// must not crash either).
inline void check_outcome(std::string_view expr, const calc::Outcome& r) {
  if (!r.ok) {
    check(well_formed_error(r.text), "malformed error line for '" + std::string(expr) + "': " + r.text);
    for (char c : r.text)
      check(c >= 0x20 && c < 0x7f, "non-printable byte in the error line for '" + std::string(expr) + "'");
    return;
  }
  check(!r.text.empty() && r.text.rfind("error", 0) != 0, "empty or error-like result for '" + std::string(expr) + "'");
  const calc::Outcome again = calc::evaluate(r.text);
  check(again.ok, "the result '" + r.text + "' of '" + std::string(expr) + "' does not parse back: " + again.text);
  check(again.text == r.text, "the result '" + r.text + "' reads back as '" + again.text + "'");
  if (r.has_layout) {
    check(check_layout(r.layout.layout).code == Errc::ok, "an invalid layout was printed: " + r.text);
    if (rank(r.layout) <= 2 && size(r.layout) <= 1024) {
      std::string out;
      check(calc::draw_ascii(r.layout, out) && calc::draw_svg(r.layout, out) && calc::draw_latex(r.layout, out),
            "a small rank-1/2 layout could not be drawn: " + r.text);
    }
  }
}

}  // namespace tessel::fuzz
