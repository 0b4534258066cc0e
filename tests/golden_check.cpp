// Reproduces a golden file through the library: every valid case must give an
// equivalent result (same shape, same offset at every index: see
// tests/data/README.md), every error case must be rejected.
// Prints each mismatch and a closing "N passed, M failed" line.
#include <fstream>
#include <iostream>
#include <string>

#include "tessel/host/calc.hpp"

using namespace tessel;

namespace {

bool equivalent(const std::string& expected, const calc::Outcome& got, std::string& why) {
  if (!got.ok) {
    why = got.text;
    return false;
  }
  calc::Literal want, have;
  Error e;
  if (!calc::parse_literal(expected, want, e)) {
    why = "cannot read the expected value: " + e.message();
    return false;
  }
  if (!calc::parse_literal(got.text, have, e)) {
    why = "cannot read the result: " + e.message();
    return false;
  }
  if (want.kind != have.kind) {
    why = "different kinds of result";
    return false;
  }
  if (want.kind == calc::Literal::kTuple) {
    if (want.tuple == have.tuple) return true;
    why = "different value";
    return false;
  }
  if (!congruent(want.layout.layout.shape, have.layout.layout.shape) ||
      !(want.layout.layout.shape == have.layout.layout.shape)) {
    why = "different shape";
    return false;
  }
  for (index_t i = 0; i < size(want.layout); ++i)
    if (want.layout(i) != have.layout(i)) {
      why = "offset differs at index " + std::to_string(i);
      return false;
    }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: golden_check valid|errors FILE.tsv\n";
    return 2;
  }
  const bool errors = std::string(argv[1]) == "errors";
  std::ifstream in(argv[2]);
  if (!in) {
    std::cerr << "cannot read " << argv[2] << "\n";
    return 2;
  }
  int passed = 0, failed = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    const std::string expr = line.substr(0, tab);
    const std::string expected = tab == std::string::npos ? "" : line.substr(tab + 1);
    const calc::Outcome got = calc::evaluate(expr);
    std::string why;
    const bool ok = errors ? (!got.ok && got.text.rfind("error", 0) == 0) : equivalent(expected, got, why);
    if (ok) {
      ++passed;
    } else {
      ++failed;
      std::cout << "FAIL " << expr << "\n  expected " << expected << "\n  got      " << got.text
                << (why.empty() ? "" : "\n  (" + why + ")") << "\n";
    }
  }
  std::cout << (errors ? "golden errors: " : "golden valid: ") << passed << " passed, " << failed << " failed\n";
  return failed == 0 && passed > 0 ? 0 : 1;
}
