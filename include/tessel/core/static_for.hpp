// tessel/core/static_for.hpp — a loop whose index is a compile-time constant.
//
// static_for<N>(f) calls f.template operator()<I>() for I = 0, 1, ..., N-1,
// in order.  A body that needs a constexpr function of its index as a
// constant (`constexpr int v = pair_value(Q, I);`) gets it from the C++
// front end, once per index; in an unrolled `for` the same call reaches the
// device compiler as code to fold at every unrolled copy, which for the
// TMA-store epilogue's search of a chunk's value pairs was most of a
// kernel's compile time (session 31: k13's 128 x 256 unit 160 s of CPU).
// Example: int s = 0; static_for<4>([&]<int I>() { s += I; });  // s == 6
#pragma once

#include <utility>

#include "tessel/core/config.hpp"

namespace tessel {

namespace detail {
template <class F, int... I>
TESSEL_HDI constexpr void static_for_each(F& f, std::integer_sequence<int, I...>) {
  (f.template operator()<I>(), ...);
}
}  // namespace detail

/// f.template operator()<I>() for I = 0 .. N-1, in order (see the header).
template <int N, class F>
TESSEL_HDI constexpr void static_for(F&& f) {
  static_assert(N >= 0, "tessel: static_for needs a count >= 0");
  detail::static_for_each(f, std::make_integer_sequence<int, N>{});
}

}  // namespace tessel
