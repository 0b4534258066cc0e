// A layout from C++: build one, divide it into tiles, print both, and show
// the error a bad request gets.  Needs only tessel's headers (tessel::tessel).
#include <cstdio>
#include <string>

#include "tessel/tessel.hpp"

using namespace tessel;

int main() {
  // A 6 x 20 row-major matrix: (6,20):(20,1).
  constexpr Layout a = make_layout(make_shape(6, 20), LayoutRight{});
  std::printf("A = %s\n", to_string(a).c_str());

  // Its 2 x 4 tiles, folded at compile time: ((2,4),(3,5)):((20,1),(40,4)).
  constexpr Layout tiles = zipped_divide(a, make_tiler(_2{}, _4{})).value();
  std::printf("zipped_divide(A, <2,4>) = %s\n", to_string(tiles).c_str());
  static_assert(tiles(make_coord(make_coord(1, 3), make_coord(2, 4))) == a(5, 19));

  // The same at run time, and an error that names the rule it breaks.
  const int m = 6, k = 20;
  const Result<Layout> bad = composition(make_layout(make_shape(m, k), LayoutRight{}),
                                         make_layout(make_shape(7), make_stride(3)));
  if (!bad.ok()) std::printf("composition((6,20):(20,1), 7:3) is refused: %s\n", bad.error().message().c_str());

  std::printf("%s", print_layout(make_layout(make_shape(4, 8), LayoutRight{})).c_str());
  return bad.ok() ? 1 : 0;  // the composition above must be refused
}
