// tessel/core/integer.hpp — compile-time integers `Int<N>` and their arithmetic.
//
// Contract: `Int<A> op Int<B>` is `Int<A op B>` (stays a compile-time
// constant); `Int<A> op x` with a run-time integer `x` is a run-time integer.
// C++ example: `_4{} * _8{}` has type `Int<32>`; `_4{} * k` is an `index_t`.
#pragma once

#include <concepts>
#include <type_traits>

#include "tessel/core/config.hpp"

namespace tessel {

template <index_t N>
struct Int {
  static constexpr index_t value = N;
  using value_type = index_t;
  TESSEL_HD constexpr operator index_t() const { return N; }  // NOLINT: implicit by design
};

template <class T>
struct is_static_int : std::false_type {};
template <index_t N>
struct is_static_int<Int<N>> : std::true_type {};
template <class T>
inline constexpr bool is_static_int_v = is_static_int<std::remove_cvref_t<T>>::value;

/// A run-time integer accepted wherever tessel takes an integer (32- or 64-bit,
/// signed or unsigned).
template <class T>
concept DynamicInt = std::integral<std::remove_cvref_t<T>> && !std::same_as<std::remove_cvref_t<T>, bool>;
/// A static or run-time integer.
template <class T>
concept Integer = DynamicInt<T> || is_static_int_v<T>;

// Static-with-static arithmetic stays static.  Mixed arithmetic falls back to
// the built-in operators through the implicit conversion to index_t.
#define TESSEL_STATIC_BINOP(OP)                          \
  template <index_t A, index_t B>                        \
  TESSEL_HD constexpr auto operator OP(Int<A>, Int<B>) { \
    return Int<(A OP B)>{};                              \
  }
TESSEL_STATIC_BINOP(+)
TESSEL_STATIC_BINOP(-)
TESSEL_STATIC_BINOP(*)
#undef TESSEL_STATIC_BINOP

template <index_t A, index_t B>
TESSEL_HD constexpr auto operator/(Int<A>, Int<B>) {
  static_assert(B != 0, "tessel: static division by zero");
  return Int<A / B>{};
}
template <index_t A, index_t B>
TESSEL_HD constexpr auto operator%(Int<A>, Int<B>) {
  static_assert(B != 0, "tessel: static modulo by zero");
  return Int<A % B>{};
}
template <index_t A>
TESSEL_HD constexpr auto operator-(Int<A>) {
  return Int<-A>{};
}

template <index_t A, index_t B>
TESSEL_HD constexpr bool operator==(Int<A>, Int<B>) {
  return A == B;
}

/// Ceiling division of non-negative integers, static when both are static.
/// C++ example: ceil_div(_7{}, _2{}) is Int<4>; ceil_div(7, 2) == 4.
template <index_t A, index_t B>
TESSEL_HD constexpr auto ceil_div(Int<A>, Int<B>) {
  static_assert(B > 0, "tessel: ceil_div by a non-positive constant");
  return Int<(A + B - 1) / B>{};
}
/// For a ≥ 0 and b > 0 (no intermediate a + b - 1, so it holds up to the largest index_t).
TESSEL_HD constexpr index_t ceil_div(index_t a, index_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// ---------------------------------------------------------------- checked arithmetic
//
// The algebra forms sizes, cosizes, strides and offsets as products and sums
// of leaves.  Every such value must fit in index_t: the helpers below detect
// overflow instead of committing it (signed overflow is undefined behaviour).
// They take any operands and use divisions rather than a compiler builtin, so
// that the same code runs in constant expressions, on the host and in device
// code.

/// The largest value of a leaf, a size or a cosize: what index_t holds (2^63 - 1).
inline constexpr index_t kMaxIndex = static_cast<index_t>(~std::uint64_t{0} >> 1);
inline constexpr index_t kMinIndex = -kMaxIndex - 1;

/// True when a * b does not fit in index_t.  C++ example: mul_overflows(2^32, 2^31) is true.
TESSEL_HD constexpr bool mul_overflows(index_t a, index_t b) {
  if (a == 0 || b == 0) return false;
  if (a > 0) return b > 0 ? a > kMaxIndex / b : b < kMinIndex / a;
  return b > 0 ? a < kMinIndex / b : a < kMaxIndex / b;
}
/// True when a + b does not fit in index_t.
TESSEL_HD constexpr bool add_overflows(index_t a, index_t b) { return b > 0 ? a > kMaxIndex - b : a < kMinIndex - b; }
/// a * b, or the bound of its sign when the product does not fit.
/// C++ example: sat_mul(3, 4) == 12; sat_mul(2^62, 4) == kMaxIndex; sat_mul(kMaxIndex, 0) == 0.
TESSEL_HD constexpr index_t sat_mul(index_t a, index_t b) {
  if (!mul_overflows(a, b)) return a * b;
  return (a > 0) == (b > 0) ? kMaxIndex : kMinIndex;
}
/// a + b, or the bound of its sign when the sum does not fit.
TESSEL_HD constexpr index_t sat_add(index_t a, index_t b) {
  if (!add_overflows(a, b)) return a + b;
  return b > 0 ? kMaxIndex : kMinIndex;
}

// Aliases _0 ... _256 (every value) and negatives _m1 ... _m16 (`_m4` is Int<-4>).
// clang-format off
using _0 = Int<0>; using _1 = Int<1>; using _2 = Int<2>; using _3 = Int<3>; using _4 = Int<4>; using _5 = Int<5>; using _6 = Int<6>; using _7 = Int<7>;
using _8 = Int<8>; using _9 = Int<9>; using _10 = Int<10>; using _11 = Int<11>; using _12 = Int<12>; using _13 = Int<13>; using _14 = Int<14>; using _15 = Int<15>;
using _16 = Int<16>; using _17 = Int<17>; using _18 = Int<18>; using _19 = Int<19>; using _20 = Int<20>; using _21 = Int<21>; using _22 = Int<22>; using _23 = Int<23>;
using _24 = Int<24>; using _25 = Int<25>; using _26 = Int<26>; using _27 = Int<27>; using _28 = Int<28>; using _29 = Int<29>; using _30 = Int<30>; using _31 = Int<31>;
using _32 = Int<32>; using _33 = Int<33>; using _34 = Int<34>; using _35 = Int<35>; using _36 = Int<36>; using _37 = Int<37>; using _38 = Int<38>; using _39 = Int<39>;
using _40 = Int<40>; using _41 = Int<41>; using _42 = Int<42>; using _43 = Int<43>; using _44 = Int<44>; using _45 = Int<45>; using _46 = Int<46>; using _47 = Int<47>;
using _48 = Int<48>; using _49 = Int<49>; using _50 = Int<50>; using _51 = Int<51>; using _52 = Int<52>; using _53 = Int<53>; using _54 = Int<54>; using _55 = Int<55>;
using _56 = Int<56>; using _57 = Int<57>; using _58 = Int<58>; using _59 = Int<59>; using _60 = Int<60>; using _61 = Int<61>; using _62 = Int<62>; using _63 = Int<63>;
using _64 = Int<64>; using _65 = Int<65>; using _66 = Int<66>; using _67 = Int<67>; using _68 = Int<68>; using _69 = Int<69>; using _70 = Int<70>; using _71 = Int<71>;
using _72 = Int<72>; using _73 = Int<73>; using _74 = Int<74>; using _75 = Int<75>; using _76 = Int<76>; using _77 = Int<77>; using _78 = Int<78>; using _79 = Int<79>;
using _80 = Int<80>; using _81 = Int<81>; using _82 = Int<82>; using _83 = Int<83>; using _84 = Int<84>; using _85 = Int<85>; using _86 = Int<86>; using _87 = Int<87>;
using _88 = Int<88>; using _89 = Int<89>; using _90 = Int<90>; using _91 = Int<91>; using _92 = Int<92>; using _93 = Int<93>; using _94 = Int<94>; using _95 = Int<95>;
using _96 = Int<96>; using _97 = Int<97>; using _98 = Int<98>; using _99 = Int<99>; using _100 = Int<100>; using _101 = Int<101>; using _102 = Int<102>; using _103 = Int<103>;
using _104 = Int<104>; using _105 = Int<105>; using _106 = Int<106>; using _107 = Int<107>; using _108 = Int<108>; using _109 = Int<109>; using _110 = Int<110>; using _111 = Int<111>;
using _112 = Int<112>; using _113 = Int<113>; using _114 = Int<114>; using _115 = Int<115>; using _116 = Int<116>; using _117 = Int<117>; using _118 = Int<118>; using _119 = Int<119>;
using _120 = Int<120>; using _121 = Int<121>; using _122 = Int<122>; using _123 = Int<123>; using _124 = Int<124>; using _125 = Int<125>; using _126 = Int<126>; using _127 = Int<127>;
using _128 = Int<128>; using _129 = Int<129>; using _130 = Int<130>; using _131 = Int<131>; using _132 = Int<132>; using _133 = Int<133>; using _134 = Int<134>; using _135 = Int<135>;
using _136 = Int<136>; using _137 = Int<137>; using _138 = Int<138>; using _139 = Int<139>; using _140 = Int<140>; using _141 = Int<141>; using _142 = Int<142>; using _143 = Int<143>;
using _144 = Int<144>; using _145 = Int<145>; using _146 = Int<146>; using _147 = Int<147>; using _148 = Int<148>; using _149 = Int<149>; using _150 = Int<150>; using _151 = Int<151>;
using _152 = Int<152>; using _153 = Int<153>; using _154 = Int<154>; using _155 = Int<155>; using _156 = Int<156>; using _157 = Int<157>; using _158 = Int<158>; using _159 = Int<159>;
using _160 = Int<160>; using _161 = Int<161>; using _162 = Int<162>; using _163 = Int<163>; using _164 = Int<164>; using _165 = Int<165>; using _166 = Int<166>; using _167 = Int<167>;
using _168 = Int<168>; using _169 = Int<169>; using _170 = Int<170>; using _171 = Int<171>; using _172 = Int<172>; using _173 = Int<173>; using _174 = Int<174>; using _175 = Int<175>;
using _176 = Int<176>; using _177 = Int<177>; using _178 = Int<178>; using _179 = Int<179>; using _180 = Int<180>; using _181 = Int<181>; using _182 = Int<182>; using _183 = Int<183>;
using _184 = Int<184>; using _185 = Int<185>; using _186 = Int<186>; using _187 = Int<187>; using _188 = Int<188>; using _189 = Int<189>; using _190 = Int<190>; using _191 = Int<191>;
using _192 = Int<192>; using _193 = Int<193>; using _194 = Int<194>; using _195 = Int<195>; using _196 = Int<196>; using _197 = Int<197>; using _198 = Int<198>; using _199 = Int<199>;
using _200 = Int<200>; using _201 = Int<201>; using _202 = Int<202>; using _203 = Int<203>; using _204 = Int<204>; using _205 = Int<205>; using _206 = Int<206>; using _207 = Int<207>;
using _208 = Int<208>; using _209 = Int<209>; using _210 = Int<210>; using _211 = Int<211>; using _212 = Int<212>; using _213 = Int<213>; using _214 = Int<214>; using _215 = Int<215>;
using _216 = Int<216>; using _217 = Int<217>; using _218 = Int<218>; using _219 = Int<219>; using _220 = Int<220>; using _221 = Int<221>; using _222 = Int<222>; using _223 = Int<223>;
using _224 = Int<224>; using _225 = Int<225>; using _226 = Int<226>; using _227 = Int<227>; using _228 = Int<228>; using _229 = Int<229>; using _230 = Int<230>; using _231 = Int<231>;
using _232 = Int<232>; using _233 = Int<233>; using _234 = Int<234>; using _235 = Int<235>; using _236 = Int<236>; using _237 = Int<237>; using _238 = Int<238>; using _239 = Int<239>;
using _240 = Int<240>; using _241 = Int<241>; using _242 = Int<242>; using _243 = Int<243>; using _244 = Int<244>; using _245 = Int<245>; using _246 = Int<246>; using _247 = Int<247>;
using _248 = Int<248>; using _249 = Int<249>; using _250 = Int<250>; using _251 = Int<251>; using _252 = Int<252>; using _253 = Int<253>; using _254 = Int<254>; using _255 = Int<255>;
using _256 = Int<256>;
using _m1 = Int<-1>; using _m2 = Int<-2>; using _m3 = Int<-3>; using _m4 = Int<-4>; using _m5 = Int<-5>; using _m6 = Int<-6>; using _m7 = Int<-7>; using _m8 = Int<-8>;
using _m9 = Int<-9>; using _m10 = Int<-10>; using _m11 = Int<-11>; using _m12 = Int<-12>; using _m13 = Int<-13>; using _m14 = Int<-14>; using _m15 = Int<-15>; using _m16 = Int<-16>;
// clang-format on

}  // namespace tessel
