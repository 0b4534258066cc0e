// libFuzzer target: the calculator on arbitrary text.  The input is one line
// of `tessel layout` (seeded from the golden files and the regression inputs,
// mutated with the grammar's dictionary, tests/fuzz/calc.dict).  Every input
// must end in a well-formed result or a named error (fuzz_common.hpp); a
// crash, a sanitizer report, a hang or a failed check is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return -1;  // long inputs only slow the search down; tests/cli_test.py feeds megabyte lines
  const std::string_view expr(reinterpret_cast<const char*>(data), size);
  tessel::fuzz::check_outcome(expr, tessel::calc::evaluate(expr));
  return 0;
}
